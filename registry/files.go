package registry

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/internal/safeopen"
)

// InputFile is a location readable through an iceberg-go FileIO.
type InputFile struct {
	FS       iceio.IO
	Location string
}

// OutputFile is a location writable through an iceberg-go FileIO.
type OutputFile struct {
	FS       iceio.WriteFileIO
	Location string
}

// LocalInput opens a local path (or file:// URI) through iceberg-go's LocalFS,
// refusing without blocking anything but a regular file (a FIFO would hang
// the open, a device could be endless).
func LocalInput(path string) InputFile { return InputFile{FS: safeopen.LocalFS{}, Location: path} }

// LocalOutput writes a local path (or file:// URI) through iceberg-go's
// LocalFS; it replaces only a regular file.
func LocalOutput(path string) OutputFile { return OutputFile{FS: safeopen.LocalFS{}, Location: path} }

// ReaderAtSeeker is what format readers need from an opened input: random
// access plus the size, which Parquet needs to find its footer.
type ReaderAtSeeker interface {
	io.ReaderAt
	io.ReadSeeker
	io.Closer
}

// Open opens the input and returns it with its size in bytes.
func (in InputFile) Open() (ReaderAtSeeker, int64, error) {
	if in.FS == nil {
		return nil, 0, fmt.Errorf("input file %q: no FileIO", in.Location)
	}
	f, err := in.FS.Open(in.Location)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", in.Location, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("stat %s: %w", in.Location, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, fmt.Errorf("open %s: is a directory", in.Location)
	}
	return f, st.Size(), nil
}

// ErrFileExists is returned when an output exists and overwrite is not set.
var ErrFileExists = errors.New("file already exists")

// PendingFile is an output being written. Nothing is visible at the final
// location until Commit; Abort discards it. A local path is published by
// internal/publish (a temporary sibling, fsynced, then renamed); with another
// FileIO that can rename, the bytes go to a temporary sibling first. Either
// way a failed write never replaces or truncates what was there.
type PendingFile struct {
	out OutputFile
	w   iceio.FileWriter
	// local, for a local path, is the temporary file publish commits; w is
	// then its *os.File.
	local     *publish.File
	tmp       string
	overwrite bool
	n         int64
	done      bool
}

// NotReplaceableError is an output location that holds something other than
// a regular file. Publishing renames over the location, which would swap that
// node (a directory, device, FIFO or symlink) for a regular file. It is
// internal/publish's error, so local and FileIO outputs refuse alike.
type NotReplaceableError = publish.NotReplaceableError

// localPath is the output's path when it is a plain path on a local FileIO,
// which internal/publish then writes; URIs keep the FileIO's own path.
func (out OutputFile) localPath() (string, bool) {
	switch out.FS.(type) {
	case safeopen.LocalFS, iceio.LocalFS:
	default:
		return "", false
	}
	if out.Location == "" || strings.Contains(out.Location, "://") {
		return "", false
	}
	return out.Location, true
}

// publishError words internal/publish's refusals as the FileIO path does.
func (out OutputFile) publishError(err error) error {
	var nr *NotReplaceableError
	switch {
	case errors.Is(err, fs.ErrExist) && !errors.As(err, &nr):
		return fmt.Errorf("create %s: %w (set overwrite to replace it)", out.Location, ErrFileExists)
	case errors.As(err, &nr):
		return fmt.Errorf("create %s: %w", out.Location, err)
	}
	return fmt.Errorf("publish %s: %w", out.Location, err)
}

// createLocal starts a local output through internal/publish.
func (out OutputFile) createLocal(path string, overwrite bool) (*PendingFile, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", out.Location, err)
		}
	}
	f, err := publish.Create(path, overwrite)
	if err != nil {
		return nil, out.publishError(err)
	}
	return &PendingFile{out: out, w: f.File, local: f, tmp: f.Name(), overwrite: overwrite}, nil
}

