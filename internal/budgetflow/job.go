package budgetflow

import (
	"context"
	"errors"
	"time"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/localnet"
)

// ErrBudget is wrapped by the errors of a budget that cannot be met at all
// (scn.ErrBudget).
var ErrBudget = errors.New("scn: budget")

// Budget is what the workflows read of a budget's settings (scn.Budget's:
// the whole duration counted from Start, the clock, the memory bound, the
// rates if measured already, the seed).
type Budget struct {
	Duration          time.Duration
	Start             time.Time
	Now               func() time.Time // nil: time.Now
	MaxBytes          int64
	Rates, LocalRates *budget.Rates
	Seed              uint64
	NodeLimit         int // the most nodes a configuration may have (scn's maxNodes)
	// Photo is the photo probe's choice the caller made (nil: today's
	// plan, or with PhotoProbe the probe run on the set itself).
	Photo      *PhotoChoice
	PhotoProbe bool
}

func (b Budget) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Shape is a training set's shape: N images of Chans planes (as the
// images report them) of Rows x Cols, M outputs.
type Shape struct {
	N, Rows, Cols, Chans, M int
}

// Info is what the workflows read of a configuration.
type Info struct {
	Kind      kind.Kind
	Preset    string
	BlockSize int
	Ridge     float64
	MaxNodes  int
	Seed      uint64
	Local     *localnet.Geometry // nil: global nodes
	Augmented bool               // augmented copies of the images
}

// Configs is what the workflows do with the root's configurations C.
type Configs[C any] interface {
	// Info returns c's settings (its geometry is c's own, not a copy).
	Info(c C) Info
	// Filters returns c with f filters and L_max its pooled outputs: in
	// a copy of c's geometry with clone, otherwise in c's own (which the
	// caller's plan may share).
	Filters(c C, f int, clone bool) C
	// Bytes returns the estimated memory of a fit of c in memory on a
	// set of shape s (scn.Config.Estimate's FitBytes).
	Bytes(c C, s Shape) int64
}

// Global is the global learner's plan a budget chooses for a set (scn's
// budgetChoice): its model selection's settings (scn.Selection's; Ridges
// scn.DefaultRidges where it sets none), whether its fit is staged (one
// pass) rather than block by block, and why it was chosen.
type Global struct {
	Validation float64
	Points     int
	Ridges     []float64
	FitWeights bool
	Staged     bool
	Why        string
}

// Mores, when a ridge choice has scored its first i terms of the grid
// (i >= 1) after done multiply-adds, says whether the next term and the
// refit (next multiply-adds) go ahead (localnet.MoreRidges).
type Mores = localnet.MoreRidges

// Chooser chooses a local fit's ridge term among ridges on the images
// held (train being the rest), the grey way or the photos' way
// (localnet.ChooseRidgeGrey, ChooseRidge), and makes the model's output
// weights every image's at that term, its selection the choice.
type Chooser func(ctx context.Context, train, held []int, ridges []float64, grey bool, more Mores) error

// Job is the training set a budget fits and what the workflows ask of the
// root package over its configurations C and models M.
type Job[C, M any] interface {
	Configs[C]
	// Shape returns the training set's shape.
	Shape() Shape
	// Classify reports whether the set is a classification problem.
	Classify() bool
	// Holdout splits the images idx of the set (nil: all), stratified,
	// with share of them held out, drawn from seed; train and held index
	// idx's order.
	Holdout(idx []int, share float64, seed uint64) (train, held []int, err error)
	// Sized returns c with L_max nodes and the block size.
	Sized(c C, nodes, block int) C

	// Global returns the learner and the plan the budget chooses for the
	// set (scn's budgetChoice); Probe and FitGlobal use them.
	Global() (C, Global)
	// Probe measures the machine's rates with the global learner's probe
	// fit (scn.Calibrate).
	Probe(ctx context.Context) (budget.Rates, error)
	// FitGlobal fits the global learner as pl says with model selection:
	// checkpoint is called after every block with its nodes and a scoring
	// of the checkpoint on the held-out images, and stops the fit when it
	// returns true; a staged fit's stages are sized by stage. It returns
	// the model, the nodes fitted and the fit's own stop.
	FitGlobal(ctx context.Context, pl budget.Plan, checkpoint func(l int, score func() (acc, rmse float64, ok bool)) bool, stage func(done int) int) (m M, fitNodes int, stop string, err error)

	// Photo returns the presets' photo configuration for the set (the
	// default preset's at the budget's seed, scn.Config.ForPhotos), false
	// when local nodes do not apply.
	Photo() (C, bool)
	// ChoosePhotos runs the photo probe on the set alone, named label.
	ChoosePhotos(ctx context.Context, label string) (PhotoChoice, error)
	// Grey returns the local configuration a budget plans on grey images
	// with f filters.
	Grey(f int) C
	// Accuracy fits c on the training images train of the sample idx of
	// the set without model selection and returns its accuracy on the
	// sample's held images.
	Accuracy(ctx context.Context, c C, idx, train, held []int) (float64, error)
	// Sample returns a fit without model selection on the images idx of
	// the set (a probe fit; the sample is taken once, before the fits are
	// timed).
	Sample(idx []int) func(ctx context.Context, c C) error
	// FitLocal fits the local configuration c: stop (nil: never), called
	// between blocks of filters with the filters drawn, ends the fit with
	// them. choose chooses its ridge term afterwards.
	FitLocal(ctx context.Context, c C, stop func(filters int) bool) (m M, choose Chooser, err error)
	// Nodes returns m's nodes, and the ridge terms its selection scored.
	Nodes(m M) (nodes, scored int)
	// Done writes the budget's record into m, and that the clock stopped
	// the fit when spent.
	Done(m M, rec *budget.Record, spent bool)
}
