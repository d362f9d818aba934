package vector

import (
	"errors"
	"io"

	"github.com/coltype-lab/lab/registry"
)

// SearchFile finds, for each query, the k best rows of the VECTOR column of
// the Parquet file in, under metric: one registry read of (PARQUET, Block),
// like every other read, scored as SearchStream scores any blocks. Ids are
// the file's row positions. configure, when not nil, sets up the read before
// it is built: Project the column (a schema of one VECTOR field), Split,
// Filter on other columns, read.vector.* properties. A query dimension other
// than the column's is an error naming both; a file or selection of no rows
// gives empty results.
//
// The model is registered by VECTOR's Parquet binding
// (formats/parquet/vectorcol): a program searching files imports it, as one
// decoding PNGs imports image/png.
func SearchFile(in registry.InputFile, metric Metric, queries Matrix, k int, configure func(*registry.ReadBuilder[Block])) ([][]Result, error) {
	b, err := registry.NewReadBuilder[Block](registry.PARQUET, in)
	if err != nil {
		return nil, err
	}
	if configure != nil {
		configure(b)
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if s, ok := r.(Searcher); ok {
		return s.Search(metric, queries, k)
	}
	first, err := r.Next()
	if errors.Is(err, io.EOF) {
		if err := queries.check("queries"); err != nil {
			return nil, err
		}
		out := make([][]Result, queries.Rows())
		for i := range out {
			out[i] = []Result{}
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	dim := first.Dim
	if dim == 0 {
		dim = queries.Dim // the reader left it to the search
	}
	return SearchStream(metric, dim, &peekedBlocks{first: &first, r: r}, queries, k, 0)
}

// A Searcher is a reader of Blocks that searches its rows itself, as
// SearchStream over its blocks would, and faster: the Parquet model's
// scores every page on the goroutine that decodes it. SearchFile uses it
// when the registry's reader has it.
type Searcher interface {
	Search(metric Metric, queries Matrix, k int) ([][]Result, error)
}

// peekedBlocks hands out a block already read, then the reader's.
type peekedBlocks struct {
	first *Block
	r     registry.Reader[Block]
}

func (p *peekedBlocks) Next() (Block, error) {
	if b := p.first; b != nil {
		p.first = nil
		return *b, nil
	}
	return p.r.Next()
}
