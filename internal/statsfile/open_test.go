package statsfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpen: a regular file's size and, lazily, where its G lies; no G
// without laziness; a missing file's error names what failed.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.scnstats")
	if err := os.WriteFile(path, make([]byte, 40), 0o666); err != nil {
		t.Fatal(err)
	}
	f, size, skip, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if size != 40 || skip == nil || skip.Path != path || skip.Size != 40 {
		t.Errorf("lazy: size %d, skip %+v", size, skip)
	}
	f, size, skip, err = Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if size != 40 || skip != nil {
		t.Errorf("eager: size %d, skip %+v", size, skip)
	}
	if _, _, _, err := Open(filepath.Join(t.TempDir(), "none"), true); err == nil || !strings.HasPrefix(err.Error(), "scn: load statistics: ") {
		t.Errorf("missing file: %v", err)
	}
}
