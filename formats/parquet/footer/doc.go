// Package footer is the lab's codec for Parquet footers with extension
// annotations: how FILE and VECTOR reach a file.
//
// parquet-go cannot emit a LogicalType union member it does not know and
// arrow-go's union is closed, so the lab writes data with parquet-go in a
// layout every reader understands and then rewrites only the footer with the
// extended thrift model of this package (DESIGN.md, "New logical types").
//
//   - Decode / Encode: the footer's FileMetaData through parquet-go's public
//     thrift codec (encoding/thrift), over a model that keeps what parquet-go's
//     own model loses, so that a decoded footer encodes back to its bytes.
//   - ReadFooter: the footer of a file, with its raw bytes and offsets.
//   - RewriteFooter: every byte before the footer verbatim, then the edited
//     footer; refuses footers that do not re-encode identically, encrypted
//     files and edits that change the schema's shape or the row groups.
//   - Annotate / ReadAnnotations: FILE, VECTOR and FIXED_SIZE_LIST (PR #241)
//     on a column, mirrored in the key/value metadata under MirrorKey.
//   - Sanitize / SanitizedFooterBytes / ArrowFileMetaData: what arrow-go
//     v18.8.0 can open with file.WithMetadata.
//
// # Union ids
//
// FILE is LogicalType member 19 (parquet-format 2.14.0). VECTOR (open PR #592)
// proposes 19 as well, so the lab writes it under its own id, DefaultVectorID
// (20) unless configured. FIXED_SIZE_LIST (open PR #241) proposes 19 too; the
// lab writes it under DefaultFixedSizeListID (21) unless a writer asks for
// PR #241's own 19. Annotate writes VECTOR under 19 (VectorProposalID, the id
// of PR #592 and of arrow-go's prototype) only with VECTOR repetition.
//
// # FIXED_SIZE_LIST
//
// PR #241's FixedSizeListType {1: required Type type; 2: required i32
// num_values} has fields, unlike FILE and VECTOR. Decode does not turn it
// into a FixedSizeListType (the id is the writer's choice): it stays the
// member the id decodes as (UnknownLogicalType, FileType under 19, VectorType
// under the VECTOR id) with its bytes, and AsFixedSizeList reads it under a
// given id. ReadAnnotations reports FIXED_SIZE_LIST on a leaf under the id the
// mirror records, under 19 (FILE annotates groups only), under 21, and under
// any other id whose struct decodes as FixedSizeListType and fits the leaf
// (CheckFixedSizeList). The same holds in reverse for 19 on a group whose
// child has VECTOR repetition: ReadAnnotations reports VECTOR, not FILE.
//
// # How the VECTOR id is configurable
//
// parquet-go's thrift unions (thrift.Union) dispatch on FieldID methods,
// constants of each Go member type, built once per type into a global codec
// cache; a per-file id cannot be expressed that way. LogicalType therefore
// implements thrift.Value with its own codec instead of thrift.Union. Its
// decoder reads the member's field header itself and dispatches:
//
//   - ids 1-8 and 10-18 to parquet-go's codec for the member struct;
//   - every other id to the kinds registry (registry.go), which holds FILE
//     (19, *FileType), VECTOR (the VECTOR id of this decode, *VectorType,
//     which records the id it was read under and is written back under it),
//     FIXED_SIZE_LIST (never decoded: see above) and each registered
//     extension type (*ExtensionType);
//   - an id no kind claims to *UnknownLogicalType, which keeps the member's
//     bytes.
//
// The VECTOR id of a decode comes from WithVectorID, passed to Decode,
// ReadFooter or RewriteFooter. The codec reaches it through the thrift reader:
// Decode hands parquet-go's decoder a reader of its own (footerReader) that
// carries the configuration and the input bytes, and the LogicalType decoder
// asks its reader for them. No global state is involved, so decodes with
// different ids may run concurrently.
//
// Limits: the id given to WithVectorID must be positive and outside 1-19
// (parquet-format's ids; 9 is reserved for INTERVAL). One decode recognises
// one VECTOR id; a member
// under any other non-standard id decodes as UnknownLogicalType (and encodes
// back unchanged). Files written with PR #592's own id 19 decode as FILE, since
// parquet-format 2.14.0 gives 19 to FILE. If parquet-format later assigns
// the lab's id to another type, configure a different one. Going through
// parquet-go's codec directly (thrift.Unmarshal on a FileMetaData) instead of
// Decode uses DefaultVectorID and keeps unknown members by id only, without
// their bytes.
//
// # Byte-identical round trips
//
// A footer re-encodes identically when its writer used only fields this model
// knows (parquet-format 2.14.0 plus vector_length), in field-id order, with
// minimal varints. Unknown LogicalType members are kept verbatim. Unknown
// fields elsewhere, unknown ColumnOrder or TimeUnit members and non-minimal
// encodings are not; RewriteFooter finds that out by re-encoding before any
// edit and refuses such files rather than alter them.
//
// # Untrusted input
//
// Before parquet-go's decoder sees a footer, a non-recursive scan checks
// every length and container size against the bytes left (so no allocation
// exceeds what the footer can hold), the types, and a nesting bound (which
// keeps the decoder's recursive skipping of unknown fields off the stack
// limit, which no recover catches). Decoding is strict: a field of the wrong
// type is an error, not silently dropped. The schema's num_children must
// describe exactly one tree of at most data.MaxSchemaDepth (255) levels. Strings are thrift binary
// and kept as they are, UTF-8 or not (Annotate refuses non-UTF-8 names, which
// the JSON mirror could not hold). Errors carry the byte offset (DecodeError);
// exported functions recover any panic into an error.
package footer
