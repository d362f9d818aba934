// Package vectorcol reads and writes VECTOR columns as Parquet: the layouts
// of spec/VECTOR.md (flba, flba-raw, list, vector-repetition,
// fixed-size-list; Layout), their detection from any writer's schema, the
// page writer (ChunkWriter, WriteFile) and the page reader (File: scans of
// blocks on every core, Take, the decompression floor). Pages are decoded
// by the one page stack, formats/parquet/internal/pages; values, kernels
// and search are types/vector's.
//
// The registry reaches it through formats/parquet: the record model writes
// VECTOR columns with ChunkWriter and reads vector-repetition with the page
// reader, and the (PARQUET, vector.Block) model scans a column as blocks.
package vectorcol
