//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func content(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWrite: contents replaced whole, modes from the umask or kept, links
// kept, devices written through, failures leave the old file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	p := filepath.Join(dir, "f")
	if err := Write(p, content("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}
	os.Chmod(p, 0o600)
	if err := Write(p, content("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("existing mode not kept: %v", st.Mode().Perm())
	}
	// A failing write leaves the old file and no temporary one.
	if err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") }); err == nil {
		t.Fatal("the error was lost")
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".f.tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	if err := Write(link, content("three")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if b, _ := os.ReadFile(p); string(b) != "three" {
		t.Errorf("through the link: %q", b)
	}
	if os.Geteuid() == 0 {
		dev := filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
			if err := Write(dev, content("gone")); err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Lstat(dev); st.Mode()&os.ModeCharDevice == 0 {
				t.Error("the device was replaced")
			}
		}
	}
	for _, bad := range []string{"", dir, filepath.Join(dir, "missing", "f")} {
		err := Write(bad, content("x"))
		if err == nil || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("Write(%q): %v", bad, err)
		}
	}
}
