package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/bench"
	"github.com/coltype-lab/lab/types/vector"
)

func init() {
	benchCommands = append(benchCommands, newBenchPeersCommand)
}

func newBenchPeersCommand(v *viper.Viper) *cobra.Command {
	const key = "bench.peers."
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "Search and take the vector dataset with the lab, DuckDB, LanceDB and FAISS side by side, against the memory-bandwidth floor",
		Long: `Generates the vector benchmark's dataset and queries, writes the lab's flba Parquet file
(and what the peers need), and times in one run: the lab's exact top-k search from the
file (single queries and a batch), DuckDB's array_cosine_similarity from the Parquet file
and from an in-memory FLOAT[N] table, LanceDB's flat search, FAISS IndexFlatIP single
queries and a batch, and taking random rows with the lab and with LanceDB's takeOffsets.
Every engine must return the lab's top-k (ids identical, or scores equal within 1e-4
where ids differ among ties). The peers run as processes with a time limit each
(--peer-timeout); a missing, crashing, hanging or garbled peer is an error naming it.
Progress goes to stderr, the report (Markdown, or JSON with --json) to stdout.`,
		Example: `  lab bench peers --quick
  lab bench peers --size reference768 --json > peers.json
  lab bench peers --size 100000x128 --queries 16 --k 100`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			size, err := parsePeerBenchSize(v.GetString(key+"size"), v.GetBool(key+"quick"))
			if err != nil {
				return usageError{err}
			}
			metric, err := vector.ParseMetric(v.GetString(key + "metric"))
			if err != nil {
				return usageError{fmt.Errorf("--metric: %w", err)}
			}
			dataset := v.GetString(key + "dataset")
			if dataset != "clustered" && dataset != "uniform" {
				return usageError{fmt.Errorf("--dataset %q: want clustered or uniform", dataset)}
			}
			queries, k, takeRows := v.GetInt(key+"queries"), v.GetInt(key+"k"), v.GetInt(key+"take")
			for _, f := range []struct {
				name  string
				value int
			}{{"queries", queries}, {"k", k}, {"take", takeRows}} {
				if f.value <= 0 {
					return usageError{fmt.Errorf("--%s %d: want a positive number", f.name, f.value)}
				}
			}
			if k > size.N {
				return usageError{fmt.Errorf("--k %d: the dataset has only %d rows", k, size.N)}
			}
			timeout := v.GetDuration(key + "peer-timeout")
			if timeout <= 0 {
				return usageError{fmt.Errorf("--peer-timeout %v: want a positive duration", timeout)}
			}
			// The peers run in their own process groups, out of reach of a
			// terminal's Ctrl-C: stopping on a signal is what ends them.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			p := newProgress(cmd, -1, "steps")
			rep, err := bench.RunPeerBench(ctx, bench.PeerBenchConfig{
				Size:        size,
				Dataset:     dataset,
				Seed:        uint64(v.GetInt64(key + "seed")),
				Queries:     queries,
				K:           k,
				TakeRows:    takeRows,
				Metric:      metric,
				Dir:         v.GetString(key + "dir"),
				PeerTimeout: timeout,
				Progress:    stepWriter{p},
			})
			if err != nil {
				p.Abort()
				return err
			}
			p.Finish()
			return printReport(cmd, v.GetBool(key+"json"), rep)
		},
	}
	addQuietFlag(cmd)
	f := cmd.Flags()
	f.Bool("quick", false, "the small test size ("+bench.Quick.Name+")")
	f.String("size", "100000x128", "rows x dimensions (e.g. 100000x768), or reference768 ("+bench.Reference768.Name+
		"), reference128 ("+bench.Reference128.Name+"), quick")
	f.String("dataset", "clustered", "clustered (anisotropic Gaussian clusters) or uniform")
	f.Int64("seed", 1, "dataset seed")
	f.Int("queries", 64, "held-out queries, each answered by every engine")
	f.Int("k", 10, "neighbours per query")
	f.Int("take", 100, "distinct random rows taken by the lab and by LanceDB")
	f.String("metric", "cosine", "cosine, dot or l2")
	f.Duration("peer-timeout", 10*time.Minute, "time limit of each peer process")
	f.String("dir", "", "directory for the files (default: a temporary directory, removed afterwards)")
	f.Bool("json", false, "print the report as JSON")
	for _, name := range []string{"quick", "size", "dataset", "seed", "queries", "k", "take", "metric", "peer-timeout", "dir", "json"} {
		_ = v.BindPFlag(key+name, f.Lookup(name))
	}
	return cmd
}

// parsePeerBenchSize reads the named sizes (reference768, reference128,
// quick) or ROWSxDIM.
func parsePeerBenchSize(s string, quick bool) (bench.Size, error) {
	if quick {
		return bench.Quick, nil
	}
	switch strings.ToLower(s) {
	case "reference768":
		return bench.Reference768, nil
	case "reference128":
		return bench.Reference128, nil
	case "quick":
		return bench.Quick, nil
	}
	return parseBenchSize(s, quick)
}
