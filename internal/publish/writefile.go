package publish

import "io/fs"

// WriteFile is os.WriteFile through Create and Commit: data appears at dest
// complete or not at all, replacing a regular file that is there. A new file
// gets perm less the umask, as os.WriteFile gives a file it creates; since
// the destination is replaced, not rewritten, that holds for an existing
// one too. perm within 0666 is kept exactly (Create's mode is 0666 less the
// umask, and only bits are cleared from it).
func WriteFile(dest string, data []byte, perm fs.FileMode) error {
	f, err := Create(dest, true)
	if err != nil {
		return err
	}
	defer f.Abort()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if mode := st.Mode().Perm() & perm; mode != st.Mode().Perm() {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
