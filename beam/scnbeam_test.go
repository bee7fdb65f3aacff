package scnbeam

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

func runPrism(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	return prism.Execute(ctx, p)
}

// fixture is a recipe model and IDX shard files of the built-in MNIST
// subset in a temporary folder.
type fixture struct {
	dir, recipe string
	model       *scn.Model
	shards      []*dataset.Set
}

// newFixture writes shards of sizes n (consecutive images of the
// built-in set; the first one holds only digits 0-4 when skew, so that
// later shards bring new classes) and fits a small RVFL recipe on 300
// images (of kind: a supervised recipe's nodes are fixed as a random
// one's are).
func newFixture(t *testing.T, kind scn.Kind, skew bool, n ...int) *fixture {
	t.Helper()
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: t.TempDir()}
	c := scn.Paper(kind)
	c.MaxNodes, c.Ridge = 70, 0.1
	prob, err := train.Subset(seq(0, 300)).Problem()
	if err != nil {
		t.Fatal(err)
	}
	if f.model, err = c.Fit(context.Background(), prob, nil); err != nil {
		t.Fatal(err)
	}
	f.recipe = filepath.Join(f.dir, "recipe.scn")
	if err := f.model.Save(f.recipe); err != nil {
		t.Fatal(err)
	}
	lo := 0
	for i, k := range n {
		idx := seq(lo, lo+k)
		if skew && i == 0 {
			idx = idx[:0]
			for j := 0; len(idx) < k; j++ {
				if train.Labels[j] < 5 {
					idx = append(idx, j)
				}
			}
		}
		s := train.Subset(idx)
		s.Classes = s.Classes[:slices.Max(s.Labels)+1] // as a reader of the file sees it
		f.write(t, i, s)
		lo += k
	}
	return f
}

func (f *fixture) write(t *testing.T, i int, s *dataset.Set) {
	t.Helper()
	img := filepath.Join(f.dir, fmt.Sprintf("part-%02d-images-idx3-ubyte.gz", i))
	lab := filepath.Join(f.dir, fmt.Sprintf("part-%02d-labels-idx1-ubyte.gz", i))
	if err := dataset.WriteIDX(img, lab, s); err != nil {
		t.Fatal(err)
	}
	f.shards = append(f.shards, s)
}

func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

func (f *fixture) glob() []string { return []string{filepath.Join(f.dir, "part-*")} }

// chain returns the statistics of the shards merged in order with the
// core module's Stats.Merge (scn stats merge's arithmetic), and the
// statistics of all the images at once (Model.Stats).
func (f *fixture) chain(t *testing.T) (merged, whole *scn.Stats) {
	t.Helper()
	all := &dataset.Set{Rows: 28, Cols: 28}
	for _, s := range f.shards {
		prob, err := s.Problem()
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.model.Stats(prob)
		if err != nil {
			t.Fatal(err)
		}
		if merged == nil {
			merged = st
		} else if merged, err = merged.Merge(st); err != nil {
			t.Fatal(err)
		}
		all.Pix = append(all.Pix, s.Pix...)
		all.Labels = append(all.Labels, s.Labels...)
	}
	all.Classes = merged.Classes
	prob, err := all.Problem()
	if err != nil {
		t.Fatal(err)
	}
	if whole, err = f.model.Stats(prob); err != nil {
		t.Fatal(err)
	}
	return merged, whole
}

func (f *fixture) run(t *testing.T, o Options, mo MatchOptions) ([]byte, error) {
	t.Helper()
	shards, err := Match(f.glob(), mo)
	if err != nil {
		t.Fatal(err)
	}
	o.Recipe = f.recipe
	if o.Out == "" {
		o.Out = filepath.Join(f.dir, "beam.scnstats")
	}
	if _, err := Run(context.Background(), runPrism, shards, o); err != nil {
		return nil, err
	}
	return os.ReadFile(o.Out)
}

func statsBytes(t *testing.T, s *scn.Stats) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	return num / den
}

