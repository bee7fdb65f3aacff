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
