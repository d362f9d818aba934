package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/coltype-lab/lab/bench/peers"
	_ "github.com/coltype-lab/lab/formats/parquet/arrow" // registers the guarded arrow-go model
	"github.com/coltype-lab/lab/registry"
)

// Reader is one column of the matrix.
type Reader struct {
	Name string
	// Available reports why the reader cannot run here (a missing peer),
	// or nil.
	Available func() error
	// Read returns the file's rows, an error, or a *CrashError.
	Read func(ctx context.Context, path string) (*Output, error)
	// ReadBatch, when set, reads many files at once, with the outcomes
	// Read would give.
	ReadBatch func(ctx context.Context, paths []string) ([]*Output, []error)
}

// Reader names, in the matrix's column order.
const (
	ReaderParquetGo      = "parquet-go"
	ReaderArrowGo        = "arrow-go"
	ReaderArrowGoGuarded = "arrow-go (guarded)"
)

// PeerTimeout bounds one peer process; InProcessTimeout one in-process
// read, after which it counts as a hang (the goroutine is abandoned: Go
// cannot stop it, but the golden files are tiny).
var (
	PeerTimeout      = 60 * time.Second
	InProcessTimeout = 30 * time.Second
)

// Readers lists every reader: the in-process ones, then the peers.
func Readers() []Reader {
	rs := []Reader{
		inProcess(ReaderParquetGo, func(_ context.Context, path string) (*Output, error) { return readParquetGo(path) }),
		inProcess(ReaderArrowGo, readArrowUnguarded),
		inProcess(ReaderArrowGoGuarded, readArrowGuarded),
	}
	for _, p := range peers.Readers() {
		rs = append(rs, peerReader(p))
	}
	return rs
}

