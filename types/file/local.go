package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/coltype-lab/lab/internal/safeopen"
)

// openLocal opens a local file inside the roots.
//
// The lexical check in ParseReference keeps "../" and foreign absolute paths
// out. Here symlinks are resolved and the real path is checked against the
// real roots, and only a regular file is opened, by its real path. Between
// that check and the open, a directory could be swapped for a symlink
// (TOCTOU); so after opening, the file must be the one checked (same device
// and inode) and, on Linux, /proc/self/fd must place it inside a root. The
// residual gap: the open itself may touch a swapped-in file before these
// checks close it. Closing that needs openat2(RESOLVE_BENEATH), which
// iceberg-go's FileIO does not expose.
func (r *Resolver) openLocal(loc *Location, off, n int64) (opened, error) {
	bad := func(rule Rule, format string, args ...any) (opened, error) {
		return opened{}, violation(rule, "uri", loc.Written, format, args...)
	}
	real, err := filepath.EvalSymlinks(loc.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return opened{}, fmt.Errorf("FILE uri %q: %s: %w", loc.Written, loc.Path, fs.ErrNotExist)
		}
		return opened{}, fmt.Errorf("FILE uri %q: resolving %s: %w", loc.Written, loc.Path, err)
	}
	if !r.inRealRoots(real) {
		return bad(RuleSymlinkEscape, "%s leads to %s, outside the allowed roots", loc.Path, real)
	}
	checked, err := os.Lstat(real)
	if err != nil {
		return opened{}, fmt.Errorf("FILE uri %q: %w", loc.Written, err)
	}
	if !checked.Mode().IsRegular() {
		// Directories, FIFOs and devices are refused before opening: a FIFO
		// would block the open, a device could be endless.
		return bad(RuleNotRegularFile, "%s is a %s, not a regular file", real, safeopen.Kind(checked.Mode()))
	}
	f, err := r.fileIO.Open(real)
	if err != nil {
		// The default FileIO opens without blocking and refuses what is not
		// a regular file, such as a FIFO swapped in since the check.
		var nr *safeopen.NotRegularError
		if errors.As(err, &nr) {
			return bad(RuleNotRegularFile, "%s is a %s, not a regular file", real, safeopen.Kind(nr.Mode))
		}
		return opened{}, fmt.Errorf("FILE uri %q: open %s: %w", loc.Written, real, err)
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return opened{}, fmt.Errorf("FILE uri %q: stat %s: %w", loc.Written, real, err)
	}
	if !os.SameFile(checked, got) || !got.Mode().IsRegular() {
		f.Close()
		return bad(RuleSymlinkEscape, "%s changed between the check and the open", real)
	}
	if p, ok := fdPath(f); ok && !r.inRealRoots(p) {
		f.Close()
		return bad(RuleSymlinkEscape, "the opened file is %s, outside the allowed roots", p)
	}
	length, err := r.sizeRange(loc, got.Size(), off, n)
	if err != nil {
		f.Close()
		return opened{}, err
	}
	return opened{rc: section(f, off, length, loc.Written)}, nil
}

// fdPath asks the kernel where an opened file lives; ok is false where that
// is not available.
func fdPath(f any) (string, bool) {
	if runtime.GOOS != "linux" {
		return "", false
	}
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok {
		return "", false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd.Fd()), 10))
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	return p, true
}
