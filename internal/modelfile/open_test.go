package modelfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, "load"); err == nil || !strings.Contains(err.Error(), "scn: load "+dir+": is a directory") {
		t.Fatalf("folder: %v", err)
	}
	missing := filepath.Join(dir, "none.scn")
	if _, err := Open(missing, "load info"); !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "scn: load info: ") {
		t.Fatalf("missing file: %v", err)
	}
	name := filepath.Join(dir, "m.scn")
	if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(name, "load")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
