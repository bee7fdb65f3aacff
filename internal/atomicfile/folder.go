package atomicfile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFolder writes the folder dir atomically: write fills a new
// temporary folder beside dir (named "."+base(dir)+".tmp<random>", mode
// 0777 less the umask, or the mode of the folder dir replaces), which then
// takes dir's place: in one step where the system can (renameat2 with
// RENAME_EXCHANGE on Linux), so that dir is at no moment missing or half
// there, otherwise by moving the old folder aside first. The old folder's
// contents are removed after the swap; if write fails, dir is left as it
// was and the temporary folder removed. dir's parent folders are made if
// they are missing.
//
// write's error is returned as it is; the other errors are those of the
// file system (an *fs.PathError naming the path), for the caller to put
// in context. WriteFolder does not judge what dir holds: a caller that
// must not lose files checks dir before.
func WriteFolder(dir string, write func(tmp string) error) error {
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	exists := err == nil
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return err
	}
	tmp, err := makeTempFolder(parent, "."+filepath.Base(dir)+".tmp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // the new folder if anything failed, the old one after a swap
	if exists {
		os.Chmod(tmp, st.Mode().Perm())
	}
	if err := write(tmp); err != nil {
		return err
	}
	if !exists {
		return os.Rename(tmp, dir)
	}
	return replaceFolder(tmp, dir, exchange)
}

// makeTempFolder makes a new folder dir/prefix<random> with mode 0777 less
// the umask (os.MkdirTemp makes 0700 folders).
func makeTempFolder(dir, prefix string) (string, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e10, 10))
		err := os.Mkdir(name, 0o777)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free temporary name in %s", dir)
}

// replaceFolder puts the folder tmp in the place of the folder out and the
// old out at tmp: in one step where exchange can, otherwise by moving out
// aside first (a reader may then find out missing for a moment, never
// half written).
func replaceFolder(tmp, out string, exchange func(a, b string) error) error {
	if exchange(tmp, out) == nil {
		return nil
	}
	aside := tmp + ".old"
	if err := os.Rename(out, aside); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(aside, out)
		return err
	}
	return os.Rename(aside, tmp) // removed by the caller
}
