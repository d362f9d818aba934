// Package blankvector holds only tests: its test binary imports
// formats/parquet/vectorcol blank and nothing else of it, to show that a
// VECTOR column reaches the registry's Parquet record model with the
// import alone, as an image format reaches image.Decode.
package blankvector
