package bench

import (
	"os"
	"slices"
	"strings"
	"time"
)

// BestOf runs fn runs times and returns the fastest run in seconds (at
// least 1e-9, so that it can divide). The fastest, not the mean: on a
// shared machine every slower run is the same work plus someone else's.
func BestOf(runs int, fn func() error) (float64, error) {
	best, err := BestOfEach(runs, fn)
	if err != nil {
		return 0, err
	}
	return best[0], nil
}

// BestOfEach is BestOf of each of fns, run in turn runs times (fns[0],
// fns[1], ..., fns[0], ...): figures whose ratio is reported are measured
// interleaved, so that a shared machine's drift over a run does not fall
// on one of them.
func BestOfEach(runs int, fns ...func() error) ([]float64, error) {
	best := make([]float64, len(fns))
	for i := range runs {
		for k, fn := range fns {
			start := time.Now()
			if err := fn(); err != nil {
				return nil, err
			}
			if s := time.Since(start).Seconds(); i == 0 || s < best[k] {
				best[k] = s
			}
		}
	}
	for k := range best {
		best[k] = max(best[k], 1e-9)
	}
	return best, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// loadAverage returns the 1, 5 and 15 minute load averages from
// /proc/loadavg, or says why it cannot: the reports print it at start and
// end, so a reader can tell a quiet machine's figures from a busy one's.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unavailable (" + err.Error() + ")"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unavailable (/proc/loadavg: " + strings.TrimSpace(string(b)) + ")"
	}
	return strings.Join(f[:3], " ")
}
