// Package perf measures where a fit's time goes: time per node split into
// scoring, selection and orthogonalisation, the rates of those parts, peak
// memory, prediction throughput, and the speed-up over the plain reference
// implementation (a pseudo-inverse per node, one candidate at a time)
// measured in the same run on a smaller problem. The scn command's "bench"
// subcommand prints its report.
package perf

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
	"github.com/scn2d/scn/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// Options says what to measure.
type Options struct {
	Kind  scn.Kind
	Train scn.Problem // if it has no images, Synthetic gives N random images
	N     int         // synthetic images (default 5000)
	Rows  int         // synthetic image shape (default 28 x 28)
	Cols  int
	Nodes int // L (default 300)
	Seed  uint64
	// RefN and RefNodes size the problem on which the reference and the
	// fast builder are both timed (default 1000 images, 30 nodes; 0 nodes
	// skips the reference).
	RefN, RefNodes int
}

// Report holds the measured figures.
type Report struct {
	Backend              string
	N, Rows, Cols, Nodes int
	Wall                 time.Duration
	Profile              scn.Profile
	PeakRSS              int64 // bytes, VmHWM of the process (0 if unknown)
	DataBytes            int64 // images as float32 plus the N x L float64 factor
	ScoreGFLOPS          float64
	ScoreGBps            float64
	OrthoGBps            float64
	PredictPerSec        float64
	RefPerNode           time.Duration
	FastPerNode          time.Duration
	RefN, RefNodes       int
	// ReadGBps is the machine's streaming read bandwidth, measured in the
	// same run on all GOMAXPROCS threads; BoundSeconds is the time a
	// supervised fit needs at that rate just to read the images once per
	// batch of candidates and Q twice per node (0 for random learners).
	ReadGBps     float64
	BoundSeconds float64
}

// Synthetic returns n random images of rows x cols in 10 classes: a class
// prototype plus noise, in [0, 1].
func Synthetic(n, rows, cols int, seed uint64) scn.Problem {
	rng := rand.New(rand.NewPCG(seed, 11))
	d := rows * cols
	proto := make([]float64, 10*d)
	for i := range proto {
		proto[i] = rng.Float64()
	}
	pix := make([]float32, n*d)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 10
		for j := 0; j < d; j++ {
			v := proto[labels[i]*d+j] + 0.4*rng.NormFloat64()
			pix[i*d+j] = float32(min(1, max(0, v)))
		}
	}
	names := strings.Split("0 1 2 3 4 5 6 7 8 9", " ")
	p, err := scn.Classification(scn.Images{Rows: rows, Cols: cols, Pix: pix}, labels, names)
	if err != nil {
		panic(err) // the synthetic set is valid by construction
	}
	return p
}

func (o *Options) defaults() {
	if o.N == 0 {
		o.N = 5000
	}
	if o.Rows == 0 || o.Cols == 0 {
		o.Rows, o.Cols = 28, 28
	}
	if o.Nodes == 0 {
		o.Nodes = 300
	}
	if o.RefN == 0 {
		o.RefN = 1000
	}
}

