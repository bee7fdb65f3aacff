package localplan

import "github.com/scn2d/scn/internal/localnet"

// PhotoSide is the side past which grey images count as photos: images of
// more than PhotoSide x PhotoSide pixels.
const PhotoSide = 40

// PhotoImages reports whether the presets treat images of rows x cols
// with chans planes as photos: colour (chans >= 2) or more pixels than 40
// x 40.
func PhotoImages(rows, cols, chans int) bool {
	return chans >= 2 || rows*cols > PhotoSide*PhotoSide
}

// FilterSteps are the filter counts Filters chooses among, largest first;
// Work is the work it allows a default fit (the cost model's units, about
// a multiply-add each).
var FilterSteps = []int{256, 192, 128, 96, 64, 48, 32}

// Work is the work Filters allows a default fit.
const Work = 1e11

// Cost estimates the multiply-adds of a local fit of f filters of l
// (stride 1, padded to the image's size) on n images of rows x cols x
// chans: the filters over every position (C k^2 each), the Gram sums of
// the pooled outputs (n L^2) and their Cholesky factor (L^3 / 3).
func Cost(l *localnet.Geometry, f, n, rows, cols, chans int) float64 {
	k := float64(l.Sizes[0])
	outs := float64(f * l.PerFilter())
	return float64(n)*float64(rows*cols)*float64(chans)*k*k*float64(f) + float64(n)*outs*outs + outs*outs*outs/3
}

// Filters returns the filters per size of the presets' photo choice for
// n training images of rows x cols with chans planes (scn.PhotoFilters):
// the largest of FilterSteps whose Cost with the default geometry is at
// most Work, at least the last, and at most what keeps the pooled outputs
// within 64 per training image.
func Filters(n, rows, cols, chans int) int {
	l := localnet.Default()
	chans = max(chans, 1)
	f := FilterSteps[len(FilterSteps)-1]
	for _, s := range FilterSteps {
		if Cost(l, s, n, rows, cols, chans) <= Work {
			f = s
			break
		}
	}
	if most := 64 * n / l.PerFilter(); f > most {
		f = max(1, most)
	}
	return f
}
