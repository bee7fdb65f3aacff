package lsq

import (
	"context"
	"runtime"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
)

// BF16PassChunk is the nodes whose outputs a one-pass fit with bfloat16
// Gram products computes and packs at a time (a multiple of 32, the rows
// of a packed group).
const BF16PassChunk = 256

// accumulation is a one-pass engine's state between accumulate and the
// last addAccumulated: the block sizes in order, the next block to add
// and H^T T of all the columns (L x m). G's sums are in g's lower part:
// row i holds G[i][0..l1) with l1 the end of i's block (so each block's
// diagonal block is there in full).
type accumulation struct {
	blocks []int
	next   int
	ht     []float64
}

// Accumulate forms, in one pass over the row shards, the sums that tryBlock
// forms block by block for the columns of blocks (their sizes, in order),
// and keeps them for addAccumulated (blocks come after the engine's
// columns, which have no stored outputs). hidden(lo, hi, j0, j1, h) must write
// the hidden outputs of columns [j0, j1) on images [lo, hi) into h
// (node-major: j1-j0 rows of hi-lo), the bits the block-by-block path
// would store for them. For each shard in order it computes every column's
// outputs into one reused buffer, then each block's products as tryBlock's
// shardCross does (products, same shapes and operands) and reduces them
// into G's rows of that block: every sum is reduced over the shards in
// shard order, as tryBlock reduces it. ctx is
// checked between shards; on cancellation accumulate returns ctx's error
// and the engine stays without columns.
//
// The blocks' products within a shard are independent (each writes its own
// rows of g), so they run in parallel, largest first.
func (e *Gram) Accumulate(ctx context.Context, blocks []int, hidden func(lo, hi, j0, j1 int, h []float32)) error {
	rmax := 0
	for _, sh := range e.Shards {
		rmax = max(rmax, sh.Hi-sh.Lo)
	}
	ps := e.NewPass(blocks, rmax)
	for _, sh := range e.Shards {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.PassShard(ps, sh.Lo, sh.Hi-sh.Lo, hidden)
	}
	e.EndPass(ps)
	return nil
}

// Pass is accumulate's state between shards: the blocks, their
// first columns, one shard's buffers and H^T T so far.
type Pass struct {
	blocks, off []int
	L           int
	h, hchunk   []float32
	h64         []float64
	htShard, ht []float64
	free        chan *passScratch
}

// passScratch is one goroutine's products of a block in a shard.
type passScratch struct {
	g32     []float32
	g64, ht []float64
}

// NewPass prepares an engine without stored hidden outputs for a pass over
// shards of at most rmax images that accumulates the sums of the columns of
// blocks, which follow the engine's columns.
func (e *Gram) NewPass(blocks []int, rmax int) *Pass {
	if e.Acc != nil || (e.L > 0 && e.Shards[0].H != nil) {
		panic("scn: accumulate on an engine with sums pending or hidden outputs stored")
	}
	// A later stage of a staged fit (runStaged) starts after the engine's
	// columns: the pass computes the outputs of every column, the old ones
	// again, and the products of the new blocks only.
	ps := &Pass{blocks: blocks, off: make([]int, len(blocks)), L: e.L}
	for k, b := range blocks {
		ps.off[k] = ps.L
		ps.L += b
	}
	L := ps.L
	e.Reserve(L)
	ps.ht = make([]float64, L*e.M)
	// With bfloat16 Gram products a shard's outputs are computed a chunk
	// of nodes at a time and packed at once (half their float32 bytes), so
	// the pass holds the packed shard, one chunk and the shard's part of
	// H^T T; otherwise one shard's outputs of every node in float32 (and
	// float64 for float64 products).
	switch {
	case e.BF16:
		ps.hchunk = make([]float32, min(L, BF16PassChunk)*rmax)
		ps.htShard = make([]float64, L*e.M)
	case e.F32:
		ps.h = make([]float32, L*rmax)
	default:
		ps.h = make([]float32, L*rmax)
		ps.h64 = make([]float64, L*rmax)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(blocks)))
	ps.free = make(chan *passScratch, workers)
	for range workers {
		ps.free <- &passScratch{}
	}
	return ps
}

