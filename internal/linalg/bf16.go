package linalg

import (
	"math"
	"sync"

	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/par"
)

// Gram products in bfloat16.
//
// A bfloat16 keeps the 8 exponent bits of a float32 and 7 of its 23
// fraction bits. The product of two bfloat16 values is exact in float32, so
// a Gram product of values rounded to bfloat16 and summed in float32 has
// only the float32 rounding of its sums, as a float32 one, on inputs
// rounded to about 3 significant digits. On x86 CPUs with AVX512-BF16
// (Intel Cooper Lake and Sapphire Rapids, AMD Zen 4 and later) VDPBF16PS
// does 32 such multiply-adds per instruction, twice float32's FMA: the
// kernel (kernel.DotBF16x8x32) runs at about twice OpenBLAS's sgemm on
// these products (BenchmarkGramBF16). Elsewhere a Go loop forms the same
// sums in the same order, with the same bits, much more slowly.

// BF16Available reports whether GramBF16 runs at kernel speed here.
var BF16Available = kernel.AvailableBF16

// useBF16Kernel is BF16Available; tests turn it off to compare the Go loop.
var useBF16Kernel = kernel.AvailableBF16

// RoundBF16 returns the bits of the bfloat16 nearest v (ties to even).
// Zero and denormal values give a zero of v's sign: the kernel counts
// denormal bfloat16 inputs as zero, and so does the packing.
func RoundBF16(v float32) uint16 {
	u := math.Float32bits(v)
	if u&0x7f800000 == 0 {
		return uint16(u>>16) & 0x8000
	}
	if u&0x7fffffff > 0x7f800000 { // NaN: keep it a NaN
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// BF16Float returns the float32 of bfloat16 bits b.
func BF16Float(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// PackedBF16 is an n x k float32 matrix rounded to bfloat16 and packed for
// GramBF16: rows in groups of 32, and within a group, for each step s of
// kp = ceil(k/2), the 32 rows' pairs (columns 2s and 2s+1) as uint32s, the
// first value in the low half. Rows past n and the column past an odd k
// are zero.
type PackedBF16 struct {
	n, k, kp int
	p        []uint32
}

// packGroupRows is the rows per group of a PackedBF16.
const packGroupRows = 32

// Rows returns the number of rows packed.
func (pk *PackedBF16) Rows() int { return pk.n }

// Pack rounds the n x k matrix x (rows ldx apart) to bfloat16 and packs
// it into pk, reusing pk's storage.
func (pk *PackedBF16) Pack(n, k int, x []float32, ldx int) {
	pk.Reset(n, k)
	pk.PackRows(0, n, x, ldx)
}

// Reset makes pk an n x k matrix whose rows are still to be packed
// (PackRows), reusing pk's storage.
func (pk *PackedBF16) Reset(n, k int) {
	kp := (k + 1) / 2
	groups := (n + packGroupRows - 1) / packGroupRows
	size := groups * kp * packGroupRows
	if cap(pk.p) < size {
		pk.p = make([]uint32, size)
	}
	pk.n, pk.k, pk.kp, pk.p = n, k, kp, pk.p[:size]
}

// PackRows rounds and packs rows i0 .. i0+rows-1 of pk from x (rows rows
// of pk's k values, ldx apart). i0 must be a multiple of 32, and rows too
// unless they end pk's rows: a group of 32 is packed by one call.
func (pk *PackedBF16) PackRows(i0, rows int, x []float32, ldx int) {
	if i0%packGroupRows != 0 || i0 < 0 || i0+rows > pk.n || (rows%packGroupRows != 0 && i0+rows != pk.n) {
		panic("linalg: PackRows out of its groups")
	}
	kp, k := pk.kp, pk.k
	split := 0 // GOMAXPROCS
	if rows*k < 1<<16 {
		split = 1
	}
	groups := (rows + packGroupRows - 1) / packGroupRows
	par.ChunksOn(split, groups, 1, func(g, _, _ int) {
		g0 := i0/packGroupRows + g
		dst := pk.p[g0*kp*packGroupRows : (g0+1)*kp*packGroupRows]
		for t := 0; t < packGroupRows; t++ {
			i := g*packGroupRows + t // row of x
			if i >= rows {
				for s := 0; s < kp; s++ {
					dst[s*packGroupRows+t] = 0
				}
				continue
			}
			row := x[i*ldx : i*ldx+k]
			s := 0
			for ; 2*s+1 < k; s++ {
				dst[s*packGroupRows+t] = uint32(RoundBF16(row[2*s])) | uint32(RoundBF16(row[2*s+1]))<<16
			}
			if s < kp {
				dst[s*packGroupRows+t] = uint32(RoundBF16(row[2*s]))
			}
		}
	})
}

// GramBF16 sets c[(i-r0)*ldc+j] to the product of packed rows i and j,
// for i in [r0, r1) and j < n (rows of the same packed matrix): the sum
// over the columns of their bfloat16 values' products, in float32, pair by
// pair in column order (within a pair, the second columns' product is
// added first). Each value is formed the same way whatever r0, r1, n and
// the number of goroutines, and with the kernel or without.
func GramBF16(pk *PackedBF16, r0, r1, n int, c []float32, ldc int) {
	if r0 < 0 || r1 > pk.n || n > pk.n || r0 > r1 || n < 0 {
		panic("linalg: GramBF16 rows out of range")
	}
	if r1 == r0 || n == 0 {
		return
	}
	if len(c) < (r1-r0-1)*ldc+n {
		panic("linalg: GramBF16 output too short")
	}
	colGroups := (n + packGroupRows - 1) / packGroupRows
	split := 0
	if (r1-r0)*n*pk.kp < 1<<20 {
		split = 1
	}
	// The Go loop without its flushes where no sum can be denormal.
	goFast := !useBF16Kernel && useBF16GoFast && pk.kp > 0 && !pk.hasTiny(max(r1, n))
	// Column groups in chunks of 4 (128 columns) per goroutine call.
	par.ChunksOn(split, colGroups, 4, func(_, g0, g1 int) {
		if goFast {
			gramBF16Go(pk, r0, r1, n, g0, g1, c, ldc)
			return
		}
		var tile [8 * packGroupRows]float32
		var off [8]int
		for g := g0; g < g1; g++ {
			j0 := g * packGroupRows
			nj := min(packGroupRows, n-j0)
			bp := pk.p[g*pk.kp*packGroupRows:]
			for i0 := r0; i0 < r1; i0 += 8 {
				ni := min(8, r1-i0)
				for t := range off {
					i := min(i0+t, r1-1) // rows past r1: any row, discarded
					off[t] = 4 * ((i/packGroupRows)*pk.kp*packGroupRows + i%packGroupRows)
				}
				tile = [8 * packGroupRows]float32{}
				if useBF16Kernel && pk.kp > 0 {
					kernel.DotBF16x8x32(pk.kp, &pk.p[0], &off, &bp[0], &tile[0], bf16Chunk)
				} else {
					dotBF16Go(pk, &off, bp, &tile)
				}
				for t := 0; t < ni; t++ {
					copy(c[(i0-r0+t)*ldc+j0:(i0-r0+t)*ldc+j0+nj], tile[t*packGroupRows:t*packGroupRows+nj])
				}
			}
		}
	})
}

// bf16Chunk is the pairs (2 columns each) whose products the kernel sums
// in float32 before adding them to the output: 64 pairs keep the error of
// a Gram product over 2048 values in (0, 1) near sgemm's (about 1e-6 of
// the value, against 1e-5 for one sum over all of them; TestGramBF16Error).
// A model's bits depend on it.
const bf16Chunk = 64

// dotBF16Go is kernel.DotBF16x8x32 in Go, with its bits: in each chunk of
// bf16Chunk pairs, VDPBF16PS adds the second values' product and then the
// first's, each rounded to float32 (the products are exact), with
// denormal sums flushed to zero; the chunk's sum is then added to the
// tile (an ordinary float32 addition).
//
// Four columns go together (four independent sums, row t's pair read once
// for them), each with the order above.
func dotBF16Go(pk *PackedBF16, off *[8]int, b []uint32, tile *[8 * packGroupRows]float32) {
	kp := pk.kp
	if kp == 0 {
		*tile = [8 * packGroupRows]float32{}
		return
	}
	b = b[:kp*packGroupRows]
	for t := 0; t < 8; t++ {
		a := pk.p[off[t]/4:]
		a = a[:(kp-1)*packGroupRows+1]
		for j := 0; j < packGroupRows; j += 4 {
			var sum0, sum1, sum2, sum3 float32
			for s0 := 0; s0 < kp; s0 += bf16Chunk {
				var acc0, acc1, acc2, acc3 float32
				for s := s0; s < min(s0+bf16Chunk, kp); s++ {
					x := a[s*packGroupRows]
					xh, xl := math.Float32frombits(x&0xffff0000), math.Float32frombits(x<<16)
					y := b[s*packGroupRows+j : s*packGroupRows+j+4]
					acc0 = ftz(acc0 + xh*math.Float32frombits(y[0]&0xffff0000))
					acc1 = ftz(acc1 + xh*math.Float32frombits(y[1]&0xffff0000))
					acc2 = ftz(acc2 + xh*math.Float32frombits(y[2]&0xffff0000))
					acc3 = ftz(acc3 + xh*math.Float32frombits(y[3]&0xffff0000))
					acc0 = ftz(acc0 + xl*math.Float32frombits(y[0]<<16))
					acc1 = ftz(acc1 + xl*math.Float32frombits(y[1]<<16))
					acc2 = ftz(acc2 + xl*math.Float32frombits(y[2]<<16))
					acc3 = ftz(acc3 + xl*math.Float32frombits(y[3]<<16))
				}
				sum0 += acc0
				sum1 += acc1
				sum2 += acc2
				sum3 += acc3
			}
			tile[t*packGroupRows+j] = sum0
			tile[t*packGroupRows+j+1] = sum1
			tile[t*packGroupRows+j+2] = sum2
			tile[t*packGroupRows+j+3] = sum3
		}
	}
}

// ftz flushes a denormal float32 to zero of its sign.
func ftz(v float32) float32 {
	if u := math.Float32bits(v); u&0x7f800000 == 0 {
		return math.Float32frombits(u & 0x80000000)
	}
	return v
}

// useBF16GoFast lets GramBF16's Go loop leave out the flushes where they
// change nothing (gramBF16Go); tests turn it off to compare.
var useBF16GoFast = true

// bf16MinExp is the smallest biased exponent of a bfloat16 that can never
// make a denormal sum in GramBF16 (hasTiny): 2^-56.
const bf16MinExp = 127 - 56

// hasTiny reports whether any of the first rows packed rows (their groups
// of 32) holds a nonzero value below 2^-56 in magnitude. Without one, no
// sum that GramBF16 forms can be denormal, so the flushes of VDPBF16PS's
// definition change nothing: a bfloat16 value is an integer of 8 bits
// times 2^(e-7), so the product of two values of exponents e, f >= -56 is
// an integer times 2^(e+f-14), a multiple of 2^-126; so is every exact
// sum of such products, and a float32 rounding of a nonzero multiple of
// 2^-126 is at least 2^-126 in magnitude, a normal number (a zero sum is
// zero). Infinities and NaNs are not tiny.
func (pk *PackedBF16) hasTiny(rows int) bool {
	groups := (rows + packGroupRows - 1) / packGroupRows
	for _, u := range pk.p[:groups*pk.kp*packGroupRows] {
		lo, hi := (u>>7)&0xff, (u>>23)&0xff
		if (lo != 0 && lo < bf16MinExp) || (hi != 0 && hi < bf16MinExp) {
			return true
		}
	}
	return false
}

// bf16GoPool keeps gramBF16Go's buffers between calls (a fit calls
// GramBF16 for every block).
var bf16GoPool sync.Pool

// bf16Segment is the pairs gramBF16Go decodes to float32 at a time.
const bf16Segment = 16 * bf16Chunk

// gramBF16Go is GramBF16 on column groups [g0, g1) without the kernel when
// no sum can be denormal (hasTiny): the Go loop's sums, the same bits, with
// the flushes left out as they change nothing. It decodes the values to
// float32 a segment of pairs at a time, each pair as its second value then
// its first (the order in which VDPBF16PS adds their products), so that
// each chunk's sum is a plain float32 dot product of bf16Chunk pairs in
// index order from +0 (the products are exact); dot2x3 forms six of them
// at once, two columns by three rows, and each output adds its chunks'
// sums in order, segment after segment, as the Go loop and the kernel do.
func gramBF16Go(pk *PackedBF16, r0, r1, n, g0, g1 int, c []float32, ldc int) {
	const G = packGroupRows
	kp := pk.kp
	seg := min(kp, bf16Segment)
	buf, _ := bf16GoPool.Get().(*[]float32)
	if buf == nil {
		buf = new([]float32)
	}
	defer bf16GoPool.Put(buf)
	size := (r1-r0)*G + G*2*seg + 8*2*seg
	if cap(*buf) < size {
		*buf = make([]float32, size)
	}
	sums := (*buf)[:(r1-r0)*G]
	bd := (*buf)[(r1-r0)*G : (r1-r0)*G+G*2*seg] // the group's 32 columns, 2*seg values each
	ad := (*buf)[(r1-r0)*G+G*2*seg : size]      // eight rows
	decode := func(dst []float32, src []uint32, pairs int) {
		dst = dst[:2*pairs]
		for s := range pairs {
			u := src[s*G]
			dst[2*s] = math.Float32frombits(u & 0xffff0000)
			dst[2*s+1] = math.Float32frombits(u << 16)
		}
	}
	var out [6]float32
	for g := g0; g < g1; g++ {
		j0 := g * G
		nj := min(G, n-j0)
		bp := pk.p[g*kp*G : (g+1)*kp*G]
		clear(sums)
		for s0 := 0; s0 < kp; s0 += seg {
			ps := min(seg, kp-s0)
			w := 2 * ps
			for j := 0; j < nj; j++ {
				decode(bd[j*w:], bp[s0*G+j:], ps)
			}
			for i0 := r0; i0 < r1; i0 += 8 {
				for t := 0; t < 8; t++ {
					i := min(i0+t, r1-1) // rows past r1: the last, discarded
					decode(ad[t*w:], pk.p[(i/G)*kp*G+i%G+s0*G:], ps)
				}
				for jp := 0; jp < nj; jp += 2 {
					jq := min(jp+1, nj-1) // a last odd column repeats
					for rt := 0; rt < 8 && i0+rt < r1; rt += 3 {
						ra, rb, rc := rt, min(rt+1, 7), min(rt+2, 7)
						for c0 := 0; c0 < w; c0 += 2 * bf16Chunk {
							c1 := min(w, c0+2*bf16Chunk)
							dot2x3(bd[jp*w+c0:jp*w+c1], bd[jq*w+c0:jq*w+c1],
								ad[ra*w+c0:ra*w+c1], ad[rb*w+c0:rb*w+c1], ad[rc*w+c0:rc*w+c1], &out)
							for r := 0; r < 3 && rt+r < 8 && i0+rt+r < r1; r++ {
								row := sums[(i0-r0+rt+r)*G:]
								row[jp] += out[r]
								if jq != jp {
									row[jq] += out[3+r]
								}
							}
						}
					}
				}
			}
		}
		for i := r0; i < r1; i++ {
			copy(c[(i-r0)*ldc+j0:(i-r0)*ldc+j0+nj], sums[(i-r0)*G:(i-r0)*G+nj])
		}
	}
}
