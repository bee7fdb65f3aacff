package direct

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

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
