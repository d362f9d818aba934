package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

func init() {
	commands = append(commands, newBenchCommand)
	benchCommands = append(benchCommands, newBenchVectorsCommand)
}

// benchCommands holds the constructors of `lab bench` subcommands; each
// benchmark's file adds its own from init(), like commands in root.go.
var benchCommands []func(*viper.Viper) *cobra.Command

func newBenchCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use: "bench",
		Example: `  lab bench vectors --quick
  lab bench peers --quick --json`,
		Short: "Run the lab's benchmarks; every scan is reported against the memory-bandwidth floor of the same run",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, newCommand := range benchCommands {
		cmd.AddCommand(newCommand(v))
	}
	return cmd
}

func newBenchVectorsCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vectors",
		Short: "Write, decode, search and take a vector dataset in every VECTOR layout x encoding x codec",
		Example: `  lab bench vectors --quick
  lab bench vectors --size 100000x768 --layouts flba --encodings plain --codecs none
  lab bench vectors --size 100000x128 --dataset clustered --json > vectors.json
  lab bench vectors --size 100000x768 --codecs zstd --peer-files=false`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			size, err := parseBenchSize(v.GetString("bench.vectors.size"), v.GetBool("bench.vectors.quick"))
			if err != nil {
				return usageError{err}
			}
			cfg := bench.VectorBenchConfig{
				Size:    size,
				Dataset: v.GetString("bench.vectors.dataset"),
				Seed:    uint64(v.GetInt64("bench.vectors.seed")),
				Dir:     v.GetString("bench.vectors.dir"),
				Runs:    v.GetInt("bench.vectors.runs"),
			}
			if cfg.Layouts, err = parseList(v.GetString("bench.vectors.layouts"), "--layouts", vectorcol.ParseLayout); err != nil {
				return usageError{err}
			}
			if cfg.Encodings, err = parseList(v.GetString("bench.vectors.encodings"), "--encodings", vectorcol.ParseValueEncoding); err != nil {
				return usageError{err}
			}
			if cfg.Codecs, err = parseList(v.GetString("bench.vectors.codecs"), "--codecs", vectorcol.ParseCodec); err != nil {
				return usageError{err}
			}
			if cfg.Runs < 0 {
				return usageError{fmt.Errorf("--runs %d: want ≥ 1", cfg.Runs)}
			}
			cfg.PeerFiles = v.GetBool("bench.vectors.peer-files")
			if cfg.PeerFiles && !cmd.Flags().Changed("peer-files") {
				// On by default where the peers are installed; asked for, a
				// missing peer fails the run.
				for _, peer := range []peers.Peer{peers.DuckDB, peers.ParquetWasm} {
					if err := peer.Available(); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "lab: bench vectors: leaving out the peers' files: %v\n", err)
						cfg.PeerFiles = false
						break
					}
				}
			}
			p := newProgress(cmd, -1, "steps")
			cfg.Progress = stepWriter{p}
			rep, err := bench.RunVectorBench(cfg)
			if err != nil {
				p.Abort()
				return err
			}
			p.Finish()
			return printReport(cmd, v.GetBool("bench.vectors.json"), rep)
		},
	}
	addQuietFlag(cmd)
	f := cmd.Flags()
	f.Bool("quick", false, "the small test size ("+bench.Quick.Name+")")
	f.String("size", "100000x128", "rows x dimensions, e.g. 100000x768 or 1000000x128")
	f.String("dataset", "clustered", "clustered (anisotropic Gaussian clusters) or uniform")
	f.Int64("seed", 1, "dataset seed")
	f.String("dir", "", "directory for the files (default: a temporary directory, removed afterwards)")
	f.Bool("json", false, "print the report as JSON")
	f.String("layouts", "", "comma-separated layouts to run (default all: flba,flba-raw,list,vector-repetition,fixed-size-list; flba is the lab's own VECTOR variant, fixed-size-list is PR #241)")
	f.String("encodings", "", "comma-separated value encodings (default all: plain,bss)")
	f.String("codecs", "", "comma-separated codecs (default all: none,snappy,zstd,lz4)")
	f.Int("runs", 3, "timed runs per measurement; the best is kept")
	f.Bool("peer-files", true, "also have DuckDB (V2, zstd) and parquet-wasm (BYTE_STREAM_SPLIT, zstd) write the vectors, and search their files (default: when installed)")
	for _, name := range []string{"quick", "size", "dataset", "seed", "dir", "json", "layouts", "encodings", "codecs", "runs", "peer-files"} {
		_ = v.BindPFlag("bench.vectors."+name, f.Lookup(name))
	}
	return cmd
}

// parseList parses a comma-separated flag value with parse; empty means nil
// (every value).
func parseList[T any](s, flag string, parse func(string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for _, name := range strings.Split(s, ",") {
		x, err := parse(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// parseBenchSize reads "ROWSxDIM"; quick picks the test size.
func parseBenchSize(s string, quick bool) (bench.Size, error) {
	if quick {
		return bench.Quick, nil
	}
	n, d, ok := bench.ParseSize(s)
	if !ok {
		return bench.Size{}, fmt.Errorf("--size %q: want ROWSxDIM with positive numbers, e.g. 100000x128", s)
	}
	return bench.Size{Name: fmt.Sprintf("%dx%d", n, d), N: n, Dim: d}, nil
}

// printReport prints a benchmark's report as indented JSON (its untagged
// fields in snake_case) or as its Markdown tables.
func printReport(cmd *cobra.Command, asJSON bool, rep interface{ Markdown() string }) error {
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), snakeKeys(rep))
	}
	_, err := fmt.Fprint(cmd.OutOrStdout(), rep.Markdown())
	return err
}
