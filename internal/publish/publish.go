// Package publish writes a local file so that nothing is visible at its
// destination until it is complete: the bytes go to a temporary sibling in
// the destination's directory (the same filesystem, so the final step is a
// rename), which is fsynced before it is renamed into place and removed on
// any failure. A failed or interrupted write never truncates, replaces or
// half-writes what was at the destination.
package publish

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/coltype-lab/lab/internal/safeopen"
)

// PartialMarker is in the name of every temporary file: ".DEST.lab-partial-
// PID-HEX". A process killed with SIGKILL cannot remove its own; the marker
// and the process id let a cleanup find them and tell a live writer's from a
// dead one's.
const PartialMarker = ".lab-partial-"

// TempName is a fresh temporary name beside dest.
func TempName(dest string) string {
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	name := "." + filepath.Base(dest) + PartialMarker + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(suffix[:])
	return filepath.Join(filepath.Dir(dest), name)
}

// NotReplaceableError is a destination that holds something other than a
// regular file. Publishing renames over the destination, which would swap
// that node (a directory, device, FIFO or symlink) for a regular file. The
// message leaves the path to the caller's wrapping.
type NotReplaceableError struct{ Mode fs.FileMode }

func (e *NotReplaceableError) Error() string {
	if e.Mode.IsDir() {
		return "is a directory and cannot be replaced"
	}
	return "is a " + safeopen.Kind(e.Mode) + ", not a regular file, and cannot be replaced"
}

// ExistsError is a destination that exists when overwrite was not asked for.
// It wraps fs.ErrExist.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return e.Path + " exists" }
func (e *ExistsError) Unwrap() error { return fs.ErrExist }

// Check reports whether a regular file is at dest, and fails with a
// *NotReplaceableError when another kind of node is, or with an
// *ExistsError when one is and overwrite is false. The node itself is
// looked at (Lstat), not what a symlink names.
func Check(dest string, overwrite bool) (exists bool, err error) {
	fi, err := os.Lstat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !fi.Mode().IsRegular():
		return true, &NotReplaceableError{Mode: fi.Mode()}
	case !overwrite:
		return true, &ExistsError{Path: dest}
	}
	return true, nil
}

// File is a temporary file that Commit publishes at its destination. It is
// an *os.File open for reading and writing, so a caller can read back what
// it wrote (to verify it) before committing. End it with Commit or Abort,
// not Close.
type File struct {
	*os.File
	dest      string
	overwrite bool
	done      bool
}

// Create starts a file to be published at dest. An existing destination is
// refused (*ExistsError) unless overwrite is set, and a destination that is
// not a regular file is refused either way (*NotReplaceableError). The file
// gets the mode os.Create gives (0666 less the umask) unless the caller
// changes it (Chmod).
func Create(dest string, overwrite bool) (*File, error) {
	if _, err := Check(dest, overwrite); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(TempName(dest), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	track(f.Name())
	return &File{File: f, dest: dest, overwrite: overwrite}, nil
}

// Dest is the destination Commit publishes at.
func (f *File) Dest() string { return f.dest }

// Commit fsyncs and closes the file and renames it to its destination, then
// fsyncs the directory so the rename survives a crash. Without overwrite it
// never replaces a destination that appeared since Create: it links the file
// into place, which fails if the name is taken. On failure the temporary file
// is removed and the destination is left as it was. Commit after Commit or
// Abort does nothing.
func (f *File) Commit() (err error) {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
		untrack(tmp)
	}()
	if err := f.Sync(); err != nil {
		f.File.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.File.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := rename(tmp, f.dest, f.overwrite); err != nil {
		return err
	}
	syncDir(filepath.Dir(f.dest))
	return nil
}

// rename moves tmp to dest; without overwrite it never replaces dest.
func rename(tmp, dest string, overwrite bool) error {
	if !overwrite {
		err := os.Link(tmp, dest)
		if err == nil {
			_ = os.Remove(tmp) // published: the link is the file now
			return nil
		}
		if !errors.Is(err, fs.ErrExist) && !linkUnsupported(err) {
			return err
		}
		if errors.Is(err, fs.ErrExist) {
			// Name what is there: a regular file, or a node no overwrite replaces.
			if _, cerr := Check(dest, false); cerr != nil {
				return cerr
			}
			return &ExistsError{Path: dest}
		}
		// No hard links here: a check, then the rename, as close as it gets.
	}
	// Looked at again: the node may have changed since Create.
	if _, err := Check(dest, overwrite); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if _, cerr := Check(dest, overwrite); cerr != nil {
				return cerr // os.Rename says EEXIST for a directory
			}
		}
		return err
	}
	return nil
}

// linkUnsupported reports a filesystem without hard links (FAT, some FUSE
// and network filesystems), where publishing falls back to a rename.
func linkUnsupported(err error) bool {
	// ErrUnsupported matches ENOSYS, ENOTSUP and EOPNOTSUPP; Linux says EPERM
	// for a filesystem that has no links.
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission)
}

// syncDir makes a rename in dir durable; it is best effort, since not every
// system can fsync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Abort closes and removes the temporary file; the destination is
// untouched. Abort after Commit or Abort does nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	_ = f.File.Close()
	untrack(f.Name())
	if err := os.Remove(f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Publish writes dest with write, as Create, Commit and Abort do: the file
// appears at dest only if write and the commit succeed.
func Publish(dest string, overwrite bool, write func(io.Writer) error) error {
	f, err := Create(dest, overwrite)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// live are this process's temporary files, for RemovePartial.
var live sync.Map

func track(name string)   { live.Store(name, struct{}{}) }
func untrack(name string) { live.Delete(name) }

// RemovePartial removes every temporary file this process has created and
// neither committed nor aborted, and returns how many it removed. A command
// calls it when it is interrupted (SIGINT, SIGTERM), before it exits.
func RemovePartial() int {
	n := 0
	live.Range(func(k, _ any) bool {
		if err := os.Remove(k.(string)); err == nil {
			n++
		}
		live.Delete(k)
		return true
	})
	return n
}
