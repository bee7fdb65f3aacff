package direct

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// Direct links (scn.Config.DirectLink, scn.Model.Direct).
//
// A model with direct links has an output layer that reads the hidden
// outputs H and the input features F together, as Pao's original random
// vector functional-link network does (and edRVFL, scikit-elm's
// include_original_features):
//
//	f(X) = sum_j beta_j g(a_j(X)) + W^T phi(X)
//
// phi(X) is the preprocessed image itself, vec(X) (C*d1*d2 values, the order
// of Images.Pix), or, when the images are many and large (see Plan),
// its average over p x p blocks of each plane ("pooled pixels": C x
// floor(d1/p) x floor(d2/p) values, the blocks' remainder rows and columns
// dropped, as an AveragePool of kernel and stride p without padding; the
// features, their plan and the pure solves are this package's). The
// output weights [beta; W] are the ridge (or, with no ridge term, the
// minimum-norm) least squares over [H F]: the hidden nodes are chosen as
// without direct links, and only the last solve changes. With ridge alpha
// the solve is the primal (H^T H ...)-sized system of L + D unknowns when
// L + D <= N, or its dual, (F F^T + H H^T + alpha I) A = T with [beta; W] =
// [H F]^T A, an N x N system, when the images are fewer than the unknowns
// (faces: N = 200, D = 10304): the two are the same solution.
//
// The generalization indicator (Model.Indicator) treats each direct feature
// as a linear node: its slope is 1 on every image and its weight is the
// averaging vector of its block (norm 1/p; 1 for the pixels themselves),
// so the direct part adds N * D / p^2 to ||g'(H) o W||_F^2, and the output
// weights' norm is that of [beta; W].

// Link holds a model's direct links from the input to the outputs.
type Link struct {
	// Pool is the side p of the blocks averaged into one feature: 1 reads
	// the pixels themselves.
	Pool int
	// Beta holds the features' output weights, D x M row-major (D =
	// Model.DirectDim()).
	Beta []float64
}

// IndicatorTerm returns the direct part of the generalization indicator's
// first factor squared for n images and d features, n * d / p^2, and the
// squared norm of the direct weights.
func (l *Link) IndicatorTerm(n, d int) (slope2, w2 float64) {
	for _, v := range l.Beta {
		w2 += v * v
	}
	p := float64(l.Pool)
	return float64(n) * float64(d) / (p * p), w2
}

// ToFile returns the model file header's direct field of l for images of
// chans planes of rows x cols, nil for nil.
func ToFile(l *Link, chans, rows, cols int) *modelfile.Direct {
	if l == nil {
		return nil
	}
	return &modelfile.Direct{Pool: l.Pool, Features: Dim(chans, rows, cols, l.Pool)}
}

// FromFile checks a header's direct field against the rest of it and
// returns the direct links it describes, without weights (nil when it has
// none).
func FromFile(h *modelfile.Header) (*Link, error) {
	f := h.Direct
	if f == nil {
		if h.Config.DirectLink {
			return nil, fmt.Errorf("%w: configuration with direct links but no direct-link weights", modelfile.ErrFormat)
		}
		return nil, nil
	}
	if !h.Config.DirectLink {
		return nil, fmt.Errorf("%w: direct-link weights without the configuration's direct_link", modelfile.ErrFormat)
	}
	switch {
	case len(h.Deep) > 0:
		return nil, fmt.Errorf("%w: direct links on a deep model", modelfile.ErrFormat)
	case f.Pool < 1 || f.Pool > min(h.Rows, h.Cols):
		return nil, fmt.Errorf("%w: direct links pooled by %d on %d x %d images", modelfile.ErrFormat, f.Pool, h.Rows, h.Cols)
	case f.Features != Dim(h.Channels, h.Rows, h.Cols, f.Pool):
		return nil, fmt.Errorf("%w: %d direct features, the shapes and pool give %d", modelfile.ErrFormat, f.Features, Dim(h.Channels, h.Rows, h.Cols, f.Pool))
	case float64(f.Features)*float64(h.Outputs) > modelfile.MaxValues:
		return nil, fmt.Errorf("%w: direct links too large", modelfile.ErrFormat)
	}
	return &Link{Pool: f.Pool}, nil
}

// Append appends l's weights to a model file's payload b (nothing for
// nil).
func Append(b []byte, l *Link) []byte {
	if l == nil {
		return b
	}
	return modelfile.AppendFloat64s(b, l.Beta)
}
