package modelfile

import (
	"fmt"
	"os"
)

// Open opens the model file at path for reading. Its errors start "scn:
// what" (what: "load", "load info", ...): the file cannot be opened, or it
// is a folder, not a model file.
func Open(path, what string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scn: %s: %w", what, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("scn: %s %s: is a directory, not a model file", what, path)
	}
	return f, nil
}

// CheckSize reports whether the model file f at path has the size its
// header describes (want bytes); its errors start "scn: what path" and
// wrap ErrFormat for a file of another size.
func CheckSize(f *os.File, path, what string, want int64) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("scn: %s %s: %w", what, path, err)
	}
	if st.Size() != want {
		return fmt.Errorf("scn: %s %s: %w: the file is %d bytes, its header describes %d", what, path, ErrFormat, st.Size(), want)
	}
	return nil
}
