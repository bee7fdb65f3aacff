package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// The image size of a budget on photos (issue 31, item 5): with
// --budget-probe and without --resize, scn train --budget lets the photo probe (the library's
// scn.Budget.ChoosePhotos) compare the training images at the size it
// read them (their own, or the working size chosen for photos of mixed
// sizes) with a few other sizes of the same aspect, and fits the size
// that wins, recorded in the model's preprocessing (so that eval, predict
// and serve resize new images the same way, and --replay reads the images
// at that size again).
//
// Photos of one size are resized in memory (dataset.Prepare: the same
// pixels a --resize at reading gives), to smaller sizes only
// (photoSmallerSides); photos of mixed sizes are read again from the
// folder at each other size (smaller and larger: photoMixedScales), as the
// working size is read. A size is skipped when its images would not fit
// in the memory left beside the images already read, or, for a folder
// read again, when reading it would take more than photoReadShare of the
// budget at the pace the first reading took.

// photoSmallerSides are the longer sides tried below a uniform set's own
// (besides two thirds of it), largest first.
var photoSmallerSides = []int{64, 32}

// photoMixedScales are the scales of the working size tried on photos of
// mixed sizes.
var photoMixedScales = []float64{1.5, 2.0 / 3, 2}

// photoReadShare bounds the time spent reading a folder again at other
// sizes, as a share of the budget.
const photoReadShare = 0.15

// photoMinSide is the shortest side of a size tried.
const photoMinSide = 12

// photoSize is one size the probe compares: the preprocessing that gives
// it and the set at that size.
type photoSize struct {
	prep dataset.Preprocess
	set  *dataset.Set
}

// photoSizes returns the other sizes a photo budget compares with s, read
// with p (read took readTime), or nil when the image size is not to be
// chosen (--resize given, MNIST normalising or deskewing, an archive).
func (d *dataFlags) photoSizes(s *dataset.Set, p dataset.Preprocess, resizeGiven bool, readTime, total time.Duration, w io.Writer) []photoSize {
	if resizeGiven || p.MNIST || p.Deskew || d.folder == "" || s.IsRegression() || !scn.PhotoImages(s.Rows, s.Cols, s.Chans()) {
		return nil
	}
	if _, _, tar := tarFolder(d.folder); tar {
		return nil
	}
	rows, cols := s.Rows, s.Cols
	side := max(rows, cols)
	mixed := p.ResizeRows > 0
	type size struct{ r, c int }
	var sizes []size
	seen := map[size]bool{{rows, cols}: true}
	add := func(f float64) {
		z := size{int(math.Round(float64(rows) * f)), int(math.Round(float64(cols) * f))}
		if z.r < photoMinSide || z.c < photoMinSide || seen[z] {
			return
		}
		seen[z] = true
		sizes = append(sizes, z)
	}
	if mixed {
		z, err := dataset.FolderImageSizes(d.folder)
		if err != nil {
			return nil
		}
		for _, f := range photoMixedScales {
			if f <= 1 || (float64(rows)*f <= float64(z.MaxRows) && float64(cols)*f <= float64(z.MaxCols)) {
				add(f)
			}
		}
	} else {
		add(2.0 / 3)
		for _, t := range photoSmallerSides {
			if t < side*2/3 {
				add(float64(t) / float64(side))
			}
		}
	}
	var out []photoSize
	limit := currentMemCap().bytes
	have := setBytes(s)
	reads := time.Duration(0)
	for _, z := range sizes {
		bytes := int64(s.Len()) * int64(s.Chans()) * int64(z.r) * int64(z.c) * 4
		if limit > 0 && have+bytes >= limit {
			fmt.Fprintf(w, "budget: images at %d x %d not probed: they would not fit in the memory left\n", z.r, z.c)
			continue
		}
		q := p
		q.ResizeRows, q.ResizeCols, q.Fit = z.r, z.c, "pad"
		var set *dataset.Set
		var err error
		if mixed {
			if reads+readTime > time.Duration(photoReadShare*float64(total)) {
				fmt.Fprintf(w, "budget: images at %d x %d not probed: reading the folder again would take past %.0f%% of the budget\n", z.r, z.c, 100*photoReadShare)
				continue
			}
			t0 := time.Now()
			set, err = d.load("train", q)
			reads += time.Since(t0)
		} else {
			set, err = dataset.Prepare(s, dataset.Preprocess{ResizeRows: z.r, ResizeCols: z.c, Fit: "pad"})
		}
		if err != nil {
			fmt.Fprintf(w, "budget: images at %d x %d not probed: %v\n", z.r, z.c, err)
			continue
		}
		have += bytes
		out = append(out, photoSize{prep: q, set: set})
	}
	return out
}

