package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// The Go fallbacks (the purego build's and every non-amd64 platform's
// kernels) against the plain loops whose bits they promise. These run in
// every build: they call the Go forms directly.

// TestScoreGoIsThePlainSum: scoreGo gives, bit for bit, each node's plain
// float32 sum over all d inputs in index order plus +0, whatever the
// grouping (two nodes by three images, an odd k's last node by six; on
// arm64 four by four, the last k mod 4 nodes by six) and
// the stretches it skips: receptive-field weights (zero outside a band of
// rows, a whole zero row, a lone last weight), negative inputs (so -0
// products), node and image counts around the groups, and fewer images
// than spanMinImages (no stretches).
func TestScoreGoIsThePlainSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sz := range []struct{ k, n, d int }{{1, 1, 1}, {7, 5, 784}, {10, 301, 784}, {4, 700, 5}, {13, 9, 10304}} {
		w := make([]float32, sz.k*sz.d)
		for j := 0; j < sz.k; j++ {
			row := w[j*sz.d : (j+1)*sz.d]
			switch j % 4 {
			case 0: // no weight at all
			case 1:
				row[sz.d-1] = -1.5
			case 2: // everywhere
				for t := range row {
					row[t] = float32(rng.NormFloat64())
				}
			default: // a band
				a := rng.IntN(sz.d)
				for t := a; t < min(sz.d, a+1+rng.IntN(300)); t++ {
					row[t] = float32(rng.NormFloat64())
				}
			}
		}
		x := make([]float32, sz.n*sz.d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		ldz := sz.n + 1
		z := make([]float32, sz.k*ldz)
		scoreGo(sz.k, sz.n, sz.d, w, x, z, ldz)
		for j := 0; j < sz.k; j++ {
			for i := 0; i < sz.n; i++ {
				var s float32
				for t := 0; t < sz.d; t++ {
					s += w[j*sz.d+t] * x[i*sz.d+t]
				}
				s += 0
				if math.Float32bits(z[j*ldz+i]) != math.Float32bits(s) {
					t.Fatalf("%+v: z[%d,%d] = %v, the plain sum %v", sz, j, i, z[j*ldz+i], s)
				}
			}
		}
	}
}

// TestProductTN32GoIsThePlainSum: the Go part of ProductTN32 (all of it
// without AVX-512) gives the plain loop's bits, each output summed in order
// of j from +0, for image counts around its chunks of 512.
func TestProductTN32GoIsThePlainSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sz := range []struct{ l, m, r, ldh int }{{1, 1, 1, 1}, {28, 7, 513, 520}, {5, 12, 1100, 1100}} {
		b := randomRows(rng, sz.l, sz.m, sz.m)
		h := randomRows(rng, sz.l, sz.r, sz.ldh)
		for q := 0; q < sz.m; q++ {
			pq := make([]float32, sz.r)
			productTN32Go(sz.l, sz.m, q, 0, sz.r, b, h, sz.ldh, pq)
			for i := range pq {
				var s float32
				for j := 0; j < sz.l; j++ {
					s += b[j*sz.m+q] * h[j*sz.ldh+i]
				}
				if math.Float32bits(pq[i]) != math.Float32bits(s) {
					t.Fatalf("%+v: p[%d,%d] = %v, the plain sum %v", sz, q, i, pq[i], s)
				}
			}
		}
	}
}

// TestDotBF16GoKeepsItsBits: dotBF16Go, four columns at a time, gives the
// bits of its plain form (one column at a time, VDPBF16PS's order), on
// values that make denormal sums (flushed) and several chunks.
func TestDotBF16GoKeepsItsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, k := range []int{1, 2, 129, 300} {
		n := 40
		x := randomRows(rng, n, k, k)
		for i := range x {
			if rng.IntN(5) == 0 {
				x[i] *= 1e-20 // products of 1e-40: denormal in float32
			}
		}
		var pk PackedBF16
		pk.Pack(n, k, x, k)
		var off [8]int
		for t := range off {
			i := 3 + t
			off[t] = 4 * ((i/packGroupRows)*pk.kp*packGroupRows + i%packGroupRows)
		}
		bp := pk.p[pk.kp*packGroupRows:] // the second group of columns
		var got, want [8 * packGroupRows]float32
		dotBF16Go(&pk, &off, bp, &got)
		for t := 0; t < 8; t++ {
			a := pk.p[off[t]/4:]
			for j := 0; j < packGroupRows; j++ {
				var sum float32
				for s0 := 0; s0 < pk.kp; s0 += bf16Chunk {
					var acc float32
					for s := s0; s < min(s0+bf16Chunk, pk.kp); s++ {
						x, y := a[s*packGroupRows], bp[s*packGroupRows+j]
						acc = ftz(acc + BF16Float(uint16(x>>16))*BF16Float(uint16(y>>16)))
						acc = ftz(acc + BF16Float(uint16(x))*BF16Float(uint16(y)))
					}
					sum += acc
				}
				want[t*packGroupRows+j] = sum
			}
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("k=%d: tile[%d] = %v, the plain form %v", k, i, got[i], want[i])
			}
		}
	}
}

