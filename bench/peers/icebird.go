package peers

import "context"

// Icebird is icebird, a JavaScript Iceberg reader (hyparquet underneath, its
// own pinned copy): it reads a whole table from its metadata.json. The
// compatibility matrix's table section reads the lab's tables with it.
// It is not among All or Readers, which read Parquet files.
var Icebird = nodePeer("icebird", "icebird.mjs", "icebird")

// IcebirdRead asks p (Icebird, perhaps with another Timeout) for every row
// of the table whose metadata.json is at metadata, a local path or file://
// URI. Columns are the current schema's top-level fields with their Iceberg
// types; rows are in icebird's order, in the common JSON form. ReadMany
// with Icebird reads many tables in one process, a metadata.json per file.
func IcebirdRead(ctx context.Context, p Peer, metadata string) (*ReadResult, error) {
	req := struct {
		Op       string `json:"op"`
		Metadata string `json:"metadata"`
	}{"read", metadata}
	var res ReadResult
	if err := Run(ctx, p, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
