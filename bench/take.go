package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/coltype-lab/lab/types/vector"
)

// TakeRun is one engine reading the same random rows with their vectors.
type TakeRun struct {
	Engine string
	// OpenMS opens the file or table once; TakeMS is the best of the runs'
	// takes on it, FirstTakeMS the first; OpenTakeMS (the lab only) is the
	// best of the runs of one call that opens the file each time.
	OpenMS, TakeMS, FirstTakeMS, OpenTakeMS float64
	LabRatio                                float64 // TakeMS / the first taker's (the lab's) TakeMS
	ProcessMS                               float64 `json:",omitempty"`
}

// runTakes has every taker read rows runs times, checks that each returns
// exactly the rows asked with the dataset's vectors bit for bit, and keeps
// the best and the first time. The first taker is the ratios' baseline.
func runTakes(ctx context.Context, takers []Taker, data vector.Matrix, rows []int64, runs int) ([]TakeRun, error) {
	var out []TakeRun
	for _, t := range takers {
		name := t.Info().Engine
		ans, err := t.Take(ctx, rows, runs)
		if err != nil {
			return nil, err
		}
		if len(ans.TakeMS) == 0 {
			return nil, fmt.Errorf("bench: %s take reported no timings", name)
		}
		if err := checkTaken(name, ans, data, rows); err != nil {
			return nil, err
		}
		run := TakeRun{Engine: name, OpenMS: ans.OpenMS, TakeMS: slices.Min(ans.TakeMS), FirstTakeMS: ans.TakeMS[0], ProcessMS: ans.ProcessMS}
		if len(ans.OpenTakeMS) > 0 {
			run.OpenTakeMS = slices.Min(ans.OpenTakeMS)
		}
		out = append(out, run)
	}
	for i := range out {
		out[i].LabRatio = out[i].TakeMS / out[0].TakeMS
	}
	return out, nil
}

// checkTaken accepts the rows in any order (LanceDB sorts its offsets) but
// each asked row exactly once, with its vector bit for bit: a take that
// returned wrong values fast must not count as fast.
func checkTaken(engine string, ans *TakeAnswer, data vector.Matrix, rows []int64) error {
	if len(ans.IDs) != len(rows) || len(ans.Vectors) != len(rows) {
		return fmt.Errorf("bench: %s take of %d rows returned %d ids and %d vectors", engine, len(rows), len(ans.IDs), len(ans.Vectors))
	}
	asked := make(map[int64]bool, len(rows))
	for _, id := range rows {
		asked[id] = true
	}
	for i, id := range ans.IDs {
		if !asked[id] {
			return fmt.Errorf("bench: %s take returned row %d, which was not asked for or came twice", engine, id)
		}
		delete(asked, id)
		got, want := ans.Vectors[i], data.Row(int(id)) // id is one of rows, rows of data
		if len(got) != len(want) {
			return fmt.Errorf("bench: %s take: row %d has %d values, want %d", engine, id, len(got), len(want))
		}
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				return fmt.Errorf("bench: %s take: row %d element %d is %v, the dataset has %v", engine, id, j, got[j], want[j])
			}
		}
	}
	return nil
}

// DistinctRows draws count distinct rows of n from the vector benchmark's
// take stream (its seed, stream 9), skipping repeats, so every engine takes
// the same rows.
func DistinctRows(count, n int, seed uint64) []int64 {
	count = min(count, n)
	r := rand.New(rand.NewPCG(seed, 9))
	seen := make(map[int64]bool, count)
	rows := make([]int64, 0, count)
	for len(rows) < count {
		id := r.Int64N(int64(n))
		if !seen[id] {
			seen[id] = true
			rows = append(rows, id)
		}
	}
	return rows
}
