package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/scn2d/scn/internal/par"
	"github.com/scn2d/scn/report"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"
)

// Distribution is the law P of the entries of E6's random vectors.
type Distribution int

const (
	// Uniform is the uniform law on [-1, 1] (the paper's case 1).
	Uniform Distribution = iota
	// Normal is the standard normal law (the paper's case 2).
	Normal
)

// String names the law.
func (p Distribution) String() string {
	if p == Normal {
		return "standard normal"
	}
	return "uniform[-1,1]"
}

func (p Distribution) draw(r *rand.Rand) float64 {
	if p == Normal {
		return r.NormFloat64()
	}
	return 2*r.Float64() - 1
}

// The three ways E6 draws a weight vector of dimension d = d1 d2 (the
// paper's argument for why 2D weights hold more small entries).
const (
	m1 = iota // M1: i.i.d. entries from P
	m2        // M2: element-wise product of two i.i.d. vectors
	m3        // M3: vec(u v^T), u and v i.i.d.
	numModels
)

// SmallWeightsConfig sets up the E6 simulation.
type SmallWeightsConfig struct {
	D1, D2   int       // weight shape; d = D1*D2
	Eps      []float64 // thresholds epsilon
	P        []float64 // shares p
	Draws    int       // independent draws per model
	Seed     uint64
	Dist     Distribution
	Parallel int // goroutines; 0 = GOMAXPROCS. Results do not depend on it.
}

// SmallWeightsCell is one (epsilon, p) cell: the estimated probability
// Prob(#{i : |w_i| <= eps}/d >= p) for each model, its Monte Carlo standard
// error, and the exact value for M1 and M2 (NaN for M3). Every array is
// indexed by model: 0 for M1, 1 for M2, 2 for M3.
type SmallWeightsCell struct {
	Eps, P float64
	Sim    [numModels]float64
	Hits   [numModels]int64   // draws with at least p*d small entries
	SE     [numModels]float64 // sqrt(s(1-s)/n) from the simulated share s
	Exact  [numModels]float64
	// MCError is the Monte Carlo error of the simulated share:
	// sqrt(q(1-q)/n) with q the exact value for M1 and M2 (the standard
	// deviation of the share if the exact value is right), SE for M3.
	MCError [numModels]float64
	// Z is (Sim-Exact)/MCError for M1 and M2 (NaN for M3).
	Z [numModels]float64
}

// smallChunks is the fixed number of work pieces: piece c draws its share
// with its own generator seeded (Seed, c), so the result does not depend on
// the number of goroutines.
const smallChunks = 64

