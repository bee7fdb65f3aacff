package modelrec

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrap: "scn: " said once, the error still wrapped.
func TestWrap(t *testing.T) {
	base := errors.New("scn: bad model file: short")
	err := Wrap("load m.scn", base)
	if err.Error() != "scn: load m.scn: bad model file: short" || !errors.Is(err, base) {
		t.Errorf("%q, wraps %v", err, errors.Is(err, base))
	}
	if got := Wrap("x", io.EOF).Error(); got != "scn: x: EOF" {
		t.Errorf("%q", got)
	}
}

type writerTo string

func (s writerTo) WriteTo(w io.Writer) (int64, error) {
	if s == "" {
		return 0, errors.New("scn: nothing to write")
	}
	n, err := io.WriteString(w, string(s))
	return int64(n), err
}

// TestSave: the bytes land at path; an error leaves no file and is
// wrapped with the path.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.scn")
	if err := Save(path, writerTo("model")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "model" {
		t.Fatalf("%q, %v", b, err)
	}
	bad := filepath.Join(dir, "bad.scn")
	err := Save(bad, writerTo(""))
	if err == nil || !strings.HasPrefix(err.Error(), "scn: save "+bad+": nothing to write") {
		t.Errorf("%v", err)
	}
	if _, serr := os.Stat(bad); !os.IsNotExist(serr) {
		t.Errorf("a failed save left %s (%v)", bad, serr)
	}
}
