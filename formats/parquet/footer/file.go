package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Parquet's framing: "PAR1" at both ends, the footer length just before the
// trailing magic; "PARE" marks a file whose footer is encrypted.
var (
	magic          = []byte("PAR1")
	magicEncrypted = []byte("PARE")
)

const (
	magicLen   = 4
	trailerLen = 8 // footer length (4, little endian) + magic (4)
	// minFileSize: leading magic, an (empty) footer, trailer.
	minFileSize = magicLen + trailerLen
)

// ErrEncrypted is returned (wrapped) for files whose footer is encrypted
// ("PARE" magic) and, by RewriteFooter, for plaintext-footer encrypted files.
var ErrEncrypted = errors.New("encrypted parquet file")

// Footer is a file's decoded footer and where it was found.
type Footer struct {
	Meta *FileMetaData
	// Raw is the footer exactly as stored: Length bytes at Offset.
	Raw []byte
	// Offset is the file offset of the footer's first byte; every byte
	// before it belongs to the data (and indexes) and is never rewritten.
	Offset int64
	// Length is the footer length stored in the trailer.
	Length int64
	// FileSize is the size the footer was read against.
	FileSize int64
	// Signature holds the bytes after the FileMetaData in plaintext-footer
	// encrypted files (nonce and GCM tag); nil otherwise.
	Signature []byte
	// FirstRowGroup is the file's index of Meta.RowGroups[0] and
	// NumRowGroups the number of row groups in the file. ReadFooter decodes
	// them all (0 and len(Meta.RowGroups)); ReadFooterRowGroups a window.
	FirstRowGroup, NumRowGroups int
}

// ReadFooter reads and decodes the footer of the size-byte Parquet file r.
// It checks the magic at both ends, refuses encrypted footers, and checks the
// footer length against the file size before it allocates anything.
func ReadFooter(r io.ReaderAt, size int64, opts ...Option) (_ *Footer, err error) {
	defer guard(&err, "read footer")
	return readFooter(r, size, opts, nil)
}

// readFooter is ReadFooter, decoding only the row groups of window when it
// is not nil.
func readFooter(r io.ReaderAt, size int64, opts []Option, window *RowGroupWindow) (*Footer, error) {
	if size < minFileSize {
		return nil, fmt.Errorf("%d bytes is too small for a Parquet file (at least %d: magic, footer length, magic)", size, minFileSize)
	}
	var trailer [trailerLen]byte
	if err := ReadFull(r, trailer[:], size-trailerLen); err != nil {
		return nil, fmt.Errorf("read trailer at offset %d: %w", size-trailerLen, err)
	}
	switch tail := trailer[4:]; {
	case bytes.Equal(tail, magicEncrypted):
		return nil, fmt.Errorf("magic PARE at offset %d: the footer is encrypted, which this codec does not read: %w", size-magicLen, ErrEncrypted)
	case !bytes.Equal(tail, magic):
		return nil, fmt.Errorf("no PAR1 magic at offset %d (found %q)", size-magicLen, tail)
	}
	var head [magicLen]byte
	if err := ReadFull(r, head[:], 0); err != nil {
		return nil, fmt.Errorf("read header at offset 0: %w", err)
	}
	if !bytes.Equal(head[:], magic) {
		return nil, fmt.Errorf("no PAR1 magic at offset 0 (found %q)", head[:])
	}
	length := int64(binary.LittleEndian.Uint32(trailer[:4]))
	if room := size - minFileSize; length > room {
		return nil, fmt.Errorf("footer length %d (at offset %d) exceeds the file: %d bytes leave room for at most %d",
			length, size-trailerLen, size, room)
	}
	offset := size - trailerLen - length
	raw := make([]byte, length)
	if err := ReadFull(r, raw, offset); err != nil {
		return nil, fmt.Errorf("read footer at offset %d: %w", offset, err)
	}
	meta, signature, err := decode(raw, opts, window)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) && de.Offset >= 0 {
			de.FileOffset = offset + de.Offset
		}
		return nil, fmt.Errorf("footer at offset %d (%d bytes): %w", offset, length, err)
	}
	f := &Footer{Meta: meta.FileMetaData, Raw: raw, Offset: offset, Length: length, FileSize: size, Signature: signature,
		FirstRowGroup: meta.firstRowGroup, NumRowGroups: meta.numRowGroups}
	return f, nil
}

// ReadFull reads len(p) bytes at off; io.ReaderAt may return io.EOF with a
// full read at the end of the input, which is not an error.
func ReadFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%d of %d bytes: %w", n, len(p), err)
}
