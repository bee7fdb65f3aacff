// Package augment makes the augmented copies of images for scn's data
// augmentation (Config.Augment): which copies each image gets (Moves: the
// mirror image, shifted copies drawn from a seed) and the copy itself
// (Image: mirrored, then shifted, zeros where the shift leaves no pixel),
// and the setting itself (Spec, the fields of scn.Augment: its parsing
// from scn train's --augment words, its checks, its rows per image;
// spec.go). The fit's use of the copies stays in the root package.
//
// It may import the standard library only; never the root package scn or
// any package above it.
package augment

import "math/rand/v2"

// Move is one augmented copy of an image: mirrored or not, then shifted
// by (DY, DX).
type Move struct {
	Flip   bool
	DY, DX int
}

// seedStream is the PCG stream of the augmentation's draws.
const seedStream = 0xa06e

// Moves returns the augmented copies of n images, image by image: the
// mirror image first (flip), then copies shifted copies, each shift drawn
// uniformly from [-shift, shift]^2 without (0, 0) and, with flip, mirrored
// or not at random; deterministic in seed.
func Moves(flip bool, shift, copies, n int, seed uint64) []Move {
	return MovesFrom(flip, shift, copies, 0, n, seed)
}

// MovesFrom returns the copies of images first ... first+n-1 of the
// sequence Moves draws (Moves(..., first+n, seed)[first*e:] for e copies
// an image), drawing and dropping those of the images before first: the
// copies of a part of a set are those of its place in the set.
func MovesFrom(flip bool, shift, copies, first, n int, seed uint64) []Move {
	rng := rand.New(rand.NewPCG(seed, seedStream))
	e := copies
	if flip {
		e++
	}
	out := make([]Move, 0, n*e)
	for i := 0; i < first+n; i++ {
		keep := i >= first // the copies of the images before first are drawn, not kept
		if flip && keep {
			out = append(out, Move{Flip: true})
		}
		for c := 0; c < copies; c++ {
			var mv Move
			for mv.DY == 0 && mv.DX == 0 {
				mv.DY = rng.IntN(2*shift+1) - shift
				mv.DX = rng.IntN(2*shift+1) - shift
			}
			if flip {
				mv.Flip = rng.IntN(2) == 1
			}
			if keep {
				out = append(out, mv)
			}
		}
	}
	return out
}

// Image writes into dst the copy of the image src (chans planes of rows x
// cols) that mv makes: out(r, c) = in'(r - dy, c - dx), in' the image or
// its mirror (in'(r, c) = in(r, cols-1-c)), 0 outside.
func Image(dst, src []float32, rows, cols, chans int, mv Move) {
	plane := rows * cols
	for ch := 0; ch < chans; ch++ {
		s, d := src[ch*plane:(ch+1)*plane], dst[ch*plane:(ch+1)*plane]
		for r := 0; r < rows; r++ {
			drow := d[r*cols : (r+1)*cols]
			sr := r - mv.DY
			if sr < 0 || sr >= rows {
				clear(drow)
				continue
			}
			srow := s[sr*cols : (sr+1)*cols]
			for c := range drow {
				sc := c - mv.DX
				switch {
				case sc < 0 || sc >= cols:
					drow[c] = 0
				case mv.Flip:
					drow[c] = srow[cols-1-sc]
				default:
					drow[c] = srow[sc]
				}
			}
		}
	}
}
