//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
)

// files writes name -> content into dir.
func files(m map[string]string) func(string) error {
	return func(dir string) error {
		for name, c := range m {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(c), 0o666); err != nil {
				return err
			}
		}
		return nil
	}
}

// listing returns dir's entries, name=content, sorted.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Name()+"="+string(b))
	}
	sort.Strings(out)
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWriteFolder: a new folder (parents made, mode from the umask), a
// folder replaced whole (old files gone, its mode kept), a failed write
// leaving the old folder and no temporary folder behind.
func TestWriteFolder(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	dir := filepath.Join(root, "a", "set")
	if err := WriteFolder(dir, files(map[string]string{"x": "1", "y": "2"})); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, dir); !equal(got, []string{"x=1", "y=2"}) {
		t.Fatalf("new folder holds %v", got)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("new folder mode %v, want 0755", st.Mode().Perm())
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := WriteFolder(dir+"/", files(map[string]string{"z": "3"})); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, dir); !equal(got, []string{"z=3"}) {
		t.Fatalf("replaced folder holds %v", got)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o750 {
		t.Errorf("replaced folder mode %v, want the old 0750", st.Mode().Perm())
	}
	bad := errors.New("write failed")
	err := WriteFolder(dir, func(tmp string) error {
		files(map[string]string{"half": "h"})(tmp)
		return bad
	})
	if err != bad {
		t.Fatalf("failed write: %v, want write's own error", err)
	}
	if got := listing(t, dir); !equal(got, []string{"z=3"}) {
		t.Fatalf("a failed write left %v", got)
	}
	es, _ := os.ReadDir(filepath.Dir(dir))
	if len(es) != 1 || es[0].Name() != "set" {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Fatalf("parent holds %v, want only set (temporary folders removed)", names)
	}
}

// TestReplaceFolderFallback: where the system cannot exchange two folders
// in one step, the old folder is moved aside and ends at tmp, the new one
// at out.
func TestReplaceFolderFallback(t *testing.T) {
	root := t.TempDir()
	out, tmp := filepath.Join(root, "out"), filepath.Join(root, "tmp")
	for dir, c := range map[string]string{out: "old", tmp: "new"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files(map[string]string{"f": c})(dir)
	}
	unsupported := func(a, b string) error { return errors.ErrUnsupported }
	if err := replaceFolder(tmp, out, unsupported); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, out); !equal(got, []string{"f=new"}) {
		t.Errorf("out holds %v", got)
	}
	if got := listing(t, tmp); !equal(got, []string{"f=old"}) {
		t.Errorf("tmp holds %v", got)
	}
	if _, err := os.Stat(tmp + ".old"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the aside folder is left: %v", err)
	}
	// out gone: the rename aside fails and nothing moves.
	if err := replaceFolder(tmp, filepath.Join(root, "missing"), unsupported); err == nil {
		t.Error("replacing a missing folder by renames succeeded")
	}
	if got := listing(t, tmp); !equal(got, []string{"f=old"}) {
		t.Errorf("tmp after a failed replace holds %v", got)
	}
}

// TestWriteFolderParentIsFile: a parent that is a file is an error, not a
// panic, and names the path.
func TestWriteFolderParentIsFile(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	called := false
	err := WriteFolder(filepath.Join(f, "set"), func(string) error { called = true; return nil })
	if err == nil || called {
		t.Fatalf("WriteFolder under a file: err %v, write called %v", err, called)
	}
}