// SimulateSmallWeights runs the E6 simulation: for each model, Draws
// vectors, counting for every epsilon how many entries are at most epsilon
// in absolute value. It returns one cell per (epsilon, p), epsilon major.
func SimulateSmallWeights(ctx context.Context, c SmallWeightsConfig) ([]SmallWeightsCell, error) {
	d := c.D1 * c.D2
	if d <= 0 || c.Draws <= 0 || len(c.Eps) == 0 || len(c.P) == 0 {
		return nil, fmt.Errorf("experiment: bad small-weights configuration %+v", c)
	}
	ne := len(c.Eps)
	// hist[model][eps][k]: draws with exactly k small entries.
	type hist [numModels][][]int64
	newHist := func() *hist {
		var h hist
		for m := range h {
			h[m] = make([][]int64, ne)
			for e := range h[m] {
				h[m][e] = make([]int64, d+1)
			}
		}
		return &h
	}
	hs := make([]*hist, smallChunks)
	par.ChunksOn(c.Parallel, smallChunks, 1, func(ch, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		w := make([]float64, d)
		u := make([]float64, c.D1)
		v := make([]float64, c.D2)
		h := newHist()
		rng := rand.New(rand.NewPCG(c.Seed, 0xe6000+uint64(ch)))
		lo, hi := ch*c.Draws/smallChunks, (ch+1)*c.Draws/smallChunks
		for n := lo; n < hi; n++ {
			for m := 0; m < numModels; m++ {
				switch m {
				case m1:
					for i := range w {
						w[i] = c.Dist.draw(rng)
					}
				case m2:
					for i := range w {
						w[i] = c.Dist.draw(rng)
					}
					for i := range w {
						w[i] *= c.Dist.draw(rng)
					}
				case m3:
					for i := range u {
						u[i] = c.Dist.draw(rng)
					}
					for j := range v {
						v[j] = c.Dist.draw(rng)
					}
					for i := range u {
						for j := range v {
							w[i*c.D2+j] = u[i] * v[j]
						}
					}
				}
				for e, eps := range c.Eps {
					k := 0
					for _, x := range w {
						if math.Abs(x) <= eps {
							k++
						}
					}
					h[m][e][k]++
				}
			}
		}
		hs[ch] = h
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := newHist()
	for _, h := range hs {
		for m := range h {
			for e := range h[m] {
				for k, v := range h[m][e] {
					total[m][e][k] += v
				}
			}
		}
	}
	n := float64(c.Draws)
	var cells []SmallWeightsCell
	for e, eps := range c.Eps {
		q1 := smallProbM1(c.Dist, eps)
		q2 := smallProbM2(c.Dist, eps)
		for _, p := range c.P {
			kmin := minCount(p, d)
			cell := SmallWeightsCell{Eps: eps, P: p}
			for m := 0; m < numModels; m++ {
				var hits int64
				for k := kmin; k <= d; k++ {
					hits += total[m][e][k]
				}
				s := float64(hits) / n
				cell.Sim[m], cell.Hits[m] = s, hits
				cell.SE[m] = math.Sqrt(s * (1 - s) / n)
				cell.MCError[m] = cell.SE[m]
				cell.Exact[m] = math.NaN()
				cell.Z[m] = math.NaN()
			}
			cell.Exact[m1] = binomialTail(d, q1, kmin)
			cell.Exact[m2] = binomialTail(d, q2, kmin)
			for _, m := range []int{m1, m2} {
				x := cell.Exact[m]
				se := math.Sqrt(x * (1 - x) / n)
				cell.MCError[m] = se
				switch {
				case se > 0:
					cell.Z[m] = (cell.Sim[m] - x) / se
				case cell.Sim[m] == x:
					cell.Z[m] = 0
				default:
					cell.Z[m] = math.Inf(1)
				}
			}
			cells = append(cells, cell)
		}
	}
	return cells, nil
}

// minCount returns the least k with k/d >= p.
func minCount(p float64, d int) int {
	k := int(math.Ceil(p*float64(d) - 1e-9))
	for k > 0 && float64(k-1)/float64(d) >= p {
		k--
	}
	for float64(k)/float64(d) < p {
		k++
	}
	return k
}

// smallProbM1 returns P(|z| <= eps) for z drawn from P.
func smallProbM1(dist Distribution, eps float64) float64 {
	if dist == Normal {
		return math.Erf(eps / math.Sqrt2)
	}
	return math.Min(eps, 1)
}

// smallProbM2 returns P(|z1 z2| <= eps) for z1, z2 i.i.d. from P: for the
// uniform law eps(1 - ln eps); for the normal law E_z1[erf(eps/(|z1| sqrt 2))],
// computed by adaptive quadrature.
func smallProbM2(dist Distribution, eps float64) float64 {
	if dist == Normal {
		return NormalProductSmallProb(eps)
	}
	if eps >= 1 {
		return 1
	}
	return eps * (1 - math.Log(eps))
}

// NormalProductSmallProb returns P(|z1 z2| <= eps) for independent
// standard normals: 2 * integral over x > 0 of phi(x) erf(eps/(x sqrt 2)) dx,
// by gonum's fixed-order Gauss-Legendre quadrature (64 nodes) on pieces
// split at log-spaced points (the integrand bends near x = eps). For eps in
// {0.001, 0.005, 0.01, 0.1, 1} it agrees with the adaptive Simpson rule it
// replaced (tolerance 1e-15) to 1.6e-13 relative, and 32 nodes give the
// same digits as 64.
func NormalProductSmallProb(eps float64) float64 {
	if eps <= 0 {
		return 0
	}
	f := func(x float64) float64 {
		phi := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		if x == 0 {
			return phi
		}
		return phi * math.Erf(eps/(x*math.Sqrt2))
	}
	// Break points: 0, eps/64, eps/16, ..., up to 40 (phi is ~0 beyond).
	pts := []float64{0}
	for x := eps / 64; x < 40; x *= 4 {
		pts = append(pts, x)
	}
	pts = append(pts, 40)
	var s float64
	for i := 0; i+1 < len(pts); i++ {
		s += quad.Fixed(f, pts[i], pts[i+1], 64, quad.Legendre{}, 0)
	}
	return math.Min(2*s, 1)
}

// binomialTail returns P(X >= k) for X ~ Binomial(n, q): the regularized
// incomplete beta function I_q(k, n-k+1) (gonum's mathext.RegIncBeta),
// which keeps its relative precision far into the tail (E6's exact values
// go down to 1e-223). gonum's distuv.Binomial.Survival is 1 - CDF and
// cannot: it returns 1.1e-16 where the tail is 4e-96
// (TestBinomialSurvivalCancels). Against the log-space sum of the
// probability mass function it replaced, RegIncBeta agrees to 8.3e-13
// relative on E6's cells.
func binomialTail(n int, q float64, k int) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	case q <= 0:
		return 0
	case q >= 1:
		return 1
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), q)
}

