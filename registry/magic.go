package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// Magic numbers, in the style of image.RegisterFormat: each format package
// registers the bytes its files start with from init(), so the registry can
// tell formats apart without importing any of them.

// Magic is a format's magic number: the bytes its files start with.
type Magic struct {
	Format FileFormat
	Magic  string
}

func (m Magic) String() string { return fmt.Sprintf("%s %q", m.Format, m.Magic) }

var (
	magicMu sync.RWMutex
	magics  []Magic
)

// RegisterMagic records that files of format start with magic. Registering
// the same pair again is a no-op; a magic that is a prefix of another
// format's magic (or has one as its prefix) is refused, since the first bytes
// could then not tell the two apart.
func RegisterMagic(format FileFormat, magic string) error {
	if magic == "" {
		return fmt.Errorf("register magic for format %s: empty magic", format)
	}
	magicMu.Lock()
	defer magicMu.Unlock()
	for _, m := range magics {
		if m.Format == format && m.Magic == magic {
			return nil
		}
		if m.Format != format && (strings.HasPrefix(m.Magic, magic) || strings.HasPrefix(magic, m.Magic)) {
			return fmt.Errorf("register magic %q for format %s: it overlaps magic %q of format %s", magic, format, m.Magic, m.Format)
		}
	}
	magics = append(magics, Magic{Format: format, Magic: magic})
	return nil
}

// MustRegisterMagic is RegisterMagic that panics on a refusal; for init().
func MustRegisterMagic(format FileFormat, magic string) {
	if err := RegisterMagic(format, magic); err != nil {
		panic(err)
	}
}

// ErrUnknownFormat is wrapped by every error DetectFormat returns for bytes
// no registered magic matches.
var ErrUnknownFormat = errors.New("unknown file format")

// UnknownFormatError says what a file starts with and which magics are known.
type UnknownFormatError struct {
	// Head is what was read from the start of the file (at most the length
	// of the longest known magic).
	Head []byte
	// Size is the file's size when known, else -1.
	Size int64
	// Known lists the registered magics (KnownMagics).
	Known []Magic
}

func (e *UnknownFormatError) Error() string {
	known := "no format has registered a magic (import a format package)"
	if len(e.Known) > 0 {
		parts := make([]string, len(e.Known))
		for i, m := range e.Known {
			parts[i] = m.String()
		}
		known = "known: " + strings.Join(parts, ", ")
	}
	if e.Size >= 0 && int(e.Size) == len(e.Head) && len(e.Head) < maxMagicLen() {
		return fmt.Sprintf("the file is %d bytes (%q), too short for any known magic (%s)", e.Size, e.Head, known)
	}
	return fmt.Sprintf("the file starts with %q, which is no known format's magic (%s)", e.Head, known)
}

func (e *UnknownFormatError) Unwrap() error { return ErrUnknownFormat }

func maxMagicLen() int {
	magicMu.RLock()
	defer magicMu.RUnlock()
	n := 0
	for _, m := range magics {
		n = max(n, len(m.Magic))
	}
	return n
}

// KnownMagics lists the registered magics in FileFormat order, for messages
// and help texts.
func KnownMagics() []Magic {
	magicMu.RLock()
	defer magicMu.RUnlock()
	out := slices.Clone(magics)
	slices.SortFunc(out, func(a, b Magic) int {
		if a.Format != b.Format {
			return int(a.Format) - int(b.Format)
		}
		return strings.Compare(a.Magic, b.Magic)
	})
	return out
}

// DetectFormatBytes returns the format whose magic head starts with. head
// should hold at least as many bytes as the longest magic, or the whole file.
func DetectFormatBytes(head []byte) (FileFormat, error) {
	magicMu.RLock()
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.Magic)) {
			magicMu.RUnlock()
			return m.Format, nil
		}
	}
	magicMu.RUnlock()
	n := min(len(head), maxMagicLen())
	return 0, &UnknownFormatError{Head: bytes.Clone(head[:n]), Size: -1, Known: KnownMagics()}
}

// DetectFormat reads the first bytes of r and returns the format whose magic
// they start with. A file shorter than the longest magic is matched on what
// it has; an *UnknownFormatError says what it starts with otherwise.
func DetectFormat(r io.ReaderAt) (FileFormat, error) {
	head := make([]byte, maxMagicLen())
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read the magic: %w", err)
	}
	head = head[:n]
	f, derr := DetectFormatBytes(head)
	if derr != nil {
		var u *UnknownFormatError
		if errors.As(derr, &u) && errors.Is(err, io.EOF) {
			u.Size = int64(n) // the whole file was read
		}
		return 0, derr
	}
	return f, nil
}
