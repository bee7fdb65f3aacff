package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutput checks, before any work, that a model file can be written at
// path (flag names the flag): a non-empty name, not a folder, in a folder
// that exists and takes new files. Something that is not a regular file
// (a device such as /dev/null) is written to directly when the model is
// saved.
func checkOutput(flag, path string) error {
	if path == "" {
		return usageError{fmt.Errorf("%s: empty file name", flag)}
	}
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s %s: is a directory", flag, path)
	case err == nil && !st.Mode().IsRegular():
		return nil // written through when saved (opening a named pipe here would block)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: %w", flag, path, unwrapPathErr(err))
	}
	return checkFolderWritable(flag, path, filepath.Dir(target))
}

// checkFolderWritable checks that dir exists, is a folder and takes a new
// file (tried, so that permissions, read-only mounts and root all count).
func checkFolderWritable(flag, path, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: folder %s: %w", flag, path, dir, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a folder", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".scn-write-check*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in folder %s: %w", flag, path, dir, unwrapPathErr(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPathErr drops the operation and path of a *fs.PathError, which the
// message names already.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