// PassShard adds the products of the shard of r images from image lo (the
// targets e.tc index) to the pass's sums.
func (e *Gram) PassShard(ps *Pass, lo, r int, hidden func(lo, hi, j0, j1 int, h []float32)) {
	L, m, ld, nb := ps.L, e.M, e.LD, len(ps.blocks)
	var hs []float32
	var hs64 []float64
	if e.BF16 {
		e.pk.Reset(L, r)
		for j0 := 0; j0 < L; j0 += BF16PassChunk {
			j1 := min(L, j0+BF16PassChunk)
			hc := ps.hchunk[:(j1-j0)*r]
			hidden(lo, lo+r, j0, j1, hc)
			e.pk.PackRows(j0, j1-j0, hc, r)
			e.ShardHT(hc, lo, r, ps.htShard[j0*m:j1*m])
		}
	} else {
		hs = ps.h[:L*r]
		hidden(lo, lo+r, 0, L, hs)
		if ps.h64 != nil {
			hs64 = ps.h64[:L*r]
			par.Chunks(L*r, 1<<16, func(_, lo, hi int) {
				for i, v := range hs[lo:hi] {
					hs64[lo+i] = float64(v)
				}
			})
		}
	}
	par.Chunks(nb, 1, func(c, _, _ int) {
		k := nb - 1 - c
		l0, b := ps.off[k], ps.blocks[k]
		l1 := l0 + b
		sc := <-ps.free
		defer func() { ps.free <- sc }()
		if e.F32 {
			sc.g32 = Grow(sc.g32, b*l1)
		} else {
			sc.g64 = Grow(sc.g64, b*l1)
		}
		if e.BF16 {
			// products' Gram product (whose bits do not depend on
			// the call's shape); H^T T was formed above by shardHT,
			// value by value as products forms it.
			linalg.GramBF16(&e.pk, l0, l1, l1, sc.g32, l1)
		} else {
			sc.ht = Grow(sc.ht, b*m)
			var w []float64
			if hs64 != nil {
				w = hs64[:l1*r]
			}
			e.Products(hs[:l1*r], nil, w, lo, r, l0, b, sc.g32, sc.g64, sc.ht)
		}
		for i := 0; i < b; i++ {
			row := e.G[(l0+i)*ld : (l0+i)*ld+l1]
			if e.F32 {
				Reduce32(row, sc.g32[i*l1:(i+1)*l1])
			} else {
				Reduce(row, sc.g64[i*l1:(i+1)*l1])
			}
		}
		if e.BF16 {
			Reduce(ps.ht[l0*m:l1*m], ps.htShard[l0*m:l1*m])
		} else {
			Reduce(ps.ht[l0*m:l1*m], sc.ht)
		}
	})
}

// EndPass keeps the pass's sums for addAccumulated.
func (e *Gram) EndPass(ps *Pass) {
	if len(ps.blocks) > 0 {
		e.Acc = &accumulation{blocks: ps.blocks, ht: ps.ht}
	}
}

// AddAccumulated grows the factor by the next accumulated block, from the
// sums tryBlock would have reduced for it, and reports whether it could:
// false if a column of the block is dependent on those before it (possible
// with a ridge only through rounding). A one-pass engine cannot then leave
// the column out as addBlock does, which needs the hidden outputs: it drops
// its accumulated sums and keeps its columns so far, so that after
// loadColumns the fit can go on block by block with addBlock.
func (e *Gram) AddAccumulated() bool {
	a := e.Acc
	b := a.blocks[a.next]
	l0, m, ld := e.L, e.M, e.LD
	l1 := l0 + b
	// The block's rows of g are its sums until growFactor writes the
	// factor over them: copy them out first.
	cross := Grow(e.cross, b*l1)
	e.cross = cross
	for k := 0; k < b; k++ {
		copy(cross[k*l1:(k+1)*l1], e.G[(l0+k)*ld:(l0+k)*ld+l1])
	}
	if dep := e.GrowFactor(cross, a.ht[l0*m:l1*m], b); dep != nil {
		e.Acc = nil
		return false
	}
	a.next++
	if a.next == len(a.blocks) {
		e.Acc = nil
	}
	return true
}

// LoadColumns stores the hidden outputs of the engine's columns in every
// shard (hidden as for accumulate), which a one-pass engine needs before
// it can add blocks with addBlock.
func (e *Gram) LoadColumns(hidden func(lo, hi, j0, j1 int, h []float32)) {
	for s := range e.Shards {
		sh := &e.Shards[s]
		r := sh.Hi - sh.Lo
		sh.H = make([]float32, e.L*r)
		hidden(sh.Lo, sh.Hi, 0, e.L, sh.H)
		e.Store(sh.H, sh.H)
	}
}
