package scn

import "github.com/scn2d/scn/internal/par"

// forChunks calls f(c, lo, hi) for consecutive chunks [lo, hi) of [0, n) of
// the given size, on up to GOMAXPROCS goroutines (par.Chunks, whose
// determinism contract it keeps: per-chunk partial results, combined in
// chunk order, are the same whatever GOMAXPROCS is).
func forChunks(n, chunk int, f func(c, lo, hi int)) { par.Chunks(n, chunk, f) }
