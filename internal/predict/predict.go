package predict

import (
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/par"
)

// Net is what Predict reads of a one-layer model of global nodes.
type Net struct {
	// Vector says the nodes are vector nodes (rows of Params of the
	// image's size); else they are matrix nodes of NP parameters each on
	// Ch planes (Ch >= 1) of Rows x Cols.
	Vector         bool
	Rows, Cols, Ch int
	NP             int
	M              int // outputs
	Act            node.Activation
	Params         []float32
	Bias           []float32
	Beta           []float64 // L x M
	// DirectPool and DirectBeta are the direct links (pooling side and
	// D x M weights of D = DirectDim features; DirectPool 0 without).
	DirectPool, DirectDim int
	DirectBeta            []float64
	// Batch is the images of one pass, Chunk the nodes scored at a time.
	Batch, Chunk int
}

// Scratch is the working memory of one Predict call, kept for the next: a
// server's many small calls would otherwise allocate and clear it every
// time. Every value used is written before it is read: the scoring kernels
// write h, the loop h64, Dgemm (with beta 0 on the first chunk) yt.
type Scratch struct {
	h   []float32 // a chunk's node inputs, then outputs, node-major
	hc  []float32 // one channel's u^T X_c v (models of several channels)
	h64 []float64
	yt  []float64 // the outputs, M x rows
	fd  []float64 // direct features, D x rows (models with direct links)
}

// Scratch returns sc if it is large enough for a call on n images, else a
// new one that is.
func (m *Net) Scratch(sc *Scratch, n int) *Scratch {
	batch, chunk := min(n, m.Batch), min(len(m.Bias), m.Chunk)
	if sc == nil || len(sc.h) < chunk*batch || len(sc.yt) < m.M*batch {
		sc = &Scratch{h: make([]float32, chunk*batch), h64: make([]float64, chunk*batch), yt: make([]float64, m.M*batch)}
	}
	return sc
}

// Predict returns the network's outputs on the n images x of d values each
// (checked by the caller), N x M row-major; sc comes from m.Scratch. Each
// image's outputs are the same bits whatever other images share its pass.
func (m *Net) Predict(x direct.Images, n, d int, sc *Scratch) []float64 {
	l := len(m.Bias)
	out := make([]float64, n*m.M)
	np := m.NP
	act := m.Act
	for lo := 0; lo < n; lo += m.Batch {
		rows := min(m.Batch, n-lo)
		xb := x.Pix[lo*d : (lo+rows)*d]
		yt := sc.yt[:m.M*rows]
		for j0 := 0; j0 < l; j0 += m.Chunk {
			c := min(m.Chunk, l-j0)
			hb := sc.h[:c*rows]
			switch {
			case m.Vector:
				linalg.ScoreNT(c, rows, d, m.Params[j0*d:], xb, hb, rows)
			case m.Ch > 1:
				sc.hc = lsq.Grow(sc.hc, c*rows)
				node.Matrix{Rows: m.Rows, Cols: m.Cols, Ch: m.Ch}.Score(c, rows, m.Params[j0*np:], xb, hb, sc.hc)
			default:
				linalg.Score2D(c, rows, m.Rows, m.Cols, m.Params[j0*np:], np, xb, hb, rows)
			}
			par.Chunks(c, 16, func(_, a, b int) {
				for j := a; j < b; j++ {
					act.Apply(hb[j*rows:(j+1)*rows], m.Bias[j0+j])
				}
			})
			hd := sc.h64[:c*rows]
			for i, v := range hb {
				hd[i] = float64(v)
			}
			// Y^T += beta_chunk^T H_chunk^T in float64.
			beta0 := 1.0
			if j0 == 0 {
				beta0 = 0
			}
			linalg.Dgemm(true, false, m.M, rows, c, 1, m.Beta[j0*m.M:], m.M, hd, rows, beta0, yt, rows)
		}
		if l == 0 {
			clear(yt)
		}
		if m.DirectPool > 0 {
			AddDirect(x, m.DirectPool, m.DirectDim, m.M, m.DirectBeta, lo, rows, yt, &sc.fd)
		}
		for q := 0; q < m.M; q++ {
			for i, v := range yt[q*rows : (q+1)*rows] {
				out[(lo+i)*m.M+q] = v
			}
		}
	}
	return out
}

// AddDirect adds the outputs of direct links (pool, dim features, weights
// w, dim x mm) on images lo .. lo+rows-1 of x to yt (mm x rows), with fd
// as scratch.
func AddDirect(x direct.Images, pool, dim, mm int, w []float64, lo, rows int, yt []float64, fd *[]float64) {
	*fd = lsq.Grow(*fd, dim*rows)
	direct.Features(x, pool, lo, rows, *fd)
	linalg.Dgemm(true, false, mm, rows, dim, 1, w, mm, *fd, rows, 1, yt, rows)
}
