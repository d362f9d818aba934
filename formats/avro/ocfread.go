package avro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/golang/snappy"
	hamba "github.com/hamba/avro/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/coltype-lab/lab/registry"
)

const syncSize = 16

// defaultMaxBlockBytes caps one decompressed block unless MaxBlockBytesKey
// says otherwise. Writers close blocks at 64 KB; 256 MiB leaves room for
// writers with far larger sync intervals.
const defaultMaxBlockBytes = 256 << 20

var magic = []byte(Magic)

// ocfHeader is a container file's header.
type ocfHeader struct {
	meta   map[string][]byte
	sync   [syncSize]byte
	length int64 // bytes up to and including the sync marker
}

// readHeader reads the header through ReaderAt, growing its read window
// only as the header turns out to need it and never past the file's size.
func readHeader(r io.ReaderAt, size int64) (*ocfHeader, error) {
	window := min(size, 4096)
	for {
		buf := make([]byte, window)
		n, err := r.ReadAt(buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read header: %w", err)
		}
		complete := window == size
		h, err := parseHeader(buf[:n])
		switch {
		case err == nil:
			return h, nil
		case errors.Is(err, errBadMagic):
			return nil, err
		case complete && errors.Is(err, errShort):
			return nil, fmt.Errorf("truncated header (file is %d bytes)", size)
		case complete:
			return nil, fmt.Errorf("corrupt header: %w", err)
		}
		// In a partial window a length may point past the window and
		// still be valid: read more.
		window = min(size, window*4)
	}
}

var errBadMagic = errors.New("not an Avro object container file (bad magic)")

func parseHeader(buf []byte) (*ocfHeader, error) {
	if len(buf) < len(magic) {
		if bytes.HasPrefix(magic, buf) {
			return nil, errShort
		}
		return nil, errBadMagic
	}
	if !bytes.Equal(buf[:4], magic) {
		return nil, errBadMagic
	}
	d := &decoder{buf: buf, pos: 4}
	meta := map[string][]byte{}
	for {
		// Each entry takes at least two bytes (two lengths).
		count, err := d.blockCount(2)
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		if count == 0 {
			break
		}
		for range count {
			k, err := d.bytes()
			if err != nil {
				return nil, fmt.Errorf("metadata key: %w", err)
			}
			v, err := d.bytes()
			if err != nil {
				return nil, fmt.Errorf("metadata value of %q: %w", k, err)
			}
			meta[string(k)] = clone(v)
		}
	}
	s, err := d.fixed(syncSize)
	if err != nil {
		return nil, fmt.Errorf("sync marker: %w", err)
	}
	h := &ocfHeader{meta: meta, length: int64(d.pos)}
	copy(h.sync[:], s)
	return h, nil
}

// blockCodec decompresses one block with a bound on its output.
type blockCodec struct {
	name string
	zstd *zstd.Decoder
	max  int
}

func newBlockCodec(name string, maxBytes int) (*blockCodec, error) {
	c := &blockCodec{name: name, max: maxBytes}
	switch name {
	case "", "null", "deflate", "snappy":
	case "zstandard":
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxBytes)))
		if err != nil {
			return nil, err
		}
		c.zstd = dec
	default:
		return nil, fmt.Errorf("unsupported Avro codec %q", name)
	}
	return c, nil
}

func (c *blockCodec) close() {
	if c.zstd != nil {
		c.zstd.Close()
	}
}