// inProcess wraps a Go read: a panic becomes a *CrashError, and so does a
// read that outlives InProcessTimeout.
func inProcess(name string, read func(context.Context, string) (*Output, error)) Reader {
	return Reader{
		Name:      name,
		Available: func() error { return nil },
		Read: func(ctx context.Context, path string) (*Output, error) {
			type result struct {
				out *Output
				err error
			}
			done := make(chan result, 1)
			go func() {
				var r result
				defer func() {
					if p := recover(); p != nil {
						r = result{err: &CrashError{Reader: name, Detail: fmt.Sprintf("panic: %v", p)}}
					}
					done <- r
				}()
				r.out, r.err = read(ctx, path)
			}()
			timer := time.NewTimer(InProcessTimeout)
			defer timer.Stop()
			select {
			case r := <-done:
				return r.out, r.err
			case <-timer.C:
				return nil, &CrashError{Reader: name, Detail: fmt.Sprintf("no result within %v", InProcessTimeout)}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// readArrowUnguarded is arrow-go as a user would call it: it parses the
// footer itself.
func readArrowUnguarded(ctx context.Context, path string) (*Output, error) {
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1024)
	defer tr.Release()
	var batches []arrow.RecordBatch
	for tr.Next() {
		b := tr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	defer release(batches)
	if err := tr.Err(); err != nil {
		return nil, err
	}
	return arrowRows(tbl.Schema(), batches)
}

// readArrowGuarded reads through the lab's arrow-go model (PARQUET,
// arrow.RecordBatch), which hands arrow-go a sanitized footer.
func readArrowGuarded(_ context.Context, path string) (*Output, error) {
	b, err := registry.NewReadBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, err
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var batches []arrow.RecordBatch
	defer func() { release(batches) }()
	var schema *arrow.Schema
	for {
		batch, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		batches = append(batches, batch)
		schema = batch.Schema()
	}
	if s, ok := r.(interface{ Schema() *arrow.Schema }); ok {
		schema = s.Schema()
	}
	if schema == nil {
		return &Output{}, nil
	}
	return arrowRows(schema, batches)
}

func release(batches []arrow.RecordBatch) {
	for _, b := range batches {
		b.Release()
	}
}

// peerReader reads through a peer's read op, binary as bytes (hyparquet's
// utf8 off), each process under PeerTimeout. Batches go through
// read_many; when a batch process itself fails (a crash or hang takes the
// batch down), the files it did not answer are read one process each, so
// that the failure lands on the file that caused it.
func peerReader(p peers.Peer) Reader {
	p.Timeout = PeerTimeout
	opts := peers.ReadOptions{Limit: maxRows + 1, BinaryAsBytes: true}
	single := func(ctx context.Context, path string) (*Output, error) {
		res, err := peers.ReadWith(ctx, p, path, opts)
		if err != nil {
			return nil, peerFailure(p.Name, err)
		}
		return peerOutput(res), nil
	}
	batch := func(ctx context.Context, paths []string) ([]*Output, []error) {
		outs, errs := make([]*Output, len(paths)), make([]error, len(paths))
		pending := make([]int, len(paths))
		for i := range pending {
			pending[i] = i
		}
		for len(pending) > 0 {
			files := make([]string, len(pending))
			for j, i := range pending {
				files[j] = paths[i]
			}
			reads, err := peers.ReadMany(ctx, p, files, opts)
			if err != nil {
				if ctx.Err() != nil {
					for _, i := range pending {
						errs[i] = err
					}
					return outs, errs
				}
				for _, i := range pending {
					outs[i], errs[i] = single(ctx, paths[i])
				}
				return outs, errs
			}
			var next []int
			for j, r := range reads {
				i := pending[j]
				switch {
				case r.NotRun:
					next = append(next, i)
				case r.Result != nil:
					outs[i] = peerOutput(r.Result)
				case libraryPanic.MatchString(r.Stack):
					errs[i] = &CrashError{Reader: p.Name, Detail: r.Error}
				default:
					errs[i] = errors.New(r.Error)
				}
			}
			if len(next) == len(pending) { // no progress: should not happen, but never loop
				for _, i := range next {
					outs[i], errs[i] = single(ctx, paths[i])
				}
				return outs, errs
			}
			pending = next
		}
		return outs, errs
	}
	return Reader{Name: p.Name, Available: p.Available, Read: single, ReadBatch: batch}
}

func peerOutput(res *peers.ReadResult) *Output {
	out := &Output{Columns: res.Columns, Rows: res.Rows}
	if out.Rows == nil {
		out.Rows = []map[string]any{}
	}
	return out
}

// libraryPanic matches what a Rust panic inside parquet-wasm looks like
// once the JavaScript host has caught it, and a panic in a native add-on.
var libraryPanic = regexp.MustCompile(`RuntimeError: unreachable|panicked at|Segmentation fault|Aborted`)

// peerFailure splits a peer's failure into a clean error (the script's
// handler threw: exit status 1 with "error:" on stderr) and a crash (a
// signal, another exit status, a hang, garbage on stdout, or a library
// panic the host caught).
func peerFailure(name string, err error) error {
	var pe *peers.Error
	if !errors.As(err, &pe) {
		return err // the context ended: not the reader's doing
	}
	msg := strings.TrimPrefix(strings.TrimSpace(pe.Stderr), "error: ")
	switch {
	case errors.Is(pe.Kind, peers.ErrMissing):
		return err
	case errors.Is(pe.Kind, peers.ErrHang), errors.Is(pe.Kind, peers.ErrGarbage):
		return &CrashError{Reader: name, Detail: pe.Error()}
	case libraryPanic.MatchString(pe.Stderr):
		return &CrashError{Reader: name, Detail: msg}
	}
	var exit *exec.ExitError
	if errors.As(pe.Err, &exit) && exit.ExitCode() == 1 && strings.HasPrefix(strings.TrimSpace(pe.Stderr), "error:") {
		return errors.New(msg)
	}
	return &CrashError{Reader: name, Detail: pe.Error()}
}
