// Package atomicfile writes files so that a reader never sees half of one
// and a failed write leaves what was there: the content goes to a
// temporary file in the same folder, is synced, and is renamed over the
// path. It is what the model files, the data sets and the exports of this
// project are written with. WriteFolder does the same for a whole folder
// (the derived data sets of scn derive).
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write writes what write produces to path atomically. A new file gets mode
// 0666 less the umask; a file that exists keeps its mode; a symbolic link
// keeps pointing to the file it names, which is replaced. Something that is
// not a regular file or a folder (a device such as /dev/null, a named pipe)
// is written to directly, never replaced. An empty path and a folder are
// refused. Errors do not repeat the path.
func Write(path string, write func(io.Writer) error) error {
	if path == "" {
		return errors.New("empty file name")
	}
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return unwrap(err)
		}
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory")
	case err == nil && !st.Mode().IsRegular():
		return writeThrough(target, write)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return unwrap(err)
	}
	f, err := createTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = write(f)
	if err == nil && st != nil {
		err = f.Chmod(st.Mode().Perm()) // the existing file's mode
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	return unwrap(err)
}

// writeThrough writes to target, which is not a regular file.
func writeThrough(target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return unwrap(err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return unwrap(err)
}

// createTemp creates a new file dir/prefix<random> with mode 0666 less the
// umask (os.CreateTemp makes 0600 files).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e10, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("folder %s: %w", dir, unwrap(err))
		}
	}
	return nil, fmt.Errorf("no free temporary file name in %s", dir)
}

// unwrap drops the operation and path of a *fs.PathError (the caller names
// the file); other errors, and nil, pass as they are.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
