package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// shardSet writes s as k IDX shard files in dir and returns their names.
func shardSet(t testing.TB, dir string, s *Set, k int) (images, labels []string) {
	t.Helper()
	n := s.Len()
	for j := 0; j < k; j++ {
		lo, hi := j*n/k, (j+1)*n/k
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		part := s.Subset(idx)
		img, lab := filepath.Join(dir, "part-"+string(rune('a'+j))+"-images.gz"), filepath.Join(dir, "part-"+string(rune('a'+j))+"-labels")
		if err := WriteIDX(img, lab, part); err != nil {
			t.Fatal(err)
		}
		images, labels = append(images, img), append(labels, lab)
	}
	return images, labels
}

// TestIDXSourceIsTheSet: the shards of an IDX source over three files, in
// chunks that cross no file, put together are the set ReadIDX reads
// (pixels, labels, classes); ExpandFiles sorts a glob's matches; the
// source reads the same shards twice.
func TestIDXSourceIsTheSet(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	images, labels := shardSet(t, dir, train, 3)
	gi, err := ExpandFiles(filepath.Join(dir, "part-*-images.gz"))
	if err != nil || strings.Join(gi, ",") != strings.Join(images, ",") {
		t.Fatalf("glob %v, %v", gi, err)
	}
	src, err := OpenIDXSource(images, labels, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	src.Chunk = 77
	if src.Len() != train.Len() || strings.Join(src.Classes(), "") != strings.Join(train.Classes, "") {
		t.Fatalf("%d images, classes %v", src.Len(), src.Classes())
	}
	for pass := 0; pass < 2; pass++ {
		var pix []float32
		var lab []int
		shards := 0
		err := src.Shards(context.Background(), func(sh scn.Shard) error {
			shards++
			pix = append(pix, sh.X.Pix...)
			lab = append(lab, scn.ArgMax(sh.T, sh.M)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slicesEqual(pix, train.Pix) || !intsEqual(lab, train.Labels) || shards < 3 {
			t.Fatalf("pass %d: %d shards do not give the set", pass, shards)
		}
	}
	all, err := ReadIDXSource(src)
	if err != nil || !slicesEqual(all.Pix, train.Pix) || !intsEqual(all.Labels, train.Labels) {
		t.Fatalf("ReadIDXSource: %v", err)
	}
}

func slicesEqual(a, b []float32) bool {
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

func intsEqual(a, b []int) bool {
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

// TestIDXSourceBadInput: files of another image size, label counts that do
// not match, unpaired lists, a glob that matches nothing, and a file
// truncated after its header are refused naming the file; a cancelled
// stream stops with the context's error.
func TestIDXSourceBadInput(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	images, labels := shardSet(t, dir, train, 3)
	other := train.Subset([]int{0, 1})
	other.Rows, other.Cols = other.Cols/2, other.Rows*2
	odd := filepath.Join(dir, "odd-images")
	if err := WriteIDX(odd, filepath.Join(dir, "odd-labels"), other); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		images, labels []string
		want           string
	}{
		{[]string{images[0], odd}, []string{labels[0], filepath.Join(dir, "odd-labels")}, "odd-images"},
		{images[:2], []string{labels[0], filepath.Join(dir, "odd-labels")}, "odd-labels"},
		{images, labels[:2], "3 image files and 2 label files"},
	}
	for _, c := range cases {
		if _, err := OpenIDXSource(c.images, c.labels, Preprocess{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("want an error naming %q, got %v", c.want, err)
		}
	}
	if _, err := ExpandFiles(filepath.Join(dir, "none-*")); err == nil {
		t.Fatal("a glob that matches nothing")
	}
	// Truncated after the header: the header says 100 images.
	raw, err := os.ReadFile(images[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	plain.ReadFrom(zr)
	cut := filepath.Join(dir, "cut-images")
	os.WriteFile(cut, plain.Bytes()[:16+784*3], 0o644)
	src, err := OpenIDXSource([]string{images[0], cut}, []string{labels[0], labels[1]}, Preprocess{})
	if err != nil {
		t.Fatal(err)
	}
	err = src.Shards(context.Background(), func(scn.Shard) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "cut-images") || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	src, _ = OpenIDXSource(images, labels, Preprocess{})
	src.Chunk = 10
	n := 0
	err = src.Shards(ctx, func(scn.Shard) error {
		if n++; n == 2 {
			cancel()
		}
		return nil
	})
	if err != context.Canceled || n != 2 {
		t.Fatalf("cancelled after 2 shards: %d shards, %v", n, err)
	}
}

// TestDistortZeroIsIdentity: a distortion of zero strength gives the image
// itself, bit for bit, whatever the random stream.
func TestDistortZeroIsIdentity(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	zero := Distortion{Sigma: 5, ScaleMin: 1, ScaleMax: 1}
	for i := 0; i < 20; i++ {
		img := train.Image(i)
		got := Distort(img, train.Rows, train.Cols, zero, distortStream(7, 1, i))
		if !slicesEqual(got, img) {
			t.Fatalf("image %d changed by a distortion of zero strength", i)
		}
	}
}

// TestDistortedCopy: pixels stay in [0, 1] before quantisation, the
// labels and shape are kept, the images change, and the copy is the same
// whatever GOMAXPROCS; another copy index or seed gives other images;
// out-of-range parameters are refused.
func TestDistortedCopy(t *testing.T) {
	train, _, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	s := train
	p := DefaultDistortion()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	a, err := DistortedCopy(s, p, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(4)
	b, _ := DistortedCopy(s, p, 3, 1)
	c, _ := DistortedCopy(s, p, 3, 2)
	d, _ := DistortedCopy(s, p, 4, 1)
	if !slicesEqual(a.Pix, b.Pix) {
		t.Fatal("the copy depends on GOMAXPROCS")
	}
	if slicesEqual(a.Pix, c.Pix) || slicesEqual(a.Pix, d.Pix) || slicesEqual(a.Pix, s.Pix) {
		t.Fatal("copies, seeds or the originals coincide")
	}
	if a.Rows != s.Rows || a.Cols != s.Cols || a.Len() != s.Len() || !intsEqual(a.Labels, s.Labels) {
		t.Fatal("shape or labels changed")
	}
	for i, v := range a.Pix {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("pixel %d is %v", i, v)
		}
	}
	for _, bad := range []Distortion{
		{Sigma: 0, ScaleMin: 1, ScaleMax: 1},
		{Sigma: 4, Alpha: -1, ScaleMin: 1, ScaleMax: 1},
		{Sigma: 4, ScaleMin: 1.2, ScaleMax: 1},
		{Sigma: 4, ScaleMin: 1, ScaleMax: 1, Rotate: 200},
	} {
		if _, err := DistortedCopy(s, bad, 1, 1); err == nil {
			t.Fatalf("%+v accepted", bad)
		}
	}
}

// FuzzIDXSource: any bytes as an image file with any label file give
// shards or an error, never a panic.
func FuzzIDXSource(f *testing.F) {
	f.Add([]byte{0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8}, []byte{0, 0, 8, 1, 0, 0, 0, 2, 0, 1})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, img, lab []byte) {
		pi, pl := filepath.Join(dir, "i"), filepath.Join(dir, "l")
		if len(img) > 1<<16 || len(lab) > 1<<16 {
			return
		}
		os.WriteFile(pi, img, 0o644)
		os.WriteFile(pl, lab, 0o644)
		src, err := OpenIDXSource([]string{pi}, []string{pl}, Preprocess{})
		if err != nil {
			return
		}
		src.Chunk = 3
		src.Shards(context.Background(), func(sh scn.Shard) error {
			if sh.X.Len()*sh.M != len(sh.T) {
				t.Fatalf("%d images, %d targets", sh.X.Len(), len(sh.T))
			}
			return nil
		})
	})
}
