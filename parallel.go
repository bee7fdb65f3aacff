package scn

import (
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/par"
)

// forChunks calls f(c, lo, hi) for consecutive chunks [lo, hi) of [0, n) of
// the given size, on up to GOMAXPROCS goroutines (par.Chunks, whose
// determinism contract it keeps: per-chunk partial results, combined in
// chunk order, are the same whatever GOMAXPROCS is).
func forChunks(n, chunk int, f func(c, lo, hi int)) { par.Chunks(n, chunk, f) }

// grow is lsq.Grow: s resized to n, reusing its storage when it can.
func grow[T any](s []T, n int) []T { return lsq.Grow(s, n) }
