package vectorcol

// pageBuffers recycles the decompression buffers of one scan: a page's
// buffer returns when the search is done with its block, so a scan holds
// as many buffers as it has pages in flight, whatever the file size, and
// allocates no new ones once warm. Buffers that pages are read into
// (File.ReadPages) are kept apart and sized in steps of readGrain, so that
// pages of slightly different sizes share them.
type pageBuffers struct {
	free  chan []byte // 4-byte aligned buffers, length = capacity − 3
	reads chan []byte // 4-byte aligned, capacity a multiple of readGrain
}

const readGrain = 64 << 10

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
