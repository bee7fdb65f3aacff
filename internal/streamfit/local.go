package streamfit

import (
	"time"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// FitLocal runs a streamed local fit after its first pass (sc, and the
// planes' means mean and deviations sd ScanLocal gave): the whitening's
// pass with Geometry.Whiten (localnet.StreamWhitening, its time counted
// as lf's draws), then lf's passes, draws and solve (localnet.Fit.Stream)
// over pass, which reads the stream once in row shards. A pass that
// finds fewer images than the first is a cfgerr.DataError.
func FitLocal(lf *localnet.Fit, pass localnet.Pass, sc *Scan, g *localnet.Geometry, mean, sd []float64, seed uint64, f32, bf16 bool) (*localnet.StreamFit, error) {
	var whitening []*local.Whitening
	if g.Whiten {
		t0 := time.Now()
		var err error
		if whitening, err = localnet.StreamWhitening(pass, sc.N, sc.Rows, sc.Cols, sc.Chans, g, mean, sd, seed); err != nil {
			return nil, err
		}
		lf.Prof.Draw += time.Since(t0)
	}
	res, err := lf.Stream(pass, sc.TT, whitening, f32, bf16)
	if short, ok := localnet.IsShortStream(err); ok {
		return nil, cfgerr.Data("%v", short)
	}
	return res, err
}
