package scn

import (
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/localplan"
)

// The presets' photo policy (issue 31, item 6). Default(k) and Fast(k) are
// the presets' configurations for any data and stay exactly as they are;
// ForPhotos is the choice scn train makes once it knows the training
// images: on photos (colour, or larger than 40 x 40) the default and fast
// presets fit 2DRVFL with local (convolutional) nodes, whose random
// separable 5 x 5 filters, pooled, beat every global learner there
// (docs/local.md: natural-images 92.45% at 128 filters against 78.21% for
// the default 2DSCN; hymenoptera at 64 x 64 72.55% at 256 filters against
// 62.09%). Small grey images (digits) keep the preset's global nodes.

// PhotoImages reports whether the presets treat images of rows x cols
// with chans planes as photos: colour (chans >= 2) or more pixels than 40
// x 40 (localplan.PhotoImages).
func PhotoImages(rows, cols, chans int) bool { return localplan.PhotoImages(rows, cols, chans) }

// PhotoFilters returns the filters per size PhotoLocal gives n training
// images of rows x cols with chans planes: the largest of 256, 192, 128,
// 96, 64, 48 and 32 whose estimated work (the filters over every position
// of every image, the Gram sums and the Cholesky factor of the pooled
// outputs) is at most 1e11 multiply-adds, about five seconds of one core
// with the project's kernels (natural-images, 5522 colour images of 30 x
// 30: 128 filters, 4.6 s of CPU measured; hymenoptera at 64 x 64, 245
// images: 256), at least 32, and at most what keeps the pooled outputs
// within 64 per training image (scn train's limit for random learners;
// localplan.Filters).
func PhotoFilters(n, rows, cols, chans int) int { return localplan.Filters(n, rows, cols, chans) }

// PhotoLocal returns the local nodes of the presets' photo choice for n
// training images of rows x cols with chans planes: DefaultLocal's
// geometry (5 x 5 filters, stride 1, padded to the image's size, average
// pooling over a 3 x 3 grid, two-sided, standardised; measured best on
// natural-images, docs/local.md) with PhotoFilters filters, drawn in the
// space of whitened patches (Whiten, eps PhotoWhitenEps).
//
// Whitening was chosen on held-out images: split from the training sets,
// it gained on every set measured at the same CPU (natural-images 93.14 ->
// 94.11% over 3 seeds, hymenoptera 66.7 -> 73.6%, Fashion-MNIST 87.89 ->
// 88.42%), and on faces under strong lighting changes it is what keeps the
// local nodes ahead of a linear model: on bench/ridge's orl-light (75
// training faces) 87.60 -> 93.27% against 90.80% for a ridge classifier
// on the pixels. On natural-images' own test set it is level (92.11 ->
// 91.94%); docs/local.md has the measurements.
func PhotoLocal(n, rows, cols, chans int) *Local {
	l := DefaultLocal()
	l.Filters = PhotoFilters(n, rows, cols, chans)
	l.Whiten, l.WhitenEps = true, PhotoWhitenEps
	return l
}

// PhotoWhitenEps is the whitening's regulariser in the presets' photo
// choice (Coates, Lee & Ng's value, in units of the standardised planes'
// variance; scn train --whiten-eps defaults to it).
const PhotoWhitenEps = 0.1

// PhotoRidge is the ridge term of the presets' photo choice (the pooled
// outputs are standardised; 10, 100 and 1000 gave 92.37%, 93.17% and
// 92.37% on natural-images).
const PhotoRidge = 100

// ForPhotos returns the configuration the default or fast preset fits on
// n training images of rows x cols with chans planes, and whether it
// departs from c. When c is the default or fast preset's configuration
// (c.Preset "default" or "fast", global nodes, one layer) and the images
// are photos (PhotoImages), the choice is 2DRVFL with local nodes
// (PhotoLocal), ReLU, scale 1, ridge PhotoRidge and none of the global
// nodes' options (receptive fields, difference nodes, Standardize, pairs),
// the Gram settings of the preset's 2DRVFL, L_max the pooled outputs; the
// seed and the preset's name are kept. It is the configuration scn train
// --model 2drvfl --local 5x5 --filters F gives under the same preset. On
// other images, on images the local nodes cannot be applied to, and for
// any other configuration (the paper's preset, custom settings, local
// nodes, layers or direct links already) c is returned as it is, so small grey images
// keep the preset's choice exactly. Model selection (Config.Select) with
// the returned configuration chooses the ridge term only (LocalRidges);
// scn train fits it without selection unless asked.
func (c Config) ForPhotos(n, rows, cols, chans int) (Config, bool) {
	if (c.Preset != "default" && c.Preset != "fast") || c.Local != nil || len(c.Layers) > 0 || c.DirectLink ||
		n < 1 || rows < 1 || cols < 1 || !PhotoImages(rows, cols, chans) {
		return c, false
	}
	l := PhotoLocal(n, rows, cols, chans)
	if l.ForImages(rows, cols, chans) != nil {
		return c, false
	}
	p := Default(RVFL2D)
	if c.Preset == "fast" {
		p = Fast(RVFL2D)
	}
	p.Seed = c.Seed
	p.Local = l
	p.Activation = ReLU
	p.Ridge = PhotoRidge
	p.Scales = []float64{1}
	p.FieldMin, p.FieldMax = 0, 0
	p.Differences, p.Standardize, p.Pairs = false, false, false
	p.BF16Gram = linalg.BF16Available
	p.MaxNodes = l.Outputs()
	p.Augment = c.Augment.clone()
	return p, true
}
