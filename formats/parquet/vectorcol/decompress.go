package vectorcol

import "sync"

// pageBuffers recycles the decompression buffers of one scan: a page's
// buffer returns when the search is done with its block, so a scan holds
// as many buffers as it has pages in flight, whatever the file size, and
// allocates no new ones once warm. Buffers that pages are read into
// (File.ReadPages) are kept apart and sized in steps of readGrain, so that
// pages of slightly different sizes share them.
type pageBuffers struct {
	free  chan []byte // 4-byte aligned buffers, length = capacity − 3
	reads chan []byte // 4-byte aligned, capacity a multiple of readGrain
	// deferBSS leaves BYTE_STREAM_SPLIT float32 rows encoded in the
	// decoded page (decodedPage.bss) for the fused scan that owns these
	// buffers to decode in row tiles; no other reader sets it.
	deferBSS bool
}

const readGrain = 64 << 10

// sharedFree and sharedReads hold the buffers of scans that have ended
// (FileBlocks.Close hands them over), so that a search on a file opened for
// that one call takes warm buffers rather than allocating, clearing and
// faulting in a page's worth of fresh memory per buffer. sync.Pool lets the
// garbage collector reclaim them when no scan comes: an idle process keeps
// nothing.
var sharedFree, sharedReads sync.Pool

func fromShared(pool *sync.Pool, size int) []byte {
	if v, ok := pool.Get().(*[]byte); ok && cap(*v) >= size {
		return *v
	}
	return nil
}

func newPageBuffers(n int) *pageBuffers {
	return &pageBuffers{free: make(chan []byte, n), reads: make(chan []byte, n)}
}

// get returns a 4-byte aligned buffer of size bytes; a nil pool allocates.
func (p *pageBuffers) get(size int) []byte {
	if p != nil {
		select {
		case b := <-p.free:
			if cap(b) >= size {
				return b[:size]
			}
		default:
		}
		if b := fromShared(&sharedFree, size); b != nil {
			return b[:size]
		}
	}
	return alignedBody(size, 0)
}

// getRead returns a 4-byte aligned buffer of at least size bytes to read a
// page into, its capacity a multiple of readGrain.
func (p *pageBuffers) getRead(size int) []byte {
	size = (size + readGrain - 1) / readGrain * readGrain
	if p != nil {
		select {
		case b := <-p.reads:
			if cap(b) >= size {
				return b[:cap(b)]
			}
		default:
		}
		if b := fromShared(&sharedReads, size); b != nil {
			return b[:cap(b)]
		}
	}
	return alignedBody(size, 0)
}

// put hands b back for reuse; a full or nil pool drops it.
func (p *pageBuffers) put(b []byte) { p.putTo(b, false) }

// putRead hands back a buffer from getRead.
func (p *pageBuffers) putRead(b []byte) { p.putTo(b, true) }

// release hands back the buffer a decoded page holds, to its pool.
func (p *pageBuffers) release(d *decodedPage) { p.putTo(d.buf, d.bufRead) }

func (p *pageBuffers) putTo(b []byte, read bool) {
	if p == nil || b == nil {
		return
	}
	pool := p.free
	if read {
		pool = p.reads
	}
	select {
	case pool <- b[:cap(b)]:
	default:
	}
}

// handOver moves the scan's free buffers to the shared pools, for the next
// scan of any file. Buffers still held by blocks stay with them.
func (p *pageBuffers) handOver() {
	if p == nil {
		return
	}
	for _, x := range []struct {
		local  chan []byte
		shared *sync.Pool
	}{{p.free, &sharedFree}, {p.reads, &sharedReads}} {
		for {
			select {
			case b := <-x.local:
				x.shared.Put(&b)
				continue
			default:
			}
			break
		}
	}
}