// choosePhotoSize runs the photo probe on s (read with p) and the other
// sizes, says on w what it chose, and returns the set and preprocessing to
// fit and the choice for scn.Budget.Photo.
func choosePhotoSize(ctx context.Context, b scn.Budget, s *dataset.Set, p dataset.Preprocess, others []photoSize, w io.Writer) (*dataset.Set, dataset.Preprocess, *scn.PhotoChoice, error) {
	prob, err := s.Problem()
	if err != nil {
		return nil, p, nil, err
	}
	ins := []scn.PhotoInput{{Problem: prob, Label: fmt.Sprintf("%d x %d", s.Rows, s.Cols)}}
	for _, o := range others {
		q, err := o.set.Problem()
		if err != nil {
			return nil, p, nil, err
		}
		ins = append(ins, scn.PhotoInput{Problem: q, Label: fmt.Sprintf("%d x %d", o.set.Rows, o.set.Cols)})
	}
	c, err := b.ChoosePhotos(ctx, ins)
	if err != nil {
		return nil, p, nil, err
	}
	if c.Input > 0 {
		o := others[c.Input-1]
		fmt.Fprintf(w, "budget: images resized to %d x %d (the photo probe's choice, recorded in the model)\n", o.set.Rows, o.set.Cols)
		return o.set, o.prep, &c, nil
	}
	return s, p, &c, nil
}

// replayPhotoSize brings the training images s (read with p) to the size
// a photo budget's model src chose, if it chose another: as photoSizes
// made them (in memory for a set of one size, read again for one of mixed
// sizes).
func (d *dataFlags) replayPhotoSize(src *scn.Model, s *dataset.Set, p dataset.Preprocess) (*dataset.Set, dataset.Preprocess, error) {
	r, c := src.Preprocessing.ResizeRows, src.Preprocessing.ResizeCols
	if r <= 0 || (r == s.Rows && c == s.Cols) || src.Local == nil {
		return s, p, nil
	}
	q := p
	q.ResizeRows, q.ResizeCols, q.Fit = r, c, src.Preprocessing.Fit
	if p.ResizeRows > 0 {
		out, err := d.load("train", q)
		return out, q, err
	}
	out, err := dataset.Prepare(s, dataset.Preprocess{ResizeRows: r, ResizeCols: c, Fit: src.Preprocessing.Fit})
	if err != nil {
		return nil, p, err
	}
	return out, q, nil
}

// budgetPhotoSet reports whether a budget on s plans local nodes on photos
// (classification, scn.PhotoImages).
func budgetPhotoSet(s *dataset.Set) bool {
	return !s.IsRegression() && scn.PhotoImages(s.Rows, s.Cols, s.Chans())
}

// addBudgetProbe registers scn train's --budget-probe.
func addBudgetProbe(cmd *cobra.Command) {
	cmd.Flags().Bool("budget-probe", false, "with --budget on photos: first compare, on a sample with a quarter held out, the filter size (3x3, 5x5, 7x7) and without --resize the image size (two thirds of a set's own size and below; larger and smaller sizes of a folder of mixed sizes, read again), each at the filters the plan affords it, and fit the winner when it wins by a standard error (recorded in the model; docs/budget.md); off: 5x5 filters at the size read (the probe cost 5-10 s of a minute and did not win on the sets measured)")
}

// budgetProbeAsked reports whether scn train was given --budget-probe.
func budgetProbeAsked(cmd *cobra.Command) bool {
	v, err := cmd.Flags().GetBool("budget-probe")
	return err == nil && v
}