// TestDot3x4GoIsThePlainSum: the Go form of the float64 gemm kernel gives
// each of its twelve sums in order from +0, the plain loop's bits, with
// rows and columns repeated as gemmNT64Serial repeats the last ones.
func TestDot3x4GoIsThePlainSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const lda, ldb, k0, kk = 530, 517, 3, 511
	a, b := randSlice(rng, 3*lda), randSlice(rng, 4*ldb)
	var out [12]float64
	rows, cols := [3]int{0, 2, 2}, [4]int{1, 0, 3, 3}
	dot3x4Go(a, lda, b, ldb, rows[0], rows[1], rows[2], cols[0], cols[1], cols[2], cols[3], k0, kk, &out)
	for g, j := range cols {
		for r, i := range rows {
			var s float64
			for t := k0; t < k0+kk; t++ {
				s += a[i*lda+t] * b[j*ldb+t]
			}
			if out[3*g+r] != s {
				t.Fatalf("row %d, column %d: %v, the plain sum %v", i, j, out[3*g+r], s)
			}
		}
	}
}

// TestGemmNT64GoBlocks: without the AVX-512 kernel (the purego build),
// GemmNT64 gives exactly C = beta C + alpha s, where s sums its inner
// blocks of gemmKB in order, each block in order from +0: the bits depend
// on the shapes only, not on the row chunks run in parallel.
func TestGemmNT64GoBlocks(t *testing.T) {
	if Backend() != "gonum" || kernel.Available {
		t.Skip("GemmNT64 runs an assembly kernel, gonum or OpenBLAS here, not the Go form")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	m, n, k := 101, 70, 2*gemmKB+9
	a, b, c := randSlice(rng, m*k), randSlice(rng, n*k), randSlice(rng, m*n)
	want := append([]float64(nil), c...)
	for i := range want {
		want[i] *= 0.5
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for k0 := 0; k0 < k; k0 += gemmKB {
				var s float64
				for t := k0; t < min(k, k0+gemmKB); t++ {
					s += a[i*k+t] * b[j*k+t]
				}
				want[i*n+j] += -2 * s
			}
		}
	}
	GemmNT64(m, n, k, -2, a, k, b, k, 0.5, c, n)
	for i := range c {
		if c[i] != want[i] {
			t.Fatalf("C[%d] = %v, the blocked plain sums %v", i, c[i], want[i])
		}
	}
}

// TestGramBF16GoFastKeepsItsBits: GramBF16's Go loop without its flushes
// (gramBF16Go, taken when no value is below 2^-56) gives the bits of the
// loop with them (dotBF16Go), over several chunks and segments, odd k,
// partial row and column groups, and values of very different sizes down
// to 2^-56 whose sums cancel; and values below 2^-56 send GramBF16 to the
// loop with the flushes.
func TestGramBF16GoFastKeepsItsBits(t *testing.T) {
	defer func(k, f bool) { useBF16Kernel, useBF16GoFast = k, f }(useBF16Kernel, useBF16GoFast)
	useBF16Kernel = false
	rng := rand.New(rand.NewPCG(19, 20))
	for _, sz := range []struct{ n, k int }{{1, 1}, {5, 3}, {41, 300}, {70, 2*2*bf16Segment + 131}} {
		x := randomRows(rng, sz.n, sz.k, sz.k)
		for i := range x {
			switch rng.IntN(6) {
			case 0:
				x[i] *= 1e4
			case 1:
				x[i] = float32(math.Ldexp(1, -56)) // the smallest value taken
			case 2:
				x[i] = -float32(math.Ldexp(1, -56))
			}
		}
		var pk PackedBF16
		pk.Pack(sz.n, sz.k, x, sz.k)
		if pk.hasTiny(sz.n) {
			t.Fatalf("%+v: values of 2^-56 or more called tiny", sz)
		}
		gram := func(fast bool, r0, r1, cols int) []float32 {
			useBF16GoFast = fast
			c := make([]float32, (r1-r0)*cols)
			GramBF16(&pk, r0, r1, cols, c, cols)
			return c
		}
		for _, rc := range [][3]int{{0, sz.n, sz.n}, {sz.n / 3, sz.n, max(1, sz.n-2)}} {
			want, got := gram(false, rc[0], rc[1], rc[2]), gram(true, rc[0], rc[1], rc[2])
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v rows %v: value %d = %v, with the flushes %v", sz, rc, i, got[i], want[i])
				}
			}
		}
		x[len(x)-1] = float32(math.Ldexp(1, -57))
		pk.Pack(sz.n, sz.k, x, sz.k)
		if !pk.hasTiny(sz.n) {
			t.Fatalf("%+v: 2^-57 not called tiny", sz)
		}
	}
}
