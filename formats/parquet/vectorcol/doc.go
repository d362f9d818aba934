// Package vectorcol reads and writes VECTOR columns as Parquet: the layouts
// of spec/VECTOR.md (flba, flba-raw, list, vector-repetition,
// fixed-size-list; Layout), their detection from any writer's schema, the
// page writer (ChunkWriter, WriteFile) and the page reader (File: scans of
// blocks on every core, Take, the decompression floor). Pages are decoded
// by the one page stack, formats/parquet/internal/pages; values, kernels
// and search are types/vector's.
//
// It is also VECTOR's column binding (DESIGN.md, "Layout"): a program that
// imports it, even blank, writes the VECTOR columns that PropColumns
// declares through the registry's record model, and reads VECTOR lists as
// fixed[L]. formats/parquet never imports it. The binding (binding.go) is a
// parquet.PageBinding: it owns the declaration grammar, the element types,
// the layout, encoding and statistics settings (settings.go), the Iceberg
// type checks, the annotation and the pages (ChunkWriter); the format owns
// the file around them (its page_write.go: offsets, merged footer, page
// index). The package registers the (PARQUET, vector.Block) model too
// (blocks.go: VectorBlockModel, OpenVectorBlocks), which scans a column as
// blocks.
package vectorcol
