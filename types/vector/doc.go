// Package vector is the in-memory core of the lab's VECTOR column type:
// element types and their little-endian byte layout, float32 distance
// kernels, exact top-k search over matrices and over streams of blocks,
// and ann-benchmarks style recall tooling.
//
// The byte layout of one vector is what a Parquet FIXED_LEN_BYTE_ARRAY of
// dim × width bytes holds (parquet-format PR #241): the elements in order,
// each little-endian. The Parquet layouts themselves live elsewhere; this
// package only turns those bytes into float32 rows and searches them.
//
// Everything is computed in float32 (other element types convert to float32
// first), except ground truth for recall, which is float64 so that it can
// judge the float32 results.
package vector