// TestPipelineEqualsMergeChain: on Prism, the pipeline's statistics file
// is byte for byte the core module's merge of the shards' statistics in
// shard order (the reduction order is the same), with new classes in
// later shards, and within 1e-9 relative of the statistics of all the
// images at once (another summation order); its solve is the core's.
func TestPipelineEqualsMergeChain(t *testing.T) {
	f := newFixture(t, scn.RVFL, true, 250, 300, 150, 200)
	merged, whole := f.chain(t)
	model := filepath.Join(f.dir, "solved.scn")
	got, err := f.run(t, Options{Tile: 16, Solve: model, Ridge: -1}, MatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, statsBytes(t, merged)) {
		t.Fatal("the pipeline's statistics differ from the merge chain's bytes")
	}
	if !slices.Equal(merged.Classes, whole.Classes) || merged.N != 900 {
		t.Fatalf("classes %v (want %v), N = %d", merged.Classes, whole.Classes, merged.N)
	}
	for _, c := range [][2][]float64{{merged.G, whole.G}, {merged.HT, whole.HT}, {merged.TT, whole.TT}} {
		if d := relDiff(c[0], c[1]); d > 1e-9 {
			t.Errorf("merged sums differ from the whole set's by %.3g relative", d)
		}
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := merged.Solve(f.model.Config.Ridge)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Beta, want.Beta) {
		t.Error("--solve's output weights are not the core's solve of the statistics")
	}
}

// TestPipelineDeterministic: the same shards (for a 2DSCN's nodes) give
// the same bytes with 1 and 2 procs (Prism's bundles and splits differ between runs), and the
// same images cut into other shard ranges agree to 1e-9 relative (another
// summation order, so not bytes).
func TestPipelineDeterministic(t *testing.T) {
	f := newFixture(t, scn.SCN2D, false, 200, 200, 200)
	var first []byte
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		got, err := f.run(t, Options{Tile: 32, Out: filepath.Join(f.dir, fmt.Sprintf("p%d.scnstats", procs))}, MatchOptions{})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Fatalf("GOMAXPROCS %d gave other bytes", procs)
		}
	}
	got, err := f.run(t, Options{Tile: 7, Out: filepath.Join(f.dir, "cut.scnstats")}, MatchOptions{ShardImages: 70})
	if err != nil {
		t.Fatal(err)
	}
	a, b := readStats(t, first), readStats(t, got)
	if a.N != b.N || !slices.Equal(a.ClassCounts, b.ClassCounts) {
		t.Fatalf("N %d and %d, counts %v and %v", a.N, b.N, a.ClassCounts, b.ClassCounts)
	}
	if d := relDiff(b.G, a.G); d > 1e-9 {
		t.Errorf("shards of 70 images: G differs by %.3g relative", d)
	}
}

