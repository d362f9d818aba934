package httpio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// limits are the time rules of one File's requests.
type limits struct {
	header, request, window time.Duration
	minRate                 int64 // bytes per second
}

// timeoutError is the cause a request is cancelled with when a time rule
// fires, so the error says which rule and how far the request got.
type timeoutError struct {
	rule   string
	limit  time.Duration
	detail string
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s %s (%s): %s", e.rule, ErrTimeout, e.limit, e.detail)
}
func (e *timeoutError) Unwrap() error { return ErrTimeout }

// Timeout marks the error as a timeout, as net.Error does.
func (e *timeoutError) Timeout() bool { return true }

// watch enforces the time rules on one request. Its timers cancel the
// request's context with a timeoutError cause; the body wrapper turns the
// transport's "context canceled" back into that cause.
type watch struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	stopReq  context.CancelFunc
	limits   limits
	header   *time.Timer
	progress *time.Timer
	want     int64 // body bytes the request needs
	read     atomic.Int64
	mark     atomic.Int64 // read at the start of the current window
	stopped  atomic.Bool
}

func newWatch(parent context.Context, l limits, want int64) *watch {
	reqCtx, stopReq := context.WithTimeoutCause(parent, l.request,
		&timeoutError{rule: "request", limit: l.request, detail: "the request did not finish in time"})
	ctx, cancel := context.WithCancelCause(reqCtx)
	w := &watch{ctx: ctx, cancel: cancel, stopReq: stopReq, limits: l, want: want}
	w.header = time.AfterFunc(l.header, func() {
		cancel(&timeoutError{rule: "header", limit: l.header, detail: "no response headers"})
	})
	// Made stopped, armed by gotHeaders: the callback must never see the
	// field unset.
	w.progress = time.AfterFunc(l.window, w.checkProgress)
	w.progress.Stop()
	return w
}

// gotHeaders ends the header rule and starts the progress rule for a body
// of want bytes.
func (w *watch) gotHeaders() {
	w.header.Stop()
	if w.want > 0 {
		w.progress.Reset(w.limits.window)
	}
}

func (w *watch) minPerWindow() int64 {
	m := w.limits.minRate * int64(w.limits.window) / int64(time.Second)
	return max(m, 1)
}

func (w *watch) checkProgress() {
	if w.stopped.Load() {
		return
	}
	got, mark := w.read.Load(), w.mark.Load()
	if got-mark < min(w.minPerWindow(), w.want-mark) {
		w.cancel(&timeoutError{rule: "progress", limit: w.limits.window, detail: fmt.Sprintf(
			"%d bytes in the last %s, under the minimum rate of %d bytes/s; %d of %d bytes read",
			got-mark, w.limits.window, w.limits.minRate, got, w.want)})
		return
	}
	w.mark.Store(got)
	if got < w.want {
		w.progress.Reset(w.limits.window)
	}
}

// cause is the time rule that cancelled the request, or nil.
func (w *watch) cause() error {
	var te *timeoutError
	if errors.As(context.Cause(w.ctx), &te) {
		return te
	}
	return nil
}

// body counts what the body delivers for the progress rule, and reports a
// read cut by a time rule as that rule.
func (w *watch) body(r io.Reader) io.Reader { return &watchedBody{r: r, w: w} }

type watchedBody struct {
	r io.Reader
	w *watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.w.read.Add(int64(n))
	if err != nil && err != io.EOF {
		if te := b.w.cause(); te != nil {
			return n, te
		}
	}
	return n, err
}

func (w *watch) stop() {
	w.stopped.Store(true)
	w.header.Stop()
	w.progress.Stop()
	w.cancel(nil)
	w.stopReq()
}
