package parquet

import "runtime"

// A record read checks every column chunk of a row group before parquet-go
// reads it (pages.CheckChunk: each page's decompression bounded before it is
// inflated, its level runs within its values), so a chunk's bytes are gone
// through twice, and the check of each row group used to stand between the
// last row of one group and the first of the next. The reader now checks the
// next row group's chunks on another goroutine while it reads the current
// one, so that on two cores the check can overlap the read.
// Nothing reaches parquet-go unchecked: a group is started only once its
// own check has returned, and a check's error is reported when its group
// would start, after every row before it, as before.

// checkAhead is the chunk check of one row group running on its own
// goroutine.
type checkAhead struct {
	idx  int // the row group, by index in the footer
	done chan struct{}
	err  error
}

// checkAheadOn turns checking ahead off (tests compare the two).
var checkAheadOn = true

// checkedChunks is checkChunks for row group idx, taken from the check
// started ahead for it when there is one. A successful check starts the
// one of the group read after idx.
func (r *recordReader) checkedChunks(idx int) error {
	var err error
	if a := r.ahead; a != nil && a.idx == idx {
		<-a.done
		err, r.ahead = a.err, nil
	} else {
		r.waitAhead()
		err = r.checkChunks(&r.file.meta.RowGroups[idx], idx)
	}
	if err == nil {
		r.startAhead()
	}
	return err
}

// startAhead starts checking the chunks of the row group after the current
// one. Only reads without a page filter check ahead: a filtered read
// decides which pages of a group it reads when the group starts.
func (r *recordReader) startAhead() {
	next := r.group + 1
	if !checkAheadOn || r.ahead != nil || next >= len(r.groups) || runtime.GOMAXPROCS(0) < 2 ||
		r.filter != nil && len(r.filter.touched) > 0 {
		return
	}
	idx := r.groups[next]
	a := &checkAhead{idx: idx, done: make(chan struct{})}
	r.ahead = a
	go func() {
		defer close(a.done)
		// A panic on this goroutine would end the program: it becomes
		// the group's error, as the reader's guard makes one of a panic
		// on the reading goroutine.
		a.err = guard(r.location, "read", func() error { return r.checkChunks(&r.file.meta.RowGroups[idx], idx) })
	}()
}

// waitAhead waits for a check started ahead, if any, and drops it: Close
// must not close the file under it.
func (r *recordReader) waitAhead() {
	if a := r.ahead; a != nil {
		<-a.done
		r.ahead = nil
	}
}
