package scnbeam

import (
	"errors"
	"fmt"
	"slices"

	"github.com/scn2d/scn"
)

// Part is one shard's (or a fold of shards') sums for one key of the
// statistics: a tile of G, a band of rows of H^T T, or T^T T with the
// image and class counts. Keys (Split) are "g/I/J" for the tile of G at
// tile row I, tile column J (upper tiles only, I <= J: G is symmetric), "h/I"
// for rows of tile I of H^T T, and "t" for T^T T and the counts.
type Part struct {
	// Key is the part's key (GKey, HKey or TKey).
	Key string
	// Shard is the index of the first shard the part sums (its only one
	// before a fold).
	Shard int
	// Cols names the output columns of an "h" or "t" part (the class
	// names; nil for regression); M is their number.
	Cols []string
	M    int
	// N and Counts are the images and images per class ("t" only).
	N      int
	Counts []int
	// V holds the values, row-major: a tile of G (rows x cols of the tile),
	// rows x M of H^T T, or M x M of T^T T.
	V []float64
}

// ErrParts is wrapped by every error about parts that do not fit together.
var ErrParts = errors.New("scnbeam: statistics parts")

// tiles returns the number of tiles of side tile that cover l rows.
func tiles(l, tile int) int { return (l + tile - 1) / tile }

// span returns the first row and the number of rows of tile i.
func span(i, l, tile int) (int, int) {
	lo := i * tile
	return lo, min(l, lo+tile) - lo
}

// GKey, HKey and TKey are the keys of the parts of a statistics file.
func GKey(i, j int) string { return fmt.Sprintf("g/%d/%d", i, j) }

// HKey is the key of the rows of tile i of H^T T.
func HKey(i int) string { return fmt.Sprintf("h/%d", i) }

// TKey is the key of T^T T and the counts.
const TKey = "t"

// Split cuts the statistics of shard into parts keyed by tiles of side
// tile: the upper tiles of G (I <= J), bands of tile rows of H^T T, and T^T T
// with the counts, in that order. Each part's values are copies.
func Split(st *scn.Stats, shard, tile int) ([]Part, error) {
	l, m := st.Nodes(), st.M
	if tile < 1 {
		return nil, fmt.Errorf("%w: tile side %d, want >= 1", ErrParts, tile)
	}
	if len(st.G) != l*l || len(st.HT) != l*m || len(st.TT) != m*m {
		return nil, fmt.Errorf("%w: sums of %d, %d and %d values for L = %d, m = %d", ErrParts, len(st.G), len(st.HT), len(st.TT), l, m)
	}
	k := tiles(l, tile)
	out := make([]Part, 0, k*(k+1)/2+k+1)
	for i := 0; i < k; i++ {
		r0, nr := span(i, l, tile)
		for j := i; j < k; j++ {
			c0, nc := span(j, l, tile)
			v := make([]float64, 0, nr*nc)
			for r := r0; r < r0+nr; r++ {
				v = append(v, st.G[r*l+c0:r*l+c0+nc]...)
			}
			out = append(out, Part{Key: GKey(i, j), Shard: shard, V: v})
		}
		out = append(out, Part{Key: HKey(i), Shard: shard, Cols: slices.Clone(st.Classes), M: m, V: slices.Clone(st.HT[r0*m : (r0+nr)*m])})
	}
	out = append(out, Part{Key: TKey, Shard: shard, Cols: slices.Clone(st.Classes), M: m, N: st.N, Counts: slices.Clone(st.ClassCounts), V: slices.Clone(st.TT)})
	return out, nil
}

// Add returns sum + p, the fold step of the combine, with the arithmetic
// of scn.Stats.Merge(sum, p) so that a fold of parts in shard order gives
// the bytes of a chain of merges in that order: output columns are matched
// by name, a column only p has is appended (sum's order first) with zeros
// on sum's side, and every entry is sum + (p's entry or 0). Both parts
// must have the same key. sum's values may be reused.
func Add(sum, p Part) (Part, error) {
	key := sum.Key
	if key == "" || key != p.Key {
		return Part{}, fmt.Errorf("%w: keys %q and %q", ErrParts, sum.Key, p.Key)
	}
	if key[0] == 'g' {
		if len(sum.V) != len(p.V) {
			return Part{}, fmt.Errorf("%w: %s: tiles of %d and %d values", ErrParts, key, len(sum.V), len(p.V))
		}
		for i, v := range p.V {
			sum.V[i] += v
		}
		sum.Shard = min(sum.Shard, p.Shard)
		return sum, nil
	}
	if (sum.Cols == nil) != (p.Cols == nil) {
		return Part{}, fmt.Errorf("%w: %s: classification and regression statistics", ErrParts, key)
	}
	if sum.Cols == nil && sum.M != p.M {
		return Part{}, fmt.Errorf("%w: %s: %d and %d regression targets", ErrParts, key, sum.M, p.M)
	}
	if sum.M < 1 || p.M < 1 || len(sum.V)%sum.M != 0 || len(p.V)%p.M != 0 {
		return Part{}, fmt.Errorf("%w: %s: %d and %d values for %d and %d outputs", ErrParts, key, len(sum.V), len(p.V), sum.M, p.M)
	}
	at, union := columns(sum.Cols, p.Cols, p.M)
	var err error
	if key[0] == 't' {
		sum, err = addT(sum, p, at, union)
	} else {
		sum, err = addH(key, sum, p, at, union)
	}
	return sum, err
}

// columns returns, for each of p's columns, its column in the union of a
// and b (a's order first), and the union (nil for regression).
func columns(a, b []string, m int) ([]int, []string) {
	at := make([]int, m)
	if a == nil {
		for i := range at {
			at[i] = i
		}
		return at, nil
	}
	union := slices.Clone(a)
	for i, c := range b {
		at[i] = slices.Index(union, c)
		if at[i] < 0 {
			at[i] = len(union)
			union = append(union, c)
		}
	}
	return at, union
}

