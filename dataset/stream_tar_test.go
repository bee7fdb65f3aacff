package dataset

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn"
)

// folderTar writes the files of the folder dir into a tar archive (gzip
// if gz) under the folder "set/", in the order order names: "sorted"
// (the set's), "reverse" or "shuffled"; every archive also holds a
// README.txt and a hidden ._file (both ignored), and the shuffled one
// an earlier, other copy of one image (the last copy counts).
func folderTar(t testing.TB, dir, order string, gz bool) string {
	t.Helper()
	files := map[string][]byte{"set/README.txt": []byte("not an image"), "set/a/._00.png": []byte("junk")}
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		name := "set/" + filepath.ToSlash(rel)
		files[name] = b
		names = append(names, name)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	order0 := append([]string{"set/README.txt", "set/a/._00.png"}, names...)
	switch order {
	case "reverse":
		slices.Reverse(order0)
	case "shuffled":
		r := rand.New(rand.NewPCG(7, 8))
		r.Shuffle(len(order0), func(i, j int) { order0[i], order0[j] = order0[j], order0[i] })
		files["set/b/03.png~"] = files["set/c/01.png"]
		order0 = append([]string{"set/b/03.png~"}, order0...)
	}
	data := tarBytes(t, files, order0...)
	if order == "shuffled" {
		// The first entry, renamed: an earlier copy of set/b/03.png that
		// the later one replaces.
		copy(data[:len("set/b/03.png~")], "set/b/03.png\x00")
		fixTarChecksum(data[:512])
	}
	name := order + ".tar"
	if gz {
		data, name = gzipBytes(data), name+".gz"
	}
	return writeFile(t, t.TempDir(), name, data)
}

// fixTarChecksum recomputes the checksum of a tar header block.
func fixTarChecksum(h []byte) {
	copy(h[148:156], "        ")
	sum := 0
	for _, b := range h {
		sum += int(b)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// tarPasses returns the passes over the archive a tar source started.
func tarPasses(src *FolderSource) int { return src.fsys.(*tarFiles).passes }

// TestFolderTarSourceIsTheSet: the shards of a tar archive of class
// folders (gzip and plain; its files in the set's order, reversed and
// shuffled, with a file given twice) put together are the set
// ReadFolderTarGz reads (itself the folder's, as ReadFolder reads it),
// grey and colour, with preprocessing; an archive is read in one pass
// per pass over the set when it is in the set's order or the files met
// before they are needed fit in the read-ahead, and otherwise in at most
// one per shard.
func TestFolderTarSourceIsTheSet(t *testing.T) {
	for _, colour := range []bool{false, true} {
		dir := folderOfImages(t, colour)
		for _, order := range []string{"sorted", "reverse", "shuffled"} {
			for _, gz := range []bool{true, false} {
				archive := folderTar(t, dir, order, gz)
				for _, p := range []Preprocess{{}, {Invert: "auto", ResizeRows: 9, ResizeCols: 7, Fit: "pad"}, {Channels: 1}} {
					what := fmt.Sprintf("colour %v, %s, gzip %v, %+v", colour, order, gz, p)
					want, err := ReadFolderTarGz(archive, "set", p)
					if err != nil {
						t.Fatal(err)
					}
					folder, err := ReadFolder(dir, p)
					if err != nil {
						t.Fatal(err)
					}
					if !equalBits(want.Pix, folder.Pix) || !slices.Equal(want.Labels, folder.Labels) || want.Source != archive+":set"+p.describe(want.Inverted, want.Len()) {
						t.Fatalf("%s: the archive read whole is not the folder (%q)", what, want.Source)
					}
					for _, budget := range []int64{tarReadAhead, 0} {
						src, err := OpenFolderTarSource(archive, "set", p)
						if err != nil {
							t.Fatal(err)
						}
						src.Chunk = 4
						src.fsys.(*tarFiles).budget = budget
						if err := src.Resolve(context.Background()); err != nil {
							t.Fatal(err)
						}
						before := tarPasses(src)
						sameStream(t, what, src, want) // two passes over the set
						passes, shards := tarPasses(src)-before, 2*((src.Len()+3)/4)
						switch {
						case (order == "sorted" || budget > 0) && passes != 2:
							t.Errorf("%s, read-ahead %d: %d passes over the archive for 2 over the set", what, budget, passes)
						case order != "sorted" && budget == 0 && (passes < 4 || passes > shards):
							t.Errorf("%s, no read-ahead: %d passes over the archive for %d shards", what, passes, shards)
						}
					}
				}
			}
		}
	}
}

// TestFolderTarSourceRefuses: an undecodable file and an image of another
// size in the middle of the archive stop the pass naming archive:file
// (after the shards before it); an archive that changed since it was
// opened, a truncated one and a missing folder are refused.
func TestFolderTarSourceRefuses(t *testing.T) {
	dir := folderOfImages(t, false)
	writeFile(t, dir, "b/03.png", []byte("not an image"))
	archive := folderTar(t, dir, "reverse", true)
	src, err := OpenFolderTarSource(archive, "set", Preprocess{Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	src.Chunk = 5
	n := 0
	err = src.Shards(context.Background(), func(scn.Shard) error { n++; return nil })
	wantErr(t, "undecodable", err, archive+":set/b/03.png")
	if n != 2 {
		t.Errorf("%d shards before the bad file (image 10), want 2", n)
	}
	writeFile(t, dir, "b/03.png", pngBytes(t, 4, 4))
	archive = folderTar(t, dir, "shuffled", false)
	src, err = OpenFolderTarSource(archive, "set", Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	src.Chunk = 5
	_, err = streamed(t, src)
	wantErr(t, "another size", err, archive+":set/b/03.png", "4 x 4", "6 x 5")
	// Changed between passes: other contents, or only a new time.
	writeFile(t, dir, "b/03.png", pngBytes(t, 5, 6))
	archive = folderTar(t, dir, "sorted", true)
	src, err = OpenFolderTarSource(archive, "set", Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := streamed(t, src); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(archive)
	os.WriteFile(archive, raw[:len(raw)-40], 0o644)
	_, err = streamed(t, src)
	wantErr(t, "changed archive", err, archive, "changed since it was opened")
	os.WriteFile(archive, raw, 0o644)
	os.Chtimes(archive, time.Now(), time.Now().Add(time.Hour))
	_, err = streamed(t, src)
	wantErr(t, "touched archive", err, archive, "changed since it was opened")
	cut := writeFile(t, t.TempDir(), "cut.tar.gz", gzipBytes(tarBytesCut(t, raw)))
	_, err = OpenFolderTarSource(cut, "set", Preprocess{})
	wantErr(t, "truncated", err, cut, "truncated")
	_, err = OpenFolderTarSource(archive, "other", Preprocess{})
	wantErr(t, "no such folder", err, archive+":other")
	if !strings.Contains(fmt.Sprint(err), "dataset:") {
		t.Errorf("error %q", err)
	}
}

// tarBytesCut returns the tar inside the gzip bytes gz, cut (at a block
// boundary) in its middle.
func tarBytesCut(t testing.TB, gz []byte) []byte {
	t.Helper()
	r, err := openMaybeGzip(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b[:len(b)/2/512*512]
}
