//go:build unix

package scn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSaveModesAndSpecialFiles: Save keeps an existing file's mode, gives
// a new one 0666 less the umask, follows a symbolic link, writes through
// a named pipe instead of replacing it, and refuses an empty name and a
// folder.
func TestSaveModesAndSpecialFiles(t *testing.T) {
	c := toyConfig()
	c.MaxNodes = 3
	m, err := c.Fit(context.Background(), toyProblem(t, 50), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	fresh := filepath.Join(dir, "new.scn")
	if err := m.Save(fresh); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o640 {
		t.Errorf("new file mode %v, want 0640 under umask 027", st.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept.scn")
	os.WriteFile(kept, nil, 0o600)
	os.Chmod(kept, 0o604)
	if err := m.Save(kept); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(kept); st.Mode().Perm() != 0o604 {
		t.Errorf("existing file mode %v, want 0604 kept", st.Mode().Perm())
	}
	link := filepath.Join(dir, "link.scn")
	os.Symlink(kept, link)
	if err := m.Save(link); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("Save replaced a symbolic link")
	}
	if _, err := Load(link); err != nil {
		t.Error(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		got := make(chan int, 1)
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- len(b)
		}()
		if err := m.Save(fifo); err != nil {
			t.Fatal(err)
		}
		if n := <-got; n < 100 {
			t.Errorf("read %d bytes through the pipe", n)
		}
		if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
			t.Error("Save replaced a named pipe")
		}
	}
	for _, bad := range []string{"", dir} {
		if err := m.Save(bad); err == nil || strings.Count(err.Error(), "scn: ") != 1 {
			t.Errorf("Save(%q): %v", bad, err)
		}
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Load of a folder: %v", err)
	}
}