// Create starts writing the output. An existing file is an error and is left
// untouched, unless overwrite is set and it is a regular file.
func (out OutputFile) Create(overwrite bool) (*PendingFile, error) {
	if out.FS == nil {
		return nil, fmt.Errorf("output file %q: no FileIO", out.Location)
	}
	if path, ok := out.localPath(); ok {
		return out.createLocal(path, overwrite)
	}
	exists, err := out.existing()
	if err != nil {
		return nil, err
	}
	if exists && !overwrite {
		return nil, fmt.Errorf("create %s: %w (set overwrite to replace it)", out.Location, ErrFileExists)
	}
	p := &PendingFile{out: out, overwrite: overwrite}
	target := out.Location
	if _, ok := out.FS.(iceio.RenameIO); ok {
		var suffix [6]byte
		_, _ = rand.Read(suffix[:])
		p.tmp = tempSibling(out.Location, hex.EncodeToString(suffix[:]))
		target = p.tmp
	}
	if mk, ok := out.FS.(iceio.MkdirAllIO); ok {
		if dir := parentDir(out.Location); dir != "" {
			if err := mk.MkdirAll(dir); err != nil {
				return nil, fmt.Errorf("create %s: %w", out.Location, err)
			}
		}
	}
	w, err := out.FS.Create(target)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", out.Location, err)
	}
	if p.tmp != "" {
		trackPartial(out.FS, p.tmp)
	}
	p.w = w
	return p, nil
}

// existing reports whether a regular file is at the output's location, and
// fails with a *NotReplaceableError when something else is. The node itself
// is looked at (Lstat, where the FileIO has it), not what a symlink names.
func (out OutputFile) existing() (bool, error) {
	var stat func(string) (fs.FileInfo, error)
	switch fsys := out.FS.(type) {
	case interface {
		Lstat(string) (fs.FileInfo, error)
	}:
		stat = fsys.Lstat
	case iceio.StatIO:
		stat = fsys.Stat
	default:
		return false, nil
	}
	fi, err := stat(out.Location)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("stat %s: %w", out.Location, err)
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("create %s: %w", out.Location, &NotReplaceableError{Mode: fi.Mode()})
	}
	return true, nil
}

// PartialFileMarker is in the name of every file a write has not yet
// published: ".OUT.lab-partial-PID-HEX". A process killed with SIGKILL
// cannot remove its own; the marker and the process id let a cleanup find
// them and tell a live writer's from a dead one's. It is internal/publish's.
const PartialFileMarker = publish.PartialMarker

// partials are the unpublished files of this process, by name, each with
// the FileIO that removes it: RemovePartialFiles deletes them on a signal.
var partials sync.Map

func trackPartial(fsys iceio.IO, name string) { partials.Store(name, fsys) }
func untrackPartial(name string)              { partials.Delete(name) }

// RemovePartialFiles removes every file this process is writing and has
// not published (through a FileIO or internal/publish, which lab annotate
// and the notebooks use too), and returns how many it removed. A command
// calls it when it is interrupted (SIGINT, SIGTERM), before it exits.
func RemovePartialFiles() int {
	n := publish.RemovePartial()
	partials.Range(func(k, v any) bool {
		if err := v.(iceio.IO).Remove(k.(string)); err == nil {
			n++
		}
		partials.Delete(k)
		return true
	})
	return n
}

// tempSibling names a hidden file next to location, keeping any URI scheme.
func tempSibling(location, suffix string) string {
	dir, base := parentDir(location), location
	if i := strings.LastIndex(location, "/"); i >= 0 {
		base = location[i+1:]
	}
	name := "." + base + PartialFileMarker + strconv.Itoa(os.Getpid()) + "-" + suffix
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func parentDir(location string) string {
	i := strings.LastIndex(location, "/")
	if i <= 0 {
		return ""
	}
	return location[:i]
}

func (p *PendingFile) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	return n, err
}

// Written is the number of bytes written so far.
func (p *PendingFile) Written() int64 { return p.n }

// Location is the final location the file will have after Commit.
func (p *PendingFile) Location() string { return p.out.Location }

