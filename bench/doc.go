// Package bench is the lab's experiment harness: datasets, runners, the
// memory-bandwidth floor, results and the peers. Benchmarks report ratios to
// a baseline measured in the same run, because the machines are shared and
// noisy; absolute times alone are not comparable across runs.
package bench
