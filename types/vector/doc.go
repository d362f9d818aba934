// Package vector is the in-memory core of the lab's VECTOR column type:
// element types and their little-endian byte layout, float32 distance
// kernels, exact top-k search over matrices and over streams of blocks,
// and ann-benchmarks style recall tooling. It imports no Parquet package.
//
// The byte layout of one vector is what a Parquet FIXED_LEN_BYTE_ARRAY of
// dim × width bytes holds: the elements in order, each little-endian (for
// float32 and float64 the PLAIN representation that parquet-format PR #241's
// FIXED_SIZE_LIST prescribes; the lab's own flba variant uses the same cells
// for float16 and int8 too). The Parquet layouts around those bytes are
// formats/parquet/vectorcol's; a file is searched through the registry
// (SearchFile reads the (PARQUET, Block) model that formats/parquet
// registers), as every other read goes.
//
// Everything is computed in float32 (other element types convert to float32
// first), except ground truth for recall, which is float64 so that it can
// judge the float32 results.
package vector