// Run measures a fit as o says.
func Run(ctx context.Context, o Options) (*Report, error) {
	o.defaults()
	p := o.Train
	if p.X.Len() == 0 {
		p = Synthetic(o.N, o.Rows, o.Cols, o.Seed)
	}
	n, d := p.X.Len(), p.X.Dim()
	cfg := scn.Paper(o.Kind)
	cfg.MaxNodes, cfg.Seed = o.Nodes, o.Seed
	start := time.Now()
	m, err := cfg.Fit(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	r := &Report{
		Backend: linalg.Backend(), N: n, Rows: p.X.Rows, Cols: p.X.Cols, Nodes: m.Nodes(),
		Wall: time.Since(start), Profile: m.Summary.Profile, PeakRSS: peakRSS(),
		DataBytes: int64(n)*int64(d)*4 + int64(n)*int64(m.Nodes())*8,
	}
	pr := r.Profile
	if s := pr.Scoring.Seconds(); s > 0 {
		r.ScoreGFLOPS = 2 * float64(pr.Products) * float64(n) * float64(d) / s / 1e9
		r.ScoreGBps = float64(pr.Batches) * float64(n) * float64(d) * 4 / s / 1e9
	}
	if s := pr.Ortho.Seconds(); s > 0 {
		l := float64(m.Nodes())
		r.OrthoGBps = 3 * 8 * float64(n) * l * (l - 1) / 2 / s / 1e9
	}
	r.ReadGBps = readBandwidth()
	if o.Kind.Choice == scn.Supervised && r.ReadGBps > 0 {
		l := float64(m.Nodes())
		bytes := float64(pr.Batches)*float64(n)*float64(d)*4 + 2*8*float64(n)*l*(l-1)/2
		r.BoundSeconds = bytes / (r.ReadGBps * 1e9)
	}
	t0 := time.Now()
	if _, err := m.Predict(p.X); err != nil {
		return nil, err
	}
	r.PredictPerSec = float64(n) / time.Since(t0).Seconds()
	if o.RefNodes > 0 {
		if err := r.reference(ctx, o); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// reference times the reference and the fast builder on the same small problem.
func (r *Report) reference(ctx context.Context, o Options) error {
	p := Synthetic(o.RefN, o.Rows, o.Cols, o.Seed)
	cfg := scn.Paper(o.Kind)
	cfg.MaxNodes, cfg.Seed = o.RefNodes, o.Seed
	m, err := cfg.Fit(ctx, p, nil)
	if err != nil {
		return err
	}
	r.FastPerNode = m.Summary.Duration / time.Duration(m.Nodes())
	d := p.X.Dim()
	x := make([][]float64, p.X.Len())
	for i := range x {
		x[i] = make([]float64, d)
		for j, v := range p.X.Image(i) {
			x[i][j] = float64(v)
		}
	}
	s := reference.Settings{
		MaxNodes: o.RefNodes, Candidates: cfg.Candidates, Scales: cfg.Scales, Ratios: cfg.Ratios,
		PinvScale: 1, Seed: o.Seed,
	}
	if o.Kind.Input == scn.Matrix {
		s.Rows, s.Cols = p.X.Rows, p.X.Cols
	}
	t0 := time.Now()
	rmse, _ := reference.Fit(s, x, mat.NewDense(p.X.Len(), p.M, p.T))
	if len(rmse) == 0 {
		return fmt.Errorf("perf: the reference added no node")
	}
	r.RefPerNode = time.Since(t0) / time.Duration(len(rmse))
	r.RefN, r.RefNodes = o.RefN, len(rmse)
	return nil
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	pr := r.Profile
	per := func(d time.Duration) string {
		return fmt.Sprintf("%.3f ms/node", float64(d.Microseconds())/1e3/float64(max(r.Nodes, 1)))
	}
	other := r.Wall - pr.Draw - pr.Scoring - pr.Selection - pr.Ortho - pr.Solve
	fmt.Fprintf(tw, "build\t%s, GOMAXPROCS=%d, %s/%s\n", r.Backend, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(tw, "problem\tN=%d, %dx%d, L=%d\n", r.N, r.Rows, r.Cols, r.Nodes)
	fmt.Fprintf(tw, "wall time\t%.2f s (%s)\n", r.Wall.Seconds(), per(r.Wall))
	fmt.Fprintf(tw, "  scoring X W^T + g\t%s\t%.1f GFLOP/s, %.1f GB/s of images, %d batches\n", per(pr.Scoring), r.ScoreGFLOPS, r.ScoreGBps, pr.Batches)
	fmt.Fprintf(tw, "  selection E^T H\t%s\n", per(pr.Selection))
	fmt.Fprintf(tw, "  orthogonalisation\t%s\t%.1f GB/s of Q (3 passes)\n", per(pr.Ortho), r.OrthoGBps)
	fmt.Fprintf(tw, "  drawing candidates\t%s\n", per(pr.Draw))
	fmt.Fprintf(tw, "  final solve\t%s\n", per(pr.Solve))
	fmt.Fprintf(tw, "  other\t%s\n", per(other))
	if r.PeakRSS > 0 {
		fmt.Fprintf(tw, "peak memory\t%.0f MB = %.2f x data (images + N x L factor: %.0f MB)\n",
			float64(r.PeakRSS)/1e6, float64(r.PeakRSS)/float64(r.DataBytes), float64(r.DataBytes)/1e6)
	}
	if r.BoundSeconds > 0 {
		fmt.Fprintf(tw, "memory bound\t%.2f s: images once per batch, Q twice per node, at %.1f GB/s (read bandwidth measured now); wall time = %.2f x bound\n",
			r.BoundSeconds, r.ReadGBps, r.Wall.Seconds()/r.BoundSeconds)
	}
	fmt.Fprintf(tw, "prediction\t%.0f images/s\n", r.PredictPerSec)
	if r.RefPerNode > 0 {
		fmt.Fprintf(tw, "reference\tN=%d, L=%d: %.1f ms/node vs %.3f ms/node here: %.0fx faster\n",
			r.RefN, r.RefNodes, float64(r.RefPerNode.Microseconds())/1e3, float64(r.FastPerNode.Microseconds())/1e3,
			float64(r.RefPerNode)/float64(r.FastPerNode))
	}
	return tw.Flush()
}

// peakRSS returns the process's peak resident memory from /proc, or 0.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// readBandwidth measures the streaming read bandwidth in GB/s: the best of
// three reads of a 1 GiB buffer (four times the largest last-level caches
// seen here), split over GOMAXPROCS goroutines, through the same float64
// kernel the orthogonalisation uses.
func readBandwidth() float64 {
	const row = 2048
	const rows = 1 << 16 // 2048 * 65536 * 8 bytes = 1 GiB
	buf := make([]float64, row*rows)
	x := make([]float64, row)
	for i := range x {
		x[i] = 1
	}
	workers := runtime.GOMAXPROCS(0)
	// Touch every page first: unwritten pages all map the zero page and
	// would read from cache.
	parallelRows(rows, workers, func(lo, hi int) {
		for i := lo * row; i < hi*row; i++ {
			buf[i] = 1
		}
	})
	best := time.Duration(math.MaxInt64)
	for rep := 0; rep < 3; rep++ {
		t0 := time.Now()
		parallelRows(rows, workers, func(lo, hi int) {
			var out [4]float64
			for g := lo; g+4 <= hi; g += 4 {
				kernel.DotRows4(buf[g*row:], row, x, row, &out)
			}
		})
		best = min(best, time.Since(t0))
	}
	return float64(len(buf)*8) / best.Seconds() / 1e9
}

// parallelRows calls f on workers slices of [0, rows) at once, each a
// multiple of four rows (a tail of fewer than four rows is left out).
func parallelRows(rows, workers int, f func(lo, hi int)) {
	chunk := max(4, ((rows+workers-1)/workers+3)&^3)
	par.ChunksOn(workers, rows&^3, chunk, func(_, lo, hi int) { f(lo, hi) })
}
