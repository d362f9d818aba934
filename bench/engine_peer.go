package bench

import (
	"fmt"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
)

// peerAnswer runs one peer search process and turns the run of the given
// mode into an Answer, with the process's wall time beside the peer's own
// timings: the difference is start-up, imports and JSON, which the report
// shows apart so that the peers are not charged for them.
func peerAnswer(engine, mode string, search func() (*peers.SearchResult, error)) (*Answer, error) {
	start := time.Now()
	res, err := search()
	wall := msSince(start)
	if err != nil {
		return nil, err
	}
	r := res.Run(mode)
	if r == nil {
		return nil, &peers.Error{Peer: engine, Kind: peers.ErrGarbage, Detail: fmt.Sprintf("no run of mode %q in the result", mode)}
	}
	return &Answer{Hits: r.Results, LoadMS: r.LoadMS, TotalMS: r.TotalMS, ProcessMS: wall, Version: res.Version}, nil
}