// Rewrite replaces everything written so far with what fn writes to dst,
// given the written bytes as src (size bytes). It is for formats that finish
// a file in two steps, as the Parquet writers do when they rewrite a footer
// parquet-go cannot emit: the caller never sees the intermediate file. With a
// FileIO that can rename, fn reads the temporary file and writes a new
// temporary sibling, which Commit then publishes; without one the written
// bytes are read back into memory before the location is created again.
// After a failure the pending file is aborted.
func (p *PendingFile) Rewrite(fn func(src io.ReaderAt, size int64, dst io.Writer) error) (err error) {
	if p.done {
		return fmt.Errorf("rewrite %s: file is already committed or aborted", p.out.Location)
	}
	defer func() {
		if err != nil {
			_ = p.Abort()
		}
	}()
	if p.local != nil {
		return p.rewriteLocal(fn)
	}
	if err := p.w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", p.out.Location, err)
	}
	written := p.out.Location
	if p.tmp != "" {
		written = p.tmp
	}
	f, err := p.out.FS.Open(written)
	if err != nil {
		return fmt.Errorf("rewrite %s: reopen: %w", p.out.Location, err)
	}
	defer f.Close()
	var src io.ReaderAt = f
	target := p.out.Location
	if p.tmp != "" {
		var suffix [6]byte
		_, _ = rand.Read(suffix[:])
		target = tempSibling(p.out.Location, hex.EncodeToString(suffix[:]))
	} else {
		// Creating the location again truncates the bytes fn reads.
		b, err := io.ReadAll(io.NewSectionReader(f, 0, p.n))
		if err != nil {
			return fmt.Errorf("rewrite %s: read back: %w", p.out.Location, err)
		}
		src = bytes.NewReader(b)
	}
	w, err := p.out.FS.Create(target)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", p.out.Location, err)
	}
	if p.tmp != "" {
		trackPartial(p.out.FS, target)
	}
	old, size := p.tmp, p.n
	// From here Commit and Abort act on the new file; the old temporary
	// file is removed whatever happens.
	p.w, p.n = w, 0
	if p.tmp != "" {
		p.tmp = target
		defer func() {
			_ = p.out.FS.Remove(old)
			untrackPartial(old)
		}()
	}
	if err := fn(src, size, p); err != nil {
		return fmt.Errorf("rewrite %s: %w", p.out.Location, err)
	}
	return nil
}

// rewriteLocal is Rewrite for a local path: fn reads the temporary file
// and writes a second one, which replaces it as the file Commit publishes.
func (p *PendingFile) rewriteLocal(fn func(src io.ReaderAt, size int64, dst io.Writer) error) error {
	path, _ := p.out.localPath()
	next, err := publish.Create(path, p.overwrite)
	if err != nil {
		return p.out.publishError(err)
	}
	old, size := p.local, p.n
	defer old.Abort()
	p.local, p.w, p.tmp, p.n = next, next.File, next.Name(), 0
	if err := fn(old.File, size, p); err != nil {
		return fmt.Errorf("rewrite %s: %w", p.out.Location, err)
	}
	return nil
}

// Commit closes the file and publishes it at its location.
func (p *PendingFile) Commit() error {
	if p.done {
		return nil
	}
	if p.local != nil {
		p.done = true
		if err := p.local.Commit(); err != nil {
			return p.out.publishError(err)
		}
		return nil
	}
	p.done = true
	if err := p.w.Close(); err != nil {
		p.removeTemp()
		return fmt.Errorf("close %s: %w", p.out.Location, err)
	}
	if p.tmp == "" {
		return nil
	}
	var err error
	defer func() {
		if err == nil {
			untrackPartial(p.tmp) // published: no longer partial
		}
	}()
	if rn, ok := p.out.FS.(iceio.RenameNoReplaceIO); ok && !p.overwrite {
		err = rn.RenameNoReplace(p.tmp, p.out.Location)
	} else if _, err = p.out.existing(); err == nil {
		// Looked at again: the node may have changed since Create.
		err = p.out.FS.(iceio.RenameIO).Rename(p.tmp, p.out.Location)
	}
	if err != nil {
		p.removeTemp()
		var nr *NotReplaceableError
		if errors.As(err, &nr) {
			return err
		}
		if errors.Is(err, fs.ErrExist) {
			// os.Rename says EEXIST for a directory, which no overwrite replaces.
			if _, xerr := p.out.existing(); xerr != nil {
				return xerr
			}
			return fmt.Errorf("create %s: %w (set overwrite to replace it)", p.out.Location, ErrFileExists)
		}
		return fmt.Errorf("publish %s: %w", p.out.Location, err)
	}
	return nil
}

// Abort discards everything written. Without a temporary file (a FileIO that
// cannot rename) the partial file is removed.
func (p *PendingFile) Abort() error {
	if p.done {
		return nil
	}
	if p.local != nil {
		p.done = true
		return p.local.Abort()
	}
	p.done = true
	_ = p.w.Close()
	if p.tmp != "" {
		p.removeTemp()
		return nil
	}
	return p.out.FS.Remove(p.out.Location)
}

func (p *PendingFile) removeTemp() {
	_ = p.out.FS.Remove(p.tmp)
	untrackPartial(p.tmp)
}
