// Package bench is the lab's experiment harness. Benchmarks report ratios to
// a baseline measured in the same run, because the machines are shared and
// noisy; absolute times alone are not comparable across runs.
//
// The vector search comparison is split as ann-benchmarks splits its
// harness, so that `lab bench peers` and the notebooks measure the same way:
//
//   - datasets: the generated vectors and held-out queries (datasets.go) and
//     the files the engines read them from (dataset_files.go);
//   - engines: one Engine interface (engine.go) with the lab's file and
//     in-memory searches (engine_labfile.go, engine_labmemory.go) and the
//     peers DuckDB, LanceDB and FAISS (engine_duckdb.go, engine_lancedb.go,
//     engine_faiss.go), which run as processes through package peers;
//   - one runner, RunEngines (runner.go): the memory-bandwidth floor of the
//     same run (floor.go), once at the start or, for a FloorEngine, in turn
//     with its search beside its own floor; best-of timing (timing.go);
//     agreement with a reference engine or with brute force (agreement.go),
//     recall against brute force (recall.go) and takes checked bit for bit
//     (take.go);
//   - reports: RunPeerBench (peerbench.go) picks the files and engines and
//     calls the runner; its verdicts (peerbench_verdicts.go) and Markdown
//     (peerbench_markdown.go) only read what the run measured. The layout
//     sweep, RunVectorBench (vectors.go), runs its searches of every
//     configuration's file (vectors_engine.go) through the same runner and
//     measures the rest itself: writes, sizes, decodes, takes, heap peaks.
//
// The variant and FILE benchmarks (variant.go, fileref.go) measure one
// system's formats, not searches, and use the floor and the timing helpers
// directly.
package bench