// addH adds p's rows of H^T T to sum's, columns mapped by at.
func addH(key string, sum, p Part, at []int, union []string) (Part, error) {
	rows := len(sum.V) / sum.M
	if len(p.V)/p.M != rows {
		return Part{}, fmt.Errorf("%w: %s: %d and %d rows of H^T T", ErrParts, key, rows, len(p.V)/p.M)
	}
	mn := max(len(union), sum.M)
	pv := make([]float64, mn) // p's row in the union's columns, zeros elsewhere
	out := make([]float64, rows*mn)
	for r := 0; r < rows; r++ {
		clear(pv)
		for q, c := range at {
			pv[c] = p.V[r*p.M+q]
		}
		for c := 0; c < mn; c++ {
			var s float64
			if c < sum.M {
				s = sum.V[r*sum.M+c]
			}
			out[r*mn+c] = s + pv[c]
		}
	}
	sum.V, sum.M, sum.Cols, sum.Shard = out, mn, union, min(sum.Shard, p.Shard)
	return sum, nil
}

// addT adds p's T^T T and counts to sum's, columns mapped by at.
func addT(sum, p Part, at []int, union []string) (Part, error) {
	if len(sum.V) != sum.M*sum.M || len(p.V) != p.M*p.M {
		return Part{}, fmt.Errorf("%w: t: %d and %d values of T^T T for %d and %d outputs", ErrParts, len(sum.V), len(p.V), sum.M, p.M)
	}
	if sum.Cols != nil && (len(sum.Counts) != sum.M || len(p.Counts) != p.M) {
		return Part{}, fmt.Errorf("%w: t: %d and %d class counts for %d and %d classes", ErrParts, len(sum.Counts), len(p.Counts), sum.M, p.M)
	}
	mn := max(len(union), sum.M)
	pv := make([]float64, mn*mn)
	for a, ca := range at {
		for b, cb := range at {
			pv[ca*mn+cb] = p.V[a*p.M+b]
		}
	}
	out := make([]float64, mn*mn)
	for a := 0; a < mn; a++ {
		for b := 0; b < mn; b++ {
			var s float64
			if a < sum.M && b < sum.M {
				s = sum.V[a*sum.M+b]
			}
			out[a*mn+b] = s + pv[a*mn+b]
		}
	}
	if sum.Cols != nil {
		counts := make([]int, mn)
		copy(counts, sum.Counts)
		for q, c := range at {
			counts[c] += p.Counts[q]
		}
		sum.Counts = counts
	}
	sum.V, sum.M, sum.Cols, sum.N, sum.Shard = out, mn, union, sum.N+p.N, min(sum.Shard, p.Shard)
	return sum, nil
}

// Assemble builds the statistics of recipe's nodes from the folded parts
// of every key (Split's keys for the same tile side), mirroring the upper
// tiles of G into the lower triangle.
func Assemble(recipe *scn.Model, parts map[string]Part, tile int) (*scn.Stats, error) {
	if tile < 1 {
		return nil, fmt.Errorf("%w: tile side %d, want >= 1", ErrParts, tile)
	}
	l := recipe.Nodes()
	t, ok := parts[TKey]
	if !ok {
		return nil, fmt.Errorf("%w: no %q part", ErrParts, TKey)
	}
	m := t.M
	if m < 1 || len(t.V) != m*m || t.N < 1 || (t.Cols != nil && (len(t.Cols) != m || len(t.Counts) != m)) {
		return nil, fmt.Errorf("%w: t: %d values, %d images, %d classes and %d counts for %d outputs", ErrParts, len(t.V), t.N, len(t.Cols), len(t.Counts), m)
	}
	st := &scn.Stats{Recipe: recipe, N: t.N, M: m, Classes: t.Cols, ClassCounts: t.Counts,
		G: make([]float64, l*l), HT: make([]float64, l*m), TT: t.V}
	k := tiles(l, tile)
	if want := k*(k+1)/2 + k + 1; len(parts) != want {
		return nil, fmt.Errorf("%w: %d parts, want %d for L = %d in tiles of %d", ErrParts, len(parts), want, l, tile)
	}
	for i := 0; i < k; i++ {
		r0, nr := span(i, l, tile)
		h, ok := parts[HKey(i)]
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: no %q part", ErrParts, HKey(i))
		case h.M != m || !slices.Equal(h.Cols, t.Cols) || len(h.V) != nr*m:
			return nil, fmt.Errorf("%w: %s: %d values for %d outputs %v, want %d rows of %d outputs %v", ErrParts, HKey(i), len(h.V), h.M, h.Cols, nr, m, t.Cols)
		}
		copy(st.HT[r0*m:], h.V)
		for j := i; j < k; j++ {
			if err := placeTile(st.G, l, parts, i, j, tile); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}

// placeTile copies the tile (i, j) of G into g and, off the diagonal, its
// transpose into the tile (j, i).
func placeTile(g []float64, l int, parts map[string]Part, i, j, tile int) error {
	r0, nr := span(i, l, tile)
	c0, nc := span(j, l, tile)
	p, ok := parts[GKey(i, j)]
	if !ok || len(p.V) != nr*nc {
		return fmt.Errorf("%w: %s: missing or of %d values, want %d x %d", ErrParts, GKey(i, j), len(p.V), nr, nc)
	}
	for r := 0; r < nr; r++ {
		for c := 0; c < nc; c++ {
			v := p.V[r*nc+c]
			g[(r0+r)*l+c0+c] = v
			g[(c0+c)*l+r0+r] = v
		}
	}
	return nil
}
