package dataset

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"sync"
)

// occluderJPEG is the unrelated natural image that Occlude cuts blocks
// from: a photograph of a plush Go gopher on a red table, byte for byte the
// file testdata/go-turns-two-280x360.jpeg of golang.org/x/image v0.47.0. It
// holds no human face, so that pasting it into face images adds no face
// features. See embedded/README.md for its terms.
//
//go:embed embedded/occluder.jpeg
var occluderJPEG []byte

// OccluderSource says where the built-in occluder comes from and under
// what terms.
const OccluderSource = "occluder: testdata/go-turns-two-280x360.jpeg of golang.org/x/image v0.47.0 " +
	"(photograph of a plush Go gopher, 280 x 360, converted to grey), BSD 3-Clause licence, Copyright 2009 The Go Authors; " +
	"the Go gopher was designed by Renee French, Creative Commons 4.0 Attribution licence"

var occluder struct {
	once       sync.Once
	pix        []float32
	rows, cols int
	err        error
}

// Occluder returns the built-in natural image as grey levels in [0, 1]
// (360 x 280, rows x columns). The caller may change the returned slice.
func Occluder() (pix []float32, rows, cols int, err error) {
	occluder.once.Do(func() {
		occluder.pix, occluder.rows, occluder.cols, occluder.err = DecodeImage(bytes.NewReader(occluderJPEG), "embedded/occluder.jpeg")
	})
	if occluder.err != nil {
		return nil, 0, 0, occluder.err
	}
	return append([]float32(nil), occluder.pix...), occluder.rows, occluder.cols, nil
}

// Occlusion says where Occlude put a block: image Image (an index into
// the set) got the Size x Size square whose top left pixel is (Row, Col).
type Occlusion struct {
	Image int `json:"image"`
	Row   int `json:"row"`
	Col   int `json:"col"`
	Size  int `json:"size"`
}

// Occlude returns a copy of s in which k images, chosen at random, each
// get a block x block square at a random place replaced by the matching
// part of the built-in natural image (Occluder), scaled to cover the image
// shape (aspect ratio kept, centred, the overhang cropped); "matching"
// means the same rows and columns. The occlusions are returned in image
// order. The same seed gives the same result.
func Occlude(s *Set, k, block int, seed uint64) (*Set, []Occlusion, error) {
	occ, rows, cols, err := Occluder()
	if err != nil {
		return nil, nil, err
	}
	return OccludeWith(s, k, block, seed, occ, rows, cols, OccluderSource)
}

// OccludeWith is Occlude with another natural image occ (rows x cols grey
// levels in [0, 1]), described by source for the set's provenance.
func OccludeWith(s *Set, k, block int, seed uint64, occ []float32, rows, cols int, source string) (*Set, []Occlusion, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if k < 0 || k > s.Len() {
		return nil, nil, fmt.Errorf("dataset: %d images to occlude in a set of %d", k, s.Len())
	}
	if block < 1 || block > s.Rows || block > s.Cols {
		return nil, nil, fmt.Errorf("dataset: occluding block of %d pixels in images of %d x %d", block, s.Rows, s.Cols)
	}
	if rows < 1 || cols < 1 || len(occ) != rows*cols {
		return nil, nil, fmt.Errorf("dataset: occluder of %d values is not %d x %d", len(occ), rows, cols)
	}
	cover := CoverResize(occ, rows, cols, s.Rows, s.Cols)
	r := rng(seed, 0xe5)
	chosen := r.Perm(s.Len())[:k]
	sort.Ints(chosen)
	out := s.Clone()
	places := make([]Occlusion, len(chosen))
	for j, i := range chosen {
		y0, x0 := r.IntN(s.Rows-block+1), r.IntN(s.Cols-block+1)
		img := out.Image(i)
		for y := y0; y < y0+block; y++ {
			copy(img[y*s.Cols+x0:y*s.Cols+x0+block], cover[y*s.Cols+x0:y*s.Cols+x0+block])
		}
		places[j] = Occlusion{Image: i, Row: y0, Col: x0, Size: block}
	}
	out.Source = fmt.Sprintf("%s; %d images occluded by %d x %d blocks (seed %d; %s)", s.Source, k, block, block, seed, source)
	return out, places, nil
}

// CoverResize scales an image (rows x cols) so that it covers newRows x
// newCols with its aspect ratio kept, and crops the overhang evenly on both
// sides.
func CoverResize(pix []float32, rows, cols, newRows, newCols int) []float32 {
	scale := math.Max(float64(newRows)/float64(rows), float64(newCols)/float64(cols))
	// the scaled size, at least the target (rounding must not leave a gap)
	sr := max(newRows, int(math.Round(float64(rows)*scale)))
	sc := max(newCols, int(math.Round(float64(cols)*scale)))
	big := Resize(pix, rows, cols, sr, sc)
	out := make([]float32, newRows*newCols)
	top, left := (sr-newRows)/2, (sc-newCols)/2
	for y := 0; y < newRows; y++ {
		copy(out[y*newCols:(y+1)*newCols], big[(top+y)*sc+left:(top+y)*sc+left+newCols])
	}
	return out
}
