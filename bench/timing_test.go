package bench

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestBestOfEach: the functions run in turn, each runs times, and each
// gets its own fastest run; an error stops the runs and is returned.
func TestBestOfEach(t *testing.T) {
	var order []int
	sleeps := [][]time.Duration{{30 * time.Millisecond, 1 * time.Millisecond}, {2 * time.Millisecond, 40 * time.Millisecond}}
	calls := make([]int, 2)
	fn := func(k int) func() error {
		return func() error {
			order = append(order, k)
			time.Sleep(sleeps[k][calls[k]])
			calls[k]++
			return nil
		}
	}
	best, err := BestOfEach(2, fn(0), fn(1))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{0, 1, 0, 1}) {
		t.Errorf("ran in the order %v, want interleaved 0 1 0 1", order)
	}
	// Each fastest run is its shorter sleep (1 ms and 2 ms), not its
	// longer one (30 and 40 ms), whatever the machine's load adds.
	if best[0] < 0.001 || best[0] >= 0.03 || best[1] < 0.002 || best[1] >= 0.04 {
		t.Errorf("best %v s, want the runs of 1 and 2 ms", best)
	}
	boom := errors.New("boom")
	runs := 0
	if _, err := BestOfEach(3, func() error { runs++; return nil }, func() error { return boom }); !errors.Is(err, boom) || runs != 1 {
		t.Errorf("error %v after %d runs of the first, want boom after 1", err, runs)
	}
}
