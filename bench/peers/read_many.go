package peers

import (
	"context"
	"fmt"
)

// FileRead is one file's entry in ReadMany's answer: its result, or the
// error the peer's reader threw (Error, its first line; Stack, the rest),
// or NotRun when the peer stopped before it (after a library panic, whose
// state it does not trust).
type FileRead struct {
	File   string      `json:"file"`
	Result *ReadResult `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
	Stack  string      `json:"stack,omitempty"`
	NotRun bool        `json:"not_run,omitempty"`
}

type readManyRequest struct {
	Op            string   `json:"op"`
	Files         []string `json:"files"`
	Limit         *int     `json:"limit,omitempty"`
	BinaryAsBytes bool     `json:"binary_as_bytes,omitempty"`
}

// ReadMany reads many files in one run of a reader peer (the scripts' op
// read_many, common.mjs readMany), which saves a process start per file.
// The returned entries match files one to one. An error is the run's own
// failure (*Error: missing, crash, hang, garbage), not a file's.
func ReadMany(ctx context.Context, p Peer, files []string, opts ReadOptions) ([]FileRead, error) {
	req := readManyRequest{Op: "read_many", Files: files, BinaryAsBytes: opts.BinaryAsBytes}
	if opts.Limit >= 0 {
		req.Limit = &opts.Limit
	}
	var res struct {
		Results []FileRead `json:"results"`
	}
	if err := Run(ctx, p, req, &res); err != nil {
		return nil, err
	}
	if len(res.Results) != len(files) {
		return nil, &Error{Peer: p.Name, Kind: ErrGarbage, Detail: fmt.Sprintf("read_many answered %d of %d files", len(res.Results), len(files))}
	}
	for i, r := range res.Results {
		if r.File != files[i] {
			return nil, &Error{Peer: p.Name, Kind: ErrGarbage, Detail: fmt.Sprintf("read_many entry %d is for %s, want %s", i, r.File, files[i])}
		}
		if r.Result == nil && r.Error == "" && !r.NotRun {
			return nil, &Error{Peer: p.Name, Kind: ErrGarbage, Detail: fmt.Sprintf("read_many entry %d (%s) has neither a result nor an error", i, r.File)}
		}
	}
	return res.Results, nil
}
