// Package inspect reports what a Parquet file's footer says: the schema tree
// with every annotation, the row groups and column chunks with their sizes,
// encodings, codecs and statistics, and the key/value metadata.
//
// It is built on footer.ReadFooter, not on a reader's own schema, so it shows
// what the bytes hold whichever writer produced them: FILE (id 19), VECTOR
// (the configured id, default 20) with its element, length and layout,
// VECTOR repetition (3) and vector_length, shredded VARIANT layouts, every
// standard logical and converted type, and LogicalType members it does not
// know, reported as "unknown (id N)" instead of being dropped.
//
// # JSON
//
// Report marshals with encoding/json; the field names below are stable
// (additions only). Optional values are omitted when the footer does not
// hold them, so absence and zero stay distinct.
//
//	file, size, footer_offset, footer_length   where the footer sits
//	version, num_rows, num_columns, created_by, vector_id, encrypted
//	schema       the root Node
//	num_row_groups, row_groups_omitted   the file's row group count, and
//	             how many of them the report leaves out (Options.RowGroups:
//	             by default all but the first DefaultRowGroups)
//	row_groups   []RowGroup, each with its index in the file
//	key_value_metadata  []{key, value, length, truncated}
//	annotations  []{path, kind, id, vector_length, vector_repetition,
//	             element, in_footer, in_key_value}  (footer.ReadAnnotations:
//	             FILE, VECTOR, UNKNOWN in the schema and the coltype mirror)
//	column_orders, warnings
//
// Node: name, path, repetition (REQUIRED, OPTIONAL, REPEATED, VECTOR or
// "FieldRepetitionType(n)"), physical_type, type_length, field_id,
// converted_type (e.g. "UTF8", "DECIMAL(10,2)"), logical_type,
// vector_length, column (leaf index, in column-chunk order), children.
//
// LogicalType: name (STRING, MAP, LIST, ENUM, DECIMAL, DATE, TIME, TIMESTAMP,
// INT, NULL, JSON, BSON, UUID, FLOAT16, VARIANT, GEOMETRY, GEOGRAPHY, FILE,
// VECTOR, UNKNOWN), id (the union member id), text (the readable form, e.g.
// "DECIMAL(10,2)", "TIMESTAMP(MICROS, UTC)", "unknown (id 2555)"), and the
// parameters: precision, scale, unit, adjusted_to_utc, bit_width, signed,
// crs, algorithm, specification_version, vector {element, dim, dim_source,
// layout}, variant {shredded, summary, layout, error}, raw (hex of struct
// bytes the model keeps verbatim: unknown members, unmodelled fields).
// A variant layout is {kind, type, value, fields [{name, layout}], element}.
//
// RowGroup: index, num_rows, total_byte_size, total_compressed_size,
// file_offset, ordinal, columns. ColumnChunk: path, file_path, file_offset,
// physical_type, encodings, codec, num_values, total_compressed_size,
// total_uncompressed_size, data_page_offset, dictionary_page_offset,
// index_page_offset, statistics {null_count, distinct_count, nan_count, min,
// max, min_exact, max_exact, legacy_min_max}, column_index, offset_index and
// bloom_filter ({offset, length}; present when the footer points at them),
// encrypted, no_metadata.
//
// Statistics min and max are display strings: numbers as numbers, decimals
// scaled, dates and times in ISO 8601 (a trailing Z only when the type is
// adjusted to UTC), strings quoted as Go string literals, UUIDs in their
// canonical form, and anything else (or any value whose length does not fit
// its type) as 0x-prefixed hex. Long values are cut to Options.MaxValueLen
// with "…" appended, unless Options.FullStatistics keeps them whole (what lab
// inspect --json does); the text view cuts them further, to 36 columns
// ending in the value's length. A leaf that a registered value-level type
// annotates (data/coltype: VECTOR on a FIXED_LEN_BYTE_ARRAY leaf, a type a
// package adds) shows its bounds in the text view as that type formats
// them, "[0, 0.2857, 0.5714, …] 768×float32", unless the type says a bound
// is none of its values (coltype.BoundFormatter: a page index bound cut to
// a prefix), which shows as hex; the JSON report keeps the display strings
// above. PagesReport reads its page statistics and column index bounds the
// same way, and a VECTOR's element names come from the type registered for
// its annotation (coltype.Type.Element), so the package imports no column
// type.
//
// # Text
//
// WriteText keeps a report of the lab's 768-dim VECTOR files within
// TextWidth (107) columns: a VECTOR annotation reads as its bounds do,
// "VECTOR(id=20, 768×float32, flba)" (text keeps every parameter by name),
// key/value values are cut to what the widest key leaves of a line, ending
// in their length, and the column chunk table leaves the physical type to
// the schema, where it is shown with its length.
package inspect
