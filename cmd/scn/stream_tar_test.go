package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFolderTar writes the files of the folder dir into a tar archive at
// path, below the folder "digits/", in the reverse of the set's order
// (so that a streamed read cannot follow the archive), gzip-compressed
// if the path ends in .gz; bad, if not nil, replaces one file's bytes.
func writeFolderTar(t *testing.T, dir, path string, bad func(name string) []byte) {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	slices.Sort(names)
	slices.Reverse(names)
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, p := range names {
		rel, _ := filepath.Rel(dir, p)
		name := "digits/" + filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bad != nil && bad(name) != nil {
			data = bad(name)
		}
		if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	w.Close()
	data := b.Bytes()
	if strings.HasSuffix(path, ".gz") {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrainStreamedTarIsInMemory: scn train --stream on a tar archive of
// class folders (--folder ARCHIVE:DIR; gzip and plain, its files in
// another order than the set's; grey, and colour read --grey) writes the
// model file the fit in memory of the same archive writes, byte for byte,
// which is the fit of the folder itself (but for the recorded source).
func TestTrainStreamedTarIsInMemory(t *testing.T) {
	dir, sources := streamSources(t)
	for _, c := range []struct {
		name, folder string
		flags        []string
	}{
		{"grey.tar.gz", sources["grey folder"][1], nil},
		{"grey.tar", sources["grey folder"][1], []string{"--invert", "auto"}},
		{"colour.tar.gz", sources["colour"][1], []string{"--grey"}},
	} {
		archive := filepath.Join(dir, c.name)
		writeFolderTar(t, c.folder, archive, nil)
		a, b, f := filepath.Join(dir, "mem.scn"), filepath.Join(dir, "stream.scn"), filepath.Join(dir, "folder.scn")
		args := append([]string{"train", "--model", "rvfl", "--preset", "fast", "--nodes", "120", "--quiet"}, c.flags...)
		ok(t, append(args, "--folder", archive+":digits", "-o", a)...)
		out := ok(t, append(args, "--folder", archive+":digits", "--stream", "-o", b)...)
		if !strings.Contains(out, "scn: note: streaming") || !strings.Contains(out, "the archive "+archive+":digits") {
			t.Fatalf("%s: no note of the streamed fit:\n%s", c.name, out)
		}
		fa, _ := os.ReadFile(a)
		fb, _ := os.ReadFile(b)
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Fatalf("%s: the streamed model file differs from the one fitted in memory", c.name)
		}
		ok(t, append(args, "--folder", c.folder, "-o", f)...)
		x, y := inspectJSON(t, a), inspectJSON(t, f)
		if x["samples"] != y["samples"] || betaDiff(t, a, f) != 0 {
			t.Fatalf("%s: the archive's model is not the folder's", c.name)
		}
	}
}

// TestTrainStreamedTarBadInput: an undecodable file in the middle of a
// streamed archive stops the fit naming archive:file, and no model is
// written.
func TestTrainStreamedTarBadInput(t *testing.T) {
	dir, sources := streamSources(t)
	grey := sources["grey folder"][1]
	pngs, _ := filepath.Glob(filepath.Join(grey, "*", "*.png"))
	rel, _ := filepath.Rel(grey, pngs[len(pngs)/2])
	badName := "digits/" + filepath.ToSlash(rel)
	archive := filepath.Join(dir, "bad.tar.gz")
	writeFolderTar(t, grey, archive, func(name string) []byte {
		if name == badName {
			return []byte("not an image")
		}
		return nil
	})
	model := filepath.Join(dir, "m.scn")
	// Without --grey the planes are decided by a scan of the images, which
	// meets the file; with it, the first pass of the fit does.
	for _, grey := range [][]string{nil, {"--grey"}} {
		args := append([]string{"train", "--model", "rvfl", "--preset", "fast", "--nodes", "60", "--stream", "--folder", archive + ":digits", "-o", model}, grey...)
		out, code := run(t, args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code == 0 || !strings.HasPrefix(lines[len(lines)-1], "scn: ") || !strings.Contains(out, archive+":"+badName) {
			t.Fatalf("%v: want an error naming %s:%s, got (exit %d):\n%s", grey, archive, badName, code, out)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("%v: a model was written: %s", grey, out)
		}
	}
}
