package dataset

import (
	"math"
	"slices"
	"testing"
)

// moments returns the centre of mass and cov(row, col) / var(row) of a
// grey image.
func moments(pix []float32, rows, cols int) (my, mx, slant float64) {
	var mass float64
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := float64(pix[r*cols+c])
			mass += v
			my += v * float64(r)
			mx += v * float64(c)
		}
	}
	my, mx = my/mass, mx/mass
	var vyy, vxy float64
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := float64(pix[r*cols+c])
			vyy += v * (float64(r) - my) * (float64(r) - my)
			vxy += v * (float64(r) - my) * (float64(c) - mx)
		}
	}
	return my, mx, vxy / vyy
}

// slantedBar is a bar of the given slant (columns per row) through
// (cy, cx), three pixels wide and rows 8 to 8 from cy, on a rows x cols
// image.
func slantedBar(rows, cols int, cy, cx, slant float64) []float32 {
	pix := make([]float32, rows*cols)
	for r := int(cy) - 8; r <= int(cy)+8; r++ {
		x := cx + slant*(float64(r)-cy)
		for c := 0; c < cols; c++ {
			if math.Abs(float64(c)-x) <= 1 {
				pix[r*cols+c] = 1
			}
		}
	}
	return pix
}

// TestDeskewStraightensAndCentres: a slanted bar off centre comes out
// upright (cov(row, col) near 0, where it was 0.4 var(row)) with its
// centre of mass on pixel (rows/2, cols/2); an upright bar on that pixel
// comes out as it went in, bit for bit; the input is never changed.
func TestDeskewStraightensAndCentres(t *testing.T) {
	const rows, cols = 28, 28
	in := slantedBar(rows, cols, 12, 11, 0.4)
	keep := append([]float32(nil), in...)
	_, _, before := moments(in, rows, cols)
	out := Deskew(in, 1, rows, cols)
	my, mx, after := moments(out, rows, cols)
	if math.Abs(before-0.4) > 0.05 || math.Abs(after) > 0.03 {
		t.Errorf("slant %.3f -> %.3f, want 0.4 -> 0", before, after)
	}
	if math.Abs(my-14) > 0.3 || math.Abs(mx-14) > 0.3 {
		t.Errorf("centre of mass (%.2f, %.2f), want (14, 14)", my, mx)
	}
	for i := range in {
		if in[i] != keep[i] {
			t.Fatal("Deskew changed its input")
		}
	}
	upright := slantedBar(rows, cols, 14, 14, 0)
	if got := Deskew(upright, 1, rows, cols); !slices.Equal(got, upright) {
		t.Error("an upright, centred bar changed")
	}
}

// TestDeskewPlanesAlike: a colour image of three equal planes deskews to
// three copies of the grey result (one shear, measured on the planes' sum,
// for every plane); an image without ink, or with ink on one row only,
// comes back as it was.
func TestDeskewPlanesAlike(t *testing.T) {
	const rows, cols = 20, 24
	grey := slantedBar(rows, cols, 9, 13, -0.3)
	colour := append(append(append([]float32(nil), grey...), grey...), grey...)
	want := Deskew(grey, 1, rows, cols)
	got := Deskew(colour, 3, rows, cols)
	for k := 0; k < 3; k++ {
		if !slices.Equal(got[k*rows*cols:(k+1)*rows*cols], want) {
			t.Fatalf("plane %d differs from the grey image's deskew", k)
		}
	}
	empty := make([]float32, rows*cols)
	if !slices.Equal(Deskew(empty, 1, rows, cols), empty) {
		t.Error("an image without ink changed")
	}
	line := make([]float32, rows*cols)
	line[5*cols+3], line[5*cols+9] = 1, 0.5
	if !slices.Equal(Deskew(line, 1, rows, cols), line) {
		t.Error("ink on one row (no vertical spread to measure a slant on) changed")
	}
}

// BenchmarkDeskew is one 28 x 28 image.
func BenchmarkDeskew(b *testing.B) {
	img := slantedBar(28, 28, 12, 11, 0.4)
	for b.Loop() {
		Deskew(img, 1, 28, 28)
	}
}

// TestShearRowIsBilinear: the row sampler gives bilinear's value at every
// column, for shifts and rows inside, across and outside the image.
func TestShearRowIsBilinear(t *testing.T) {
	const rows, cols = 7, 9
	plane := make([]float32, rows*cols)
	for i := range plane {
		plane[i] = float32(i%5) / 4
	}
	dst := make([]float32, cols)
	for _, sy := range []float64{-1.5, -0.25, 0, 2.7, 5.5, 6.9, 8} {
		for _, shift := range []float64{-10, -2.3, 0, 0.5, 3.99, 12} {
			shearRow(dst, plane, rows, cols, sy, shift)
			for c := range dst {
				if want := bilinear(plane, rows, cols, sy, float64(c)+shift); dst[c] != want {
					t.Fatalf("row %g shift %g column %d: %v, bilinear %v", sy, shift, c, dst[c], want)
				}
			}
		}
	}
}
