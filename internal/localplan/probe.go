package localplan

import (
	"math"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// The grey budget's probe of local against global nodes
// (internal/budgetflow's grey.go).
const (
	GreyMinSide      = 20
	GreyMinImages    = 500
	GreyProbeImages  = 3000
	GreyProbeHeld    = 0.25
	GreyProbeFilters = 32
	GreyProbeNodes   = 2000
	GreyProbeShare   = 0.15
	GreyRidge        = 10
	// GreyProbeWorkPace is how much slower the probe's multiply-adds are
	// taken to run than a timed Cholesky factor's: on Fashion-MNIST at
	// load 6.5 on two cores the probe took 1.2 s, the model at a pace of 4
	// predicted 10 s (and skipped it in a 60 s budget), at 1 about 2.5 s.
	GreyProbeWorkPace = 1
)

// GreyGeometry returns the local nodes a budget plans on grey images with
// f filters: the default geometry (5 x 5 filters) with average and max
// pooling beside each other.
func GreyGeometry(f int) *localnet.Geometry {
	l := localnet.Default()
	l.Filters = f
	l.Pooling = local.AvgMax
	return l
}

// GreyProbeWork returns the modelled multiply-adds of the grey probe on n
// images of rows x cols: both fits (GreyProbeFilters local filters,
// GreyProbeNodes global nodes) on the training part and the held-out
// images' outputs.
func GreyProbeWork(n, rows, cols int) float64 {
	l := GreyGeometry(GreyProbeFilters)
	local := Cost(l, GreyProbeFilters, n, rows, cols, 1)
	g := float64(GreyProbeNodes)
	global := float64(n)*float64(rows*cols)*g + float64(n)*g*g/2 + g*g*g/3
	return local + global
}

// The photo budget's probe of filter and image sizes
// (internal/budgetflow's photo.go).
const (
	PhotoProbeMinImages = 200
	PhotoProbeSample    = 1000
	PhotoProbeHeld      = 0.25
	PhotoProbeBase      = 64
	PhotoProbeMost      = 256
	// PhotoProbeShare bounds the probe's modelled time, and its clock,
	// as a share of the time left when it starts.
	PhotoProbeShare = 0.2
	// PhotoProbeWorkPace is how much slower the probe's multiply-adds are
	// taken to run than a timed Cholesky factor's (the probe's fits are
	// small; the filters' products run below the factor's rate).
	PhotoProbeWorkPace = 2
	// DefaultSize is the filter side of today's photo plan.
	DefaultSize = 5
)

// PhotoProbeSizes are the filter sides the photo probe tries besides
// DefaultSize, in order.
var PhotoProbeSizes = []int{3, 7}

// ProbeFilters returns the filters of a photo probe candidate whose plan
// affords f filters where today's affords base: PhotoProbeBase times f
// over base, at least FilterStep, at most PhotoProbeMost.
func ProbeFilters(f, base int) int {
	return min(PhotoProbeMost, max(FilterStep, int(math.Round(float64(PhotoProbeBase)*float64(f)/float64(base)))))
}

// PairedWin reports whether a classifies more of the same held-out images
// correctly than b by more than one standard error of the paired
// difference: wins - losses > sqrt(wins + losses).
func PairedWin(a, b []bool) bool {
	wins, losses := 0, 0
	for i := range a {
		switch {
		case a[i] && !b[i]:
			wins++
		case b[i] && !a[i]:
			losses++
		}
	}
	return wins > losses && float64(wins-losses) > math.Sqrt(float64(wins+losses))
}

// The rate probe of a budget's local plan (scn's budget_local.go): two
// fits, of RateProbeFilters and three times as many filters, on at most
// RateProbeImages of the images.
const (
	RateProbeImages  = 1000
	RateProbeFilters = 16
)

// RateProbeSample returns the rate probe's images of a set of n: at most
// RateProbeImages of them, evenly spaced, in increasing order.
func RateProbeSample(n int) []int {
	m := min(n, RateProbeImages)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i * n / m
	}
	return idx
}
