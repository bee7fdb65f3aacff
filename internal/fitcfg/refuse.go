package fitcfg

import (
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/cfgerr"
)

// ErrLocalPath is the refusal of a path (selection, budget) of local
// nodes, which only scn.Config.Fit fits so far.
var ErrLocalPath = fmt.Errorf("%w: local nodes are fitted by Fit only (no path, selection or budget yet)", cfgerr.ErrConfig)

// DeepPath reports why a deep network cannot be fitted as a path: with a
// check (model selection and budgets choose prefixes of one layer), or
// on images of chans > 1 planes (the deep predictor scores the first
// layer plane by plane for grey images only, so far).
func DeepPath(check bool, chans int) error {
	if check {
		return fmt.Errorf("%w: model selection and budgets choose prefixes of one layer", ErrDeep)
	}
	if chans > 1 {
		return fmt.Errorf("%w: images of %d channels (the first layer of a deep model takes grey images)", ErrDeep, chans)
	}
	return nil
}

// FastFieldMin and FastFieldMax are the fast preset's receptive-field
// sides for 28 x 28 images.
const (
	FastFieldMin = 5
	FastFieldMax = 27
)

// FieldsForImages returns the receptive-field sides of the fast preset
// scaled to images of rows x cols (scn.Config.ForImages): min(rows, cols)
// / 28 times, at least 2, at most the image; ok is false (and the sides
// are to be kept) for fields that were not the preset's or an empty image.
func FieldsForImages(fieldMin, fieldMax, rows, cols int) (lo, hi int, ok bool) {
	if fieldMin != FastFieldMin || fieldMax != FastFieldMax || rows < 1 || cols < 1 {
		return fieldMin, fieldMax, false
	}
	side := float64(min(rows, cols))
	lo = max(2, int(math.Round(FastFieldMin*side/28)))
	hi = max(lo, min(int(side), int(math.Round(FastFieldMax*side/28))))
	return lo, hi, true
}
