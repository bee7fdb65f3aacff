package augment

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refAugment is the test's own copy of an image: the mirror built
// explicitly, then every source pixel scattered to its shifted place in a
// zeroed image.
func refAugment(src []float32, rows, cols, chans int, mv Move) []float32 {
	plane := rows * cols
	mir := append([]float32(nil), src...)
	if mv.Flip {
		for ch := 0; ch < chans; ch++ {
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					mir[ch*plane+r*cols+c] = src[ch*plane+r*cols+(cols-1-c)]
				}
			}
		}
	}
	out := make([]float32, len(src))
	for ch := 0; ch < chans; ch++ {
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				tr, tc := r+mv.DY, c+mv.DX
				if tr >= 0 && tr < rows && tc >= 0 && tc < cols {
					out[ch*plane+tr*cols+tc] = mir[ch*plane+r*cols+c]
				}
			}
		}
	}
	return out
}

// TestAugmentImage: mirrored and shifted copies of small odd-sized grey
// and colour images against the scatter reference, every move.
func TestAugmentImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for _, sh := range [][3]int{{5, 7, 1}, {7, 5, 3}, {3, 3, 2}} {
		rows, cols, ch := sh[0], sh[1], sh[2]
		src := make([]float32, rows*cols*ch)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		dst := make([]float32, len(src))
		for _, flip := range []bool{false, true} {
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					mv := Move{Flip: flip, DY: dy, DX: dx}
					for i := range dst {
						dst[i] = 99 // every pixel must be written
					}
					Image(dst, src, rows, cols, ch, mv)
					if want := refAugment(src, rows, cols, ch, mv); !slices.Equal(dst, want) {
						t.Fatalf("%dx%dx%d %+v: got %v, want %v", rows, cols, ch, mv, dst, want)
					}
				}
			}
		}
	}
}

// TestAugmentMoves: the draws stay in range, never (0, 0), come from the
// seed alone and are laid out image by image.
func TestAugmentMoves(t *testing.T) {
	mv := Moves(true, 2, 3, 50, 7)
	if len(mv) != 50*4 || !slices.Equal(mv, Moves(true, 2, 3, 50, 7)) {
		t.Fatal("moves not of 1 + copies per image or not deterministic")
	}
	if slices.Equal(mv, Moves(true, 2, 3, 50, 8)) {
		t.Fatal("moves do not depend on the seed")
	}
	flips := 0
	for i, m := range mv {
		if i%4 == 0 {
			if m != (Move{Flip: true}) {
				t.Fatalf("image %d's first copy %+v, want the mirror", i/4, m)
			}
			continue
		}
		if m.DY == 0 && m.DX == 0 || m.DY < -2 || m.DY > 2 || m.DX < -2 || m.DX > 2 {
			t.Fatalf("move %d: %+v", i, m)
		}
		if m.Flip {
			flips++
		}
	}
	if flips < 40 || flips > 110 {
		t.Errorf("%d of 150 shifted copies mirrored", flips)
	}
	if !slices.Equal(Moves(true, 2, 3, 10, 7), mv[:40]) {
		t.Error("the moves of the first images depend on N")
	}
}

// TestMovesFrom: the copies of images first ... first+n-1 are those Moves
// draws for them in the whole sequence, with and without flips, so that
// the parts of a set, each drawn from its place, make the set's copies.
func TestMovesFrom(t *testing.T) {
	for _, flip := range []bool{false, true} {
		const shift, copies, total = 3, 2, 50
		whole := Moves(flip, shift, copies, total, 7)
		e := copies
		if flip {
			e++
		}
		var joined []Move
		for _, part := range [][2]int{{0, 13}, {13, 14}, {14, 40}, {40, 50}} {
			got := MovesFrom(flip, shift, copies, part[0], part[1]-part[0], 7)
			if len(got) != (part[1]-part[0])*e {
				t.Fatalf("flip %v: %d copies for images %v, want %d", flip, len(got), part, (part[1]-part[0])*e)
			}
			joined = append(joined, got...)
		}
		if !slices.Equal(joined, whole) {
			t.Errorf("flip %v: the parts' copies differ from the whole set's", flip)
		}
		if first := MovesFrom(flip, shift, copies, 0, 13, 7); !slices.Equal(first, whole[:13*e]) {
			t.Errorf("flip %v: MovesFrom at 0 differs from Moves", flip)
		}
	}
}
