// Package safeopen opens local input files without blocking on what is not
// a regular file, and names what is at a path when it is not one.
//
// A plain open(2) of a FIFO waits for a writer, and a device can be endless:
// a FIFO given as an input, or swapped in for a regular file between a check
// and the open, would hang the lab. So inputs are opened non-blocking where
// the system allows it and refused unless the opened file is regular.
package safeopen

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	iceio "github.com/apache/iceberg-go/io"
)

// NotRegularError is an input that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, Kind(e.Mode))
}

// Kind names the sort of file a mode describes, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}

// Open opens path for reading if it is a regular file (symlinks are
// followed). Anything else gives a *NotRegularError, without waiting for a
// FIFO's writer.
func Open(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	// The opened file, not the path, is checked: the path may have changed
	// since any earlier look at it.
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	// O_NONBLOCK has no effect on reads of a regular file, so the file is
	// used as it is.
	return f, nil
}

// LocalFS is iceberg-go's LocalFS with an Open that refuses, without
// blocking, anything but a regular file, and an Lstat for writers that must
// not replace a node other than a regular file.
type LocalFS struct{ iceio.LocalFS }

// Open opens a local path or file:// URI with Open.
func (l LocalFS) Open(name string) (iceio.File, error) {
	p, err := localPath(name)
	if err != nil {
		return nil, err
	}
	f, err := Open(p)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil iceio.File
	}
	return f, nil
}

// Lstat describes the node at a local path or file:// URI without following
// a final symlink.
func (LocalFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := localPath(name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

// localPath turns a file:// URI into a path, as iceberg-go's LocalFS does;
// anything else is already a path.
func localPath(name string) (string, error) {
	scheme, rest, ok := strings.Cut(name, ":")
	if !ok || !strings.EqualFold(scheme, "file") || !strings.HasPrefix(rest, "//") || filepath.VolumeName(name) != "" {
		return name, nil
	}
	u, err := url.Parse(name)
	if err != nil {
		return "", fmt.Errorf("invalid local file path %q: %w", name, err)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("unsupported file URI authority %q", u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	return filepath.FromSlash(p), nil
}
