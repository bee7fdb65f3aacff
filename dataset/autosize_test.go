package dataset

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func sizesOf(dims ...[2]int) ImageSizes {
	z := ImageSizes{Count: len(dims)}
	for _, d := range dims {
		z.rows, z.cols = append(z.rows, d[0]), append(z.cols, d[1])
	}
	return z
}

func TestWorkingSize(t *testing.T) {
	for _, c := range []struct {
		z          ImageSizes
		chans      int
		max        int64
		rows, cols int
	}{
		// Photos 3:4 and larger than the bound: 48 x 64.
		{sizesOf([2]int{375, 500}, [2]int{333, 500}, [2]int{375, 500}, [2]int{500, 375}, [2]int{768, 1024}), 3, 0, 48, 64},
		// Small images keep their median size (never enlarged).
		{sizesOf([2]int{20, 30}, [2]int{22, 33}, [2]int{24, 36}), 1, 0, 22, 33},
		// Tall images: the longer side is the rows.
		{sizesOf([2]int{200, 100}, [2]int{300, 150}), 1, 0, 64, 32},
		// A memory bound shrinks the size: 3 images x 3 planes x 4 bytes x 4 copies a pixel.
		{sizesOf([2]int{375, 500}, [2]int{375, 500}, [2]int{375, 500}), 3, 144 * 24 * 32, 24, 32},
	} {
		r, k, err := WorkingSize(c.z, c.chans, c.max)
		if err != nil || r != c.rows || k != c.cols {
			t.Errorf("%v %v: %d x %d (%v), want %d x %d", c.z.rows, c.z.cols, r, k, err, c.rows, c.cols)
		}
	}
	if _, _, err := WorkingSize(ImageSizes{}, 1, 0); err == nil {
		t.Error("no images gave a size")
	}
	if _, _, err := WorkingSize(sizesOf([2]int{100, 100}), 1, 100); err == nil {
		t.Error("a memory limit leaving no room gave a size")
	}
}

func writeSized(t *testing.T, p string, rows, cols int, rgb bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var img image.Image
	if rgb {
		m := image.NewRGBA(image.Rect(0, 0, cols, rows))
		m.Set(0, 0, color.RGBA{200, 10, 10, 255})
		img = m
	} else {
		m := image.NewGray(image.Rect(0, 0, cols, rows))
		m.Set(cols/2, rows/2, color.Gray{255})
		img = m
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// A folder of mixed sizes is refused with ErrMixedSizes; its sizes read
// from the headers give a working size that reads it.
func TestFolderImageSizesAndResize(t *testing.T) {
	root := t.TempDir()
	writeSized(t, filepath.Join(root, "a", "1.png"), 30, 40, false)
	writeSized(t, filepath.Join(root, "a", "2.png"), 60, 80, true)
	writeSized(t, filepath.Join(root, "b", "1.png"), 40, 30, false)
	writeSized(t, filepath.Join(root, "b", "2.png"), 30, 40, false)
	if _, err := ReadFolder(root, Preprocess{}); !errors.Is(err, ErrMixedSizes) || !errors.Is(err, ErrFormat) {
		t.Fatalf("mixed sizes: %v", err)
	}
	z, err := FolderImageSizes(root)
	if err != nil {
		t.Fatal(err)
	}
	if z.Count != 4 || z.Distinct != 3 || !z.Colour || z.MinRows != 30 || z.MaxRows != 60 || z.MinCols != 30 || z.MaxCols != 80 {
		t.Fatalf("sizes %+v", z)
	}
	r, c, err := WorkingSize(z, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFolder(root, Preprocess{ResizeRows: r, ResizeCols: c, Fit: "pad"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 4 || s.Rows != r || s.Cols != c || s.Chans() != 3 {
		t.Fatalf("read %d images of %d x %d x %d, want %d x %d x 3", s.Len(), s.Rows, s.Cols, s.Chans(), r, c)
	}
	os.WriteFile(filepath.Join(root, "b", "3.png"), []byte("not a png"), 0o644)
	if _, err := FolderImageSizes(root); !errors.Is(err, ErrFormat) {
		t.Errorf("corrupt image: %v", err)
	}
}
