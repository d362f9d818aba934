package peers

import "context"

// ReadOptions tune a reader peer's read op beyond Read's row limit.
type ReadOptions struct {
	// Limit is the number of rows to read; negative reads them all.
	Limit int
	// BinaryAsBytes asks for BYTE_ARRAY columns without a STRING annotation
	// as bytes (lowercase hex in the result). DuckDB and parquet-wasm always
	// do; hyparquet decodes them as UTF-8 text unless asked.
	BinaryAsBytes bool
}

type readRequest struct {
	Op            string `json:"op"`
	File          string `json:"file"`
	Limit         *int   `json:"limit,omitempty"`
	BinaryAsBytes bool   `json:"binary_as_bytes,omitempty"`
}

// ReadWith is Read with options.
func ReadWith(ctx context.Context, p Peer, file string, opts ReadOptions) (*ReadResult, error) {
	req := readRequest{Op: "read", File: file, BinaryAsBytes: opts.BinaryAsBytes}
	if opts.Limit >= 0 {
		req.Limit = &opts.Limit
	}
	var res ReadResult
	if err := Run(ctx, p, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
