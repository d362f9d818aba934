package parquet

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	pq "github.com/parquet-go/parquet-go"
)

// prefetchPages reads a column chunk's pages one ahead of the cursor on a
// goroutine of its own, so that reading, decompressing and decoding the
// next page runs on another core while the reader assembles rows from the
// current one. A shredded variant reads some thirty columns at once; on
// two cores this took their zstd and page decoding off the row assembly.
//
// parquet-go's AsyncPages does the same, but a panic in its goroutine
// (parquet-go panics on some malformed pages) would end the process, where
// the reader must return an error: here the goroutine recovers it, as
// guard does on the reader's own goroutine. Memory stays bounded: the
// goroutine holds at most the one page it has read and the cursor has not
// taken, besides the cursor's own, and at most prefetchMax goroutines run
// in the process (a file of thousands of columns reads the rest inline).
//
// The cursor calls ReadPage and Close from one goroutine; it never seeks
// (page-pruned chunks are read through rangePages, which does), so
// SeekToRow is refused.
type prefetchPages struct {
	inner pq.Pages
	pages <-chan pageOrError
	halt  *halt
	done  <-chan struct{}
	err   error // the error ReadPage returned, returned again
}

type pageOrError struct {
	page pq.Page
	err  error
}

// halt stops a prefetching goroutine once, from Close or, for a reader
// nobody closed, from the cleanup that runs when its prefetchPages is
// unreachable (the goroutine holds only channels, not the prefetchPages).
type halt struct {
	once sync.Once
	ch   chan struct{}
}

func (h *halt) stop() { h.once.Do(func() { close(h.ch) }) }

// prefetchMinProcs is the GOMAXPROCS below which the cursor reads its pages
// itself: with one core a goroutine only adds handoffs.
const prefetchMinProcs = 2

// readPagesInline turns prefetching off (tests compare the two).
var readPagesInline = false

// prefetchMax bounds the prefetching goroutines of the process; a chunk
// opened when all are taken is read inline, never waits for one.
const prefetchMax = 256

var prefetchSlots = make(chan struct{}, prefetchMax)

// readPagesAhead returns inner read ahead on a goroutine, or inner itself
// where that cannot help.
func readPagesAhead(inner pq.Pages) pq.Pages {
	if readPagesInline || runtime.GOMAXPROCS(0) < prefetchMinProcs {
		return inner
	}
	select {
	case prefetchSlots <- struct{}{}:
	default:
		return inner
	}
	// Unbuffered: the goroutine reads one page ahead and waits with it.
	pages := make(chan pageOrError)
	done := make(chan struct{})
	h := &halt{ch: make(chan struct{})}
	go prefetch(inner, pages, h.ch, done)
	p := &prefetchPages{inner: inner, pages: pages, halt: h, done: done}
	runtime.AddCleanup(p, func(h *halt) { h.stop() }, h)
	return p
}

// prefetch reads inner's pages into out until an error (io.EOF at the end)
// or stop.
func prefetch(inner pq.Pages, out chan<- pageOrError, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer func() { <-prefetchSlots }() // before done: Close returns with the slot free
	for {
		r := readPageRecovered(inner)
		select {
		case out <- r:
		case <-stop:
			if r.page != nil {
				pq.Release(r.page)
			}
			return
		}
		if r.err != nil {
			return
		}
	}
}

func readPageRecovered(inner pq.Pages) (r pageOrError) {
	defer func() {
		if v := recover(); v != nil {
			r = pageOrError{err: fmt.Errorf("parquet: %v", v)}
		}
	}()
	page, err := inner.ReadPage()
	return pageOrError{page: page, err: err}
}

// ReadPage returns the next page, or the error that ended the chunk (io.EOF
// at its end) on this and every later call.
func (p *prefetchPages) ReadPage() (pq.Page, error) {
	if p.err != nil {
		return nil, p.err
	}
	r := <-p.pages
	if r.err != nil {
		p.err = r.err
	}
	return r.page, r.err
}

func (p *prefetchPages) SeekToRow(int64) error {
	return errors.New("parquet: a prefetching page reader does not seek")
}

// Close stops the goroutine, releases a page it read that nobody took, and
// closes the chunk's pages.
func (p *prefetchPages) Close() error {
	if p.inner == nil {
		return nil
	}
	p.halt.stop()
	<-p.done
	select {
	case r := <-p.pages:
		if r.page != nil {
			pq.Release(r.page)
		}
	default:
	}
	if p.err == nil {
		p.err = io.ErrClosedPipe
	}
	inner := p.inner
	p.inner = nil
	return inner.Close()
}
