package scn

import (
	"strings"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// Pooling says how a local node's map is summarised over each region of
// its pool grid: PoolAvg (the mean), PoolMax (the largest value) or
// PoolAvgMax (both).
type Pooling = local.Pooling

// The poolings of local nodes.
const (
	PoolAvg    = local.Avg
	PoolMax    = local.Max
	PoolAvgMax = local.AvgMax
)

// ParsePooling reads a pooling's name: "avg", "max" or "avg+max" ("both").
func ParsePooling(s string) (Pooling, error) { return local.ParsePooling(strings.ToLower(s)) }

// PadSame, as Local.Pad, pads every border by half the filter size (k/2,
// rounded down): an odd filter's map is then as large as the image.
const PadSame = localnet.PadSame

// Local makes the hidden nodes local (convolutional): k x k filters over
// the image's planes, activated and pooled over a grid of regions of their
// maps (internal/localnet's Geometry says the whole: its fields, their
// validation, the hidden outputs they give). A matrix learner's filter is
// separable, u v^T times channel weights; a vector learner's is full.
// Random learners draw every filter; supervised ones choose each block of
// filters by the block form of the supervisory inequality on the pooled
// outputs the filters add (see fit_local.go). The output weights are the
// ridge solution of the block engine (Config.Ridge > 0).
type Local = localnet.Geometry

// LocalSecond is a second layer of local nodes (Local.Second) on the first
// layer's pooled maps (internal/localnet's Second).
type LocalSecond = localnet.Second

// DefaultLocal returns the local nodes scn train --local uses unless told
// otherwise: 256 filters of 5 x 5, stride 1, padded to keep the image's
// size, average pooling over a 3 x 3 grid, two-sided, standardised.
func DefaultLocal() *Local { return localnet.Default() }

// DefaultLocalSecond returns the second layer scn train --local2 uses
// unless told otherwise: 3 x 3 filters on the first layer's maps pooled by
// their maximum over 2 x 2 windows every 2 positions, both layers' pooled
// outputs kept (measured on held-out natural-images, docs/local.md).
func DefaultLocalSecond(filters int) *LocalSecond { return localnet.DefaultSecond(filters) }

// maxLocalFilters bounds Local.Filters.
const maxLocalFilters = localnet.MaxFilters