// E6 settings: the paper's thresholds epsilon and shares p.
var (
	smallEps = []float64{0.001, 0.005, 0.01}
	smallP   = []float64{0.08, 0.10, 0.12, 0.15}
)

func runSmallWeights(ctx context.Context, o Options, r *Result) error {
	draws := 100000
	if o.Quick {
		draws = 20000
	}
	if o.Trials > 0 {
		// Trials counts thousands of draws here.
		draws = o.Trials * 1000
	}
	r.Trials = draws
	r.protocol("d1 = d2 = 28 (d = 784)")
	r.protocol("%d independent draws per model and law", draws)
	r.protocol("eps in {0.001, 0.005, 0.01}; p in {8%%, 10%%, 12%%, 15%%}")
	r.protocol("work split into %d fixed pieces, piece c seeded (Seed, c): results do not depend on GOMAXPROCS", smallChunks)
	r.Provenance = append(r.Provenance, "No data: pure simulation of the paper's small-weights statistics.")
	worst := 0.0
	for ci, dist := range []Distribution{Uniform, Normal} {
		o.logf("E6: simulating %s, %d draws", dist, draws)
		cells, err := SimulateSmallWeights(ctx, SmallWeightsConfig{
			D1: 28, D2: 28, Eps: smallEps, P: smallP, Draws: draws, Seed: o.Seed + uint64(ci), Dist: dist,
		})
		if err != nil {
			return err
		}
		tab := Table{
			Name:  fmt.Sprintf("case%d_%s", ci+1, map[Distribution]string{Uniform: "uniform", Normal: "normal"}[dist]),
			Title: fmt.Sprintf("Case %d: P = %s; Prob(#{|w_i| <= eps}/d >= p), %d draws", ci+1, dist, draws),
			Header: []string{"eps", "p",
				"M1 sim", "M1 exact", "M1 MC error", "M1 z",
				"M2 sim", "M2 exact", "M2 MC error", "M2 z",
				"M3 sim", "M3 MC error", "sim within 4 MC errors of exact"},
			Caption: fmt.Sprintf("sim: share of the %d draws; exact: binomial tail with P(|w_i| <= eps) in closed form (M3 has dependent entries: simulation only); "+
				"MC error: Monte Carlo standard error of the simulated share, sqrt(q(1-q)/n) with q the exact value for M1 and M2 and the simulated share for M3 "+
				"(no hit: the 95%% upper bound 3/n instead); z = (sim - exact) / MC error.", draws),
		}
		informative := 0
		for _, c := range cells {
			within := func(m int) string {
				if math.Abs(c.Z[m]) <= 4 {
					return "yes"
				}
				return "NO"
			}
			m3err := fmtProb(c.MCError[m3])
			if c.Hits[m3] == 0 {
				m3err = fmt.Sprintf("< %.2g", 3/float64(draws))
			}
			tab.Rows = append(tab.Rows, []string{
				fmt.Sprint(c.Eps), fmt.Sprintf("%g%%", 100*c.P),
				fmtProb(c.Sim[m1]), fmtProb(c.Exact[m1]), fmtProb(c.MCError[m1]), fmtZ(c.Z[m1]),
				fmtProb(c.Sim[m2]), fmtProb(c.Exact[m2]), fmtProb(c.MCError[m2]), fmtZ(c.Z[m2]),
				fmtProb(c.Sim[m3]), m3err,
				fmt.Sprintf("M1 %s, M2 %s", within(m1), within(m2)),
			})
			for _, m := range []int{m1, m2} {
				worst = math.Max(worst, math.Abs(c.Z[m]))
				if c.Exact[m]*float64(draws) >= 5 {
					informative++
				}
			}
			key := fmt.Sprintf("%s/eps=%g/p=%g", tab.Name, c.Eps, c.P)
			for m := 0; m < numModels; m++ {
				r.value(fmt.Sprintf("%s/M%d/sim", key, m+1), c.Sim[m])
			}
			r.value(key+"/M1/exact", c.Exact[m1])
			r.value(key+"/M2/exact", c.Exact[m2])
			r.value(key+"/M1/mc_error", c.MCError[m1])
			r.value(key+"/M2/mc_error", c.MCError[m2])
		}
		r.note("Case %d (%s): in %d of the %d (model, eps, p) cells of M1 and M2 the exact value predicts at least 5 hits in %d draws; in the others it is so small that the simulation is expected to see no hit, and agreement there only says so.",
			ci+1, dist, informative, 2*len(cells), draws)
		r.Tables = append(r.Tables, tab)
		probs := Table{
			Name:   tab.Name + "_entry_probabilities",
			Title:  fmt.Sprintf("Case %d: probability that one entry is small, P(|w_i| <= eps)", ci+1),
			Header: []string{"eps", "M1: P(|z| <= eps)", "M2: P(|z1 z2| <= eps)"},
		}
		for _, eps := range smallEps {
			probs.Rows = append(probs.Rows, []string{fmt.Sprint(eps), fmt.Sprintf("%.6g", smallProbM1(dist, eps)), fmt.Sprintf("%.6g", smallProbM2(dist, eps))})
		}
		r.Tables = append(r.Tables, probs)
	}
	r.value("max_abs_z", worst)
	r.note("Agreement of simulation and exact binomial tails for M1 and M2: largest |z| = %.2f over both laws and all (eps, p) (|z| <= 4 expected).", worst)
	r.note("M3 (2D weights vec(u v^T)) has far more small entries than M1 and M2 at every (eps, p): the rank-one structure makes small weights likely.")
	// Figures: one random 1D weight vector and one 2D one, as 28 x 28 images.
	rng := rand.New(rand.NewPCG(o.Seed, 0xe6f))
	w1 := make([]float64, 784)
	for i := range w1 {
		w1[i] = Uniform.draw(rng)
	}
	u, v := make([]float64, 28), make([]float64, 28)
	for i := range u {
		u[i] = Uniform.draw(rng)
		v[i] = Uniform.draw(rng)
	}
	w2 := make([]float64, 784)
	for i := range u {
		for j := range v {
			w2[i*28+j] = u[i] * v[j]
		}
	}
	small := func(w []float64) string {
		var parts []string
		for _, eps := range []float64{0.01, 0.05} {
			k := 0
			for _, x := range w {
				if math.Abs(x) <= eps {
					k++
				}
			}
			parts = append(parts, fmt.Sprintf("%d of 784 entries (%.1f%%) have |w_i| <= %g", k, 100*float64(k)/784, eps))
		}
		return strings.Join(parts, "; ")
	}
	svg, err := report.HeatMap("1D weight w, i.i.d. uniform[-1,1] (M1)", 28, 28, w1)
	if err := r.addFigure("weights_1d", "A random 1D weight vector (28 x 28)", "Entries i.i.d. uniform on [-1,1]: "+small(w1)+".", svg, err); err != nil {
		return err
	}
	svg, err = report.HeatMap("2D weight vec(u v^T), u, v uniform[-1,1] (M3)", 28, 28, w2)
	return r.addFigure("weights_2d", "A random 2D weight vector vec(u v^T) (28 x 28)", "u and v i.i.d. uniform on [-1,1]: whole rows and columns are near zero where u_i or v_j is; "+small(w2)+".", svg, err)
}

// fmtZ formats a z score with two decimals, without "-0.00".
func fmtZ(z float64) string {
	if math.Abs(z) < 0.005 {
		z = 0
	}
	return fmt.Sprintf("%.2f", z)
}

func fmtProb(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}
