package modelfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSize: the size a header describes passes, another is refused
// wrapping ErrFormat with both sizes named.
func TestCheckSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.scn")
	if err := os.WriteFile(path, make([]byte, 30), 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, "load info")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckSize(f, path, "load info", 30); err != nil {
		t.Fatal(err)
	}
	err = CheckSize(f, path, "load info", 31)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "the file is 30 bytes, its header describes 31") || !strings.HasPrefix(err.Error(), "scn: load info "+path) {
		t.Errorf("short file: %v", err)
	}
}