func (c *blockCodec) decode(b []byte) ([]byte, error) {
	switch c.name {
	case "", "null":
		return b, nil
	case "deflate":
		r := flate.NewReader(bytes.NewReader(b))
		defer r.Close()
		// Read through a limit: the output grows with what the stream
		// really holds, and a deflate bomb stops at the cap.
		out, err := io.ReadAll(io.LimitReader(r, int64(c.max)+1))
		if err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		if len(out) > c.max {
			return nil, fmt.Errorf("deflate: block decompresses to more than %d bytes (%s)", c.max, MaxBlockBytesKey)
		}
		return out, nil
	case "snappy":
		// Avro's snappy blocks end with the CRC-32 of the uncompressed data.
		if len(b) < 4 {
			return nil, errors.New("snappy: block has no checksum")
		}
		body := b[:len(b)-4]
		n, err := snappy.DecodedLen(body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if n > c.max {
			return nil, fmt.Errorf("snappy: block declares %d bytes, more than %d (%s)", n, c.max, MaxBlockBytesKey)
		}
		out, err := snappy.Decode(nil, body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(b[len(b)-4:]) {
			return nil, errors.New("snappy: checksum mismatch")
		}
		return out, nil
	case "zstandard":
		out, err := c.zstd.DecodeAll(b, nil)
		if err != nil {
			return nil, fmt.Errorf("zstandard: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported Avro codec %q", c.name)
}

// container reads the blocks of one file in the range a split selects.
type container struct {
	location string
	r        registry.ReaderAtSeeker
	size     int64
	header   *ocfHeader
	schema   hamba.Schema
	codec    *blockCodec
	// next is the offset of the next block; end is the split's end: a block
	// is read while the sync marker before it starts before end.
	next, end int64
	firstRow  int64 // row position of the first block read
}

func openContainer(in registry.InputFile, opts registry.ReadOptions) (*container, error) {
	r, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	c, err := newContainer(in.Location, r, size, opts)
	if err != nil {
		r.Close()
		return nil, err
	}
	return c, nil
}

func newContainer(location string, r registry.ReaderAtSeeker, size int64, opts registry.ReadOptions) (*container, error) {
	fail := func(err error) (*container, error) { return nil, fmt.Errorf("read %s: %w", location, err) }
	h, err := readHeader(r, size)
	if err != nil {
		return fail(err)
	}
	schemaJSON, ok := h.meta[avroSchemaKey]
	if !ok {
		return fail(errors.New("header has no avro.schema"))
	}
	schema, err := hamba.ParseBytesWithCache(schemaJSON, "", &hamba.SchemaCache{})
	if err != nil {
		return fail(fmt.Errorf("avro.schema: %w", err))
	}
	maxBytes := defaultMaxBlockBytes
	if v, ok := opts.Properties[MaxBlockBytesKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fail(fmt.Errorf("%s must be a positive integer, got %q", MaxBlockBytesKey, v))
		}
		maxBytes = n
	}
	codec, err := newBlockCodec(string(h.meta[avroCodecKey]), maxBytes)
	if err != nil {
		return fail(err)
	}
	c := &container{location: location, r: r, size: size, header: h, schema: schema, codec: codec,
		next: h.length, end: size}
	if s := opts.Split; s != nil {
		if s.Start < 0 || s.Length < 0 {
			codec.close()
			return fail(fmt.Errorf("invalid split [%d, +%d)", s.Start, s.Length))
		}
		// Clamped to the file: a huge length must not overflow the end.
		c.end = size
		if s.Length < size-s.Start {
			c.end = s.Start + s.Length
		}
		if s.Start > h.length-syncSize {
			// As Avro's DataFileReader.sync: the first block read is the one
			// after the first sync marker at or after the split's start.
			next, err := c.findSync(s.Start)
			if err != nil {
				codec.close()
				return fail(err)
			}
			c.next = next
		}
	}
	return c, nil
}

// findSync returns the offset just past the first sync marker that starts
// at or after from and before the split's end, or the file's size when
// there is none (then the split reads nothing).
func (c *container) findSync(from int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk+syncSize-1)
	for pos := from; pos < c.end && pos < c.size; pos += chunk {
		n, err := c.r.ReadAt(buf[:min(int64(len(buf)), c.size-pos)], pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.Index(buf[:n], c.header.sync[:]); i >= 0 {
			if pos+int64(i) >= c.end {
				break
			}
			return pos + int64(i) + syncSize, nil
		}
	}
	return c.size, nil
}

// block is one decompressed block.
type block struct {
	offset int64
	rows   int64
	data   []byte
}

// nextBlock reads the block at c.next, or returns io.EOF past the split.
func (c *container) nextBlock() (*block, error) {
	if c.next >= c.size || c.next >= c.end+syncSize {
		return nil, io.EOF
	}
	off := c.next
	rows, size, hdr, err := c.blockHeader(off)
	if err != nil {
		return nil, err
	}
	dataStart := off + int64(hdr)
	if size > c.size-dataStart-syncSize {
		return nil, fmt.Errorf("block at offset %d declares %d bytes but the file has %d after its header (truncated or corrupt)",
			off, size, max(c.size-dataStart, 0))
	}
	raw := make([]byte, size+syncSize)
	if _, err := c.r.ReadAt(raw, dataStart); err != nil && !(errors.Is(err, io.EOF) && len(raw) > 0) {
		return nil, fmt.Errorf("block at offset %d: %w", off, err)
	}
	if !bytes.Equal(raw[size:], c.header.sync[:]) {
		return nil, fmt.Errorf("block at offset %d: sync marker mismatch (corrupt block)", off)
	}
	decoded, err := c.codec.decode(raw[:size])
	if err != nil {
		return nil, fmt.Errorf("block at offset %d: %w", off, err)
	}
	c.next = dataStart + size + syncSize
	return &block{offset: off, rows: rows, data: decoded}, nil
}

// blockHeader reads a block's row count and byte size.
func (c *container) blockHeader(off int64) (rows, size int64, n int, err error) {
	var hb [20]byte
	m, rerr := c.r.ReadAt(hb[:min(int64(len(hb)), c.size-off)], off)
	if rerr != nil && !errors.Is(rerr, io.EOF) {
		return 0, 0, 0, fmt.Errorf("block at offset %d: %w", off, rerr)
	}
	d := &decoder{buf: hb[:m]}
	if rows, err = d.long(); err == nil {
		size, err = d.long()
	}
	switch {
	case errors.Is(err, errShort):
		return 0, 0, 0, fmt.Errorf("block at offset %d: truncated block header", off)
	case err != nil:
		return 0, 0, 0, fmt.Errorf("block at offset %d: %w", off, err)
	case rows < 0:
		return 0, 0, 0, fmt.Errorf("block at offset %d: negative row count %d (corrupt block)", off, rows)
	case size < 0:
		return 0, 0, 0, fmt.Errorf("block at offset %d: negative size %d (corrupt block)", off, size)
	}
	return rows, size, d.pos, nil
}

// rowsBefore counts the rows of the blocks before c.next by walking block
// headers from the first block; it is needed only for _pos in a split.
func (c *container) rowsBefore() (int64, error) {
	var rows int64
	off := c.header.length
	for off < c.next {
		n, size, hdr, err := c.blockHeader(off)
		if err != nil {
			return 0, err
		}
		rows += n
		off += int64(hdr) + size + syncSize
	}
	if off != c.next {
		return 0, fmt.Errorf("sync marker before offset %d is not at a block boundary", c.next)
	}
	return rows, nil
}

func (c *container) close() error {
	c.codec.close()
	return c.r.Close()
}

// Metadata returns the header metadata of the Avro file at in (the
// avro.schema, avro.codec and every key the writer added), reading only
// the header.
func Metadata(in registry.InputFile) (meta map[string]string, err error) {
	defer recoverTo(&err, "read "+in.Location)
	r, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h, err := readHeader(r, size)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Location, err)
	}
	meta = make(map[string]string, len(h.meta))
	for k, v := range h.meta {
		meta[k] = string(v)
	}
	return meta, nil
}
