// Package variant shreds Parquet VARIANT values and reconstructs them.
//
// Values are encoded and decoded with arrow-go's parquet/variant package; this
// package owns only what the lab studies:
//
//   - the Analyzer, which buffers rows and infers a shredding Layout with
//     Iceberg's type-uniformity rule (see spec/VARIANT.md);
//   - Shred, which splits a value into the value/typed_value pairs the
//     shredding spec defines (a Row, a tree mirroring the Parquet group);
//   - Reconstruct, the spec's construct_variant algorithm, strict about the
//     conflicts the spec calls invalid;
//   - ReadParquet, a generic parquet-go reader that assembles shredded rows
//     and derives their Layout from the file schema (used by the conformance
//     tests against apache/parquet-testing);
//   - ReadInput and WriteColumn, what lab variant reads values from (Parquet
//     through the registry's record model, or JSON Lines) and writes them to;
//   - Assembled, for the reconstructing reader's own encoding of a value.
//
// Decoding untrusted bytes goes through Decode, which turns panics in the
// decoder into errors.
package variant