func readStats(t *testing.T, b []byte) *scn.Stats {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.scnstats")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scn.LoadStats(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPipelineBadShard: a shard of another image size in the middle of
// the input stops the pipeline with the shard's name and writes nothing.
func TestPipelineBadShard(t *testing.T) {
	f := newFixture(t, scn.RVFL2D, false, 100, 100)
	small := &dataset.Set{Rows: 14, Cols: 14, Pix: make([]float32, 3*14*14), Labels: []int{0, 1, 2}, Classes: []string{"0", "1", "2"}}
	f.write(t, 1, small) // replaces shard 1
	out := filepath.Join(f.dir, "bad.scnstats")
	_, err := f.run(t, Options{Out: out}, MatchOptions{})
	if err == nil || !strings.Contains(err.Error(), "part-01-images") || !strings.Contains(err.Error(), "14 x 14") {
		t.Fatalf("error %v, want one naming part-01 and its size", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written after a failed shard: %v", err)
	}
}

func TestMatchErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Match([]string{filepath.Join(dir, "none-*")}, MatchOptions{}); err == nil || !strings.Contains(err.Error(), "matches no data file") {
		t.Errorf("empty glob: %v", err)
	}
	lone := filepath.Join(dir, "a-images.gz")
	if err := os.WriteFile(lone, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Match([]string{lone}, MatchOptions{}); err == nil || !strings.Contains(err.Error(), "a-labels.gz") {
		t.Errorf("images without labels: %v", err)
	}
	odd := filepath.Join(dir, "pictures.gz")
	if err := os.WriteFile(odd, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Match([]string{odd}, MatchOptions{}); err == nil || !strings.Contains(err.Error(), `"images"`) {
		t.Errorf("a name without images: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a-labels.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Match([]string{lone, filepath.Join(dir, "a-*")}, MatchOptions{}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a file matched twice: %v", err)
	}
	if _, err := Match([]string{lone}, MatchOptions{ShardImages: 10}); err == nil {
		t.Error("a corrupt file counted without error")
	}
}

// randomParts returns the parts of every key for shards statistics with
// random values (classes of varying sets), tile 3, L = 7.
func randomParts(t *testing.T, shards int, r *rand.Rand) (*scn.Model, [][]Part) {
	t.Helper()
	recipe := &scn.Model{Kind: scn.RVFL, Rows: 2, Cols: 2, Params: make([]float32, 7*4), Bias: make([]float32, 7)}
	var out [][]Part
	names := []string{"a", "b", "c", "d"}
	for s := 0; s < shards; s++ {
		cls := slices.Clone(names[:1+r.IntN(4)])
		r.Shuffle(len(cls), func(i, j int) { cls[i], cls[j] = cls[j], cls[i] })
		m := len(cls)
		st := &scn.Stats{Recipe: recipe, N: 10 + r.IntN(5), M: m, Classes: cls, ClassCounts: make([]int, m),
			G: make([]float64, 49), HT: make([]float64, 7*m), TT: make([]float64, m*m)}
		for i := 0; i < 7; i++ {
			for j := 0; j <= i; j++ {
				st.G[i*7+j] = r.NormFloat64() * 1e3
				st.G[j*7+i] = st.G[i*7+j]
			}
		}
		for _, v := range [][]float64{st.HT, st.TT} {
			for i := range v {
				v[i] = r.NormFloat64()
			}
		}
		for i := range st.ClassCounts {
			st.ClassCounts[i] = r.IntN(5)
		}
		parts, err := Split(st, s, 3)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parts)
	}
	return recipe, out
}

// TestFoldOrderFree: whatever the order in which parts arrive and the
// tree in which accumulators merge (what differs between runners, worker
// counts and bundles), the fold gives the bytes of a chain of
// scn.Stats.Merge in shard order.
func TestFoldOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	recipe, shards := randomParts(t, 9, r)
	var want *scn.Stats
	for _, parts := range shards {
		m := map[string]Part{}
		for _, p := range parts {
			m[p.Key] = p
		}
		st, err := Assemble(recipe, m, 3)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = st
		} else if want, err = want.Merge(st); err != nil {
			t.Fatal(err)
		}
	}
	for trial := 0; trial < 20; trial++ {
		got := map[string]Part{}
		for k := range shards[0] {
			var ps []Part
			for _, parts := range shards {
				p := parts[k]
				p.V = slices.Clone(p.V) // Add reuses the sum's values
				ps = append(ps, p)
			}
			r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			sum, err := randomTree(ps, r)
			if err != nil {
				t.Fatal(err)
			}
			got[sum.Key] = sum
		}
		st, err := Assemble(recipe, got, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSums(st, want) {
			t.Fatalf("trial %d: the fold's bits differ from the merge chain's", trial)
		}
	}
}

// randomTree folds parts into accumulators of random groups (through the
// coder, as between workers) and merges them in random order.
func randomTree(ps []Part, r *rand.Rand) (Part, error) {
	var accs []Fold
	for len(ps) > 0 {
		k := 1 + r.IntN(len(ps))
		var a Fold
		for _, p := range ps[:k] {
			if err := a.Push(p); err != nil {
				return Part{}, err
			}
		}
		b, err := DecodeFold(EncodeFold(a))
		if err != nil {
			return Part{}, err
		}
		accs = append(accs, b)
		ps = ps[k:]
	}
	for len(accs) > 1 {
		i, j := r.IntN(len(accs)), r.IntN(len(accs)-1)
		if j >= i {
			j++
		}
		if err := accs[i].Merge(&accs[j]); err != nil {
			return Part{}, err
		}
		accs = slices.Delete(accs, j, j+1)
	}
	return accs[0].Result()
}

// sameSums reports whether two statistics have the same counts, classes
// and sums, bit for bit.
func sameSums(a, b *scn.Stats) bool {
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	return a.N == b.N && a.M == b.M && slices.Equal(a.Classes, b.Classes) && slices.Equal(a.ClassCounts, b.ClassCounts) &&
		slices.Equal(bits(a.G), bits(b.G)) && slices.Equal(bits(a.HT), bits(b.HT)) && slices.Equal(bits(a.TT), bits(b.TT))
}

func TestFoldErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	_, shards := randomParts(t, 3, r)
	var a Fold
	if err := a.Push(shards[1][0]); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Result(); err == nil || !strings.Contains(err.Error(), "shard 0 missing") {
		t.Errorf("gap: %v", err)
	}
	if err := a.Push(shards[1][0]); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate: %v", err)
	}
	var b, c Fold
	b.Push(shards[0][0])
	c.Push(shards[0][0])
	if err := b.Merge(&c); err == nil {
		t.Error("two accumulators holding shard 0 merged")
	}
	if _, err := (&Fold{}).Result(); err == nil {
		t.Error("empty fold gave a result")
	}
	if _, err := Add(shards[0][0], shards[0][1]); err == nil {
		t.Error("parts of two keys added")
	}
	h := shards[0][len(shards[0])-2]
	reg := h
	reg.Cols = nil
	if _, err := Add(h, reg); err == nil {
		t.Error("classification and regression parts added")
	}
	parts := map[string]Part{}
	for _, p := range shards[0][1:] {
		parts[p.Key] = p
	}
	recipe, _ := randomParts(t, 1, r)
	if _, err := Assemble(recipe, parts, 3); err == nil {
		t.Error("assembled with a tile missing")
	}
}

func TestCoderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	_, shards := randomParts(t, 2, r)
	for _, p := range shards[1] {
		q, err := DecodePart(EncodePart(p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(EncodePart(q), EncodePart(p)) || q.Key != p.Key || !slices.Equal(q.V, p.V) || !slices.Equal(q.Cols, p.Cols) {
			t.Fatalf("%s: round trip changed the part", p.Key)
		}
		b := EncodePart(p)
		for cut := 0; cut < len(b); cut += 1 + len(b)/17 {
			if _, err := DecodePart(b[:cut]); err == nil {
				t.Fatalf("%s: truncated to %d bytes decoded", p.Key, cut)
			}
		}
	}
}

func FuzzDecodePart(f *testing.F) {
	f.Add(EncodePart(Part{Key: "t", Cols: []string{"a"}, M: 1, N: 3, Counts: []int{3}, V: []float64{3}}))
	f.Add(EncodePart(Part{Key: "g/0/0", V: []float64{1, 2, 3, 4}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePart(b)
		if err != nil {
			return
		}
		q, err := DecodePart(EncodePart(p))
		if err != nil || !bytes.Equal(EncodePart(q), EncodePart(p)) {
			t.Fatalf("a decoded part does not round-trip: %v", err)
		}
	})
}

func FuzzDecodeFold(f *testing.F) {
	f.Add(EncodeFold(Fold{Next: 1, Has: true, Sum: Part{Key: "g/0/0", V: []float64{1}}, Pending: []Part{{Key: "g/0/0", Shard: 3, V: []float64{2}}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := DecodeFold(b); err != nil {
			return
		}
	})
}
