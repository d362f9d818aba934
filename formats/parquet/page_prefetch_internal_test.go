package parquet

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// fakePages hands out n pages of one int64 each, then io.EOF; with
// panicAt >= 0 it panics on that call instead.
type fakePages struct {
	n, panicAt int
	calls      atomic.Int32
	closed     atomic.Bool
}

func (f *fakePages) ReadPage() (pq.Page, error) {
	i := int(f.calls.Add(1)) - 1
	if i == f.panicAt {
		panic("malformed page")
	}
	if i >= f.n {
		return nil, io.EOF
	}
	return pq.Int64Type.NewPage(0, 1, encoding.Int64Values([]int64{int64(i)})), nil
}

func (f *fakePages) SeekToRow(int64) error { return nil }
func (f *fakePages) Close() error          { f.closed.Store(true); return nil }

func newFakePages(n, panicAt int) *fakePages {
	return &fakePages{n: n, panicAt: panicAt}
}

func prefetching(t *testing.T, inner pq.Pages) *prefetchPages {
	t.Helper()
	if runtime.GOMAXPROCS(0) < prefetchMinProcs {
		t.Skipf("GOMAXPROCS %d: pages are read inline", runtime.GOMAXPROCS(0))
	}
	p, ok := readPagesAhead(inner).(*prefetchPages)
	if !ok {
		t.Fatal("readPagesAhead did not prefetch")
	}
	return p
}

// TestPrefetchPagesInOrder: every page, in order, then io.EOF on every
// later call; Close closes the chunk's pages.
func TestPrefetchPagesInOrder(t *testing.T) {
	inner := newFakePages(5, -1)
	p := prefetching(t, inner)
	for i := range 5 {
		page, err := p.ReadPage()
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		var v [1]pq.Value
		if n, _ := page.Values().ReadValues(v[:]); n != 1 || v[0].Int64() != int64(i) {
			t.Fatalf("page %d holds %v", i, v[0])
		}
	}
	for range 2 {
		if _, err := p.ReadPage(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last page: %v, want io.EOF", err)
		}
	}
	if err := p.Close(); err != nil || !inner.closed.Load() {
		t.Fatalf("Close: %v, inner closed %v", err, inner.closed.Load())
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestPrefetchPagesPanicIsAnError: a panic while reading a page on the
// prefetching goroutine comes back as an error, and the process lives.
func TestPrefetchPagesPanicIsAnError(t *testing.T) {
	p := prefetching(t, newFakePages(5, 2))
	defer p.Close()
	for i := range 2 {
		if _, err := p.ReadPage(); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	_, err := p.ReadPage()
	if err == nil || !strings.Contains(err.Error(), "malformed page") {
		t.Fatalf("page 2: %v, want the panic as an error", err)
	}
	if _, again := p.ReadPage(); again != err {
		t.Fatalf("after the error: %v, want it again", again)
	}
}

// TestPrefetchPagesCloseEarly: closing before the chunk is read stops the
// goroutine (it no longer reads pages) and closes the chunk's pages.
func TestPrefetchPagesCloseEarly(t *testing.T) {
	inner := newFakePages(1000, -1)
	p := prefetching(t, inner)
	if _, err := p.ReadPage(); err != nil {
		t.Fatal(err)
	}
	done := p.done
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the prefetching goroutine still runs after Close")
	}
	calls := inner.calls.Load()
	time.Sleep(20 * time.Millisecond)
	if inner.calls.Load() != calls || calls > 3 {
		t.Fatalf("%d pages read for one taken: the goroutine reads more than one ahead or after Close", inner.calls.Load())
	}
	if !inner.closed.Load() {
		t.Fatal("Close left the chunk's pages open")
	}
	if _, err := p.ReadPage(); err == nil {
		t.Fatal("ReadPage after Close returned a page")
	}
}

// TestPrefetchPagesUnclosedStops: a reader dropped without Close does not
// leave its goroutine blocked for ever.
func TestPrefetchPagesUnclosedStops(t *testing.T) {
	inner := newFakePages(1000, -1)
	p := prefetching(t, inner)
	done := p.done
	p = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-done:
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the goroutine of an unreachable prefetching reader still runs")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPrefetchPagesBounded: past prefetchMax running goroutines a chunk is
// read inline, and a closed reader gives its slot back.
func TestPrefetchPagesBounded(t *testing.T) {
	if runtime.GOMAXPROCS(0) < prefetchMinProcs {
		t.Skipf("GOMAXPROCS %d: pages are read inline", runtime.GOMAXPROCS(0))
	}
	var open []pq.Pages
	defer func() {
		for _, p := range open {
			p.Close()
		}
	}()
	ahead := 0
	for range prefetchMax + 10 {
		p := readPagesAhead(newFakePages(3, -1))
		if _, ok := p.(*prefetchPages); ok {
			ahead++
		}
		open = append(open, p)
	}
	if ahead > prefetchMax {
		t.Fatalf("%d chunks prefetch at once, more than %d", ahead, prefetchMax)
	}
	if ahead < prefetchMax-8 { // other tests of the package may hold a few
		t.Fatalf("only %d chunks prefetch", ahead)
	}
	for _, p := range open {
		p.Close()
	}
	open = nil
	p := readPagesAhead(newFakePages(3, -1))
	open = append(open, p)
	if _, ok := p.(*prefetchPages); !ok {
		t.Fatal("closed readers did not give their slots back")
	}
}
