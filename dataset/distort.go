package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Distortion holds the parameters of the random elastic and affine
// distortions of Distort (Simard, Steinkraus & Platt, "Best practices for
// convolutional neural networks applied to visual document analysis",
// ICDAR 2003). Lengths are in pixels.
type Distortion struct {
	// Sigma is the standard deviation of the Gaussian that smooths the
	// random displacement fields; Alpha scales them (Simard et al.: sigma
	// 4 to 6 and alpha 34 to 36 on 28 x 28 digits; Alpha 0 turns the
	// elastic part off).
	Sigma, Alpha float64
	// Rotate is the largest rotation in degrees (uniform in +-Rotate).
	Rotate float64
	// ScaleMin and ScaleMax bound the scale factor (uniform between them;
	// both 1 turn scaling off).
	ScaleMin, ScaleMax float64
	// Shear is the largest horizontal shear factor (x' = x + s y, s
	// uniform in +-Shear).
	Shear float64
	// Shift is the largest translation along each axis (uniform in
	// +-Shift).
	Shift float64
}

// DefaultDistortion returns the distortions of scn derive distorted:
// sigma 5, alpha 35 (the middle of Simard et al.'s ranges for 28 x 28),
// rotation +-15 degrees, scale 0.85 to 1.15, shear +-0.2 (about 11
// degrees), translation +-2 pixels.
func DefaultDistortion() Distortion {
	return Distortion{Sigma: 5, Alpha: 35, Rotate: 15, ScaleMin: 0.85, ScaleMax: 1.15, Shear: 0.2, Shift: 2}
}

// Validate refuses parameters outside their ranges.
func (p Distortion) Validate() error {
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !fin(p.Sigma) || !fin(p.Alpha) || !fin(p.Rotate) || !fin(p.ScaleMin) || !fin(p.ScaleMax) || !fin(p.Shear) || !fin(p.Shift):
		return fmt.Errorf("dataset: distortion parameters must be finite: %+v", p)
	case p.Sigma < 0.5 || p.Sigma > 50:
		return fmt.Errorf("dataset: distortion sigma %g, want 0.5 to 50 pixels", p.Sigma)
	case p.Alpha < 0 || p.Alpha > 1000:
		return fmt.Errorf("dataset: distortion alpha %g, want 0 to 1000", p.Alpha)
	case p.Rotate < 0 || p.Rotate > 180:
		return fmt.Errorf("dataset: rotation %g degrees, want 0 to 180", p.Rotate)
	case p.ScaleMin <= 0 || p.ScaleMax < p.ScaleMin || p.ScaleMax > 10:
		return fmt.Errorf("dataset: scale %g to %g, want 0 < min <= max <= 10", p.ScaleMin, p.ScaleMax)
	case p.Shear < 0 || p.Shear > 2:
		return fmt.Errorf("dataset: shear %g, want 0 to 2", p.Shear)
	case p.Shift < 0 || p.Shift > 1000:
		return fmt.Errorf("dataset: shift %g pixels, want 0 to 1000", p.Shift)
	}
	return nil
}

// Distort returns a randomly distorted copy of the rows x cols image img
// (grey levels in [0, 1]), drawing from r: the output pixel at p (relative
// to the image centre c) takes the input's value, by bilinear
// interpolation (0 outside the image), at
//
//	c + A^-1 (p - t) + alpha * (G_sigma * U_x, G_sigma * U_y)(p)
//
// where A = rotation(theta) scale(k) shear(s), t the translation, and U_x,
// U_y fields of independent uniform values on [-1, 1] per pixel smoothed
// by a Gaussian of sigma (truncated at 3 sigma, the image zero-padded) —
// Simard et al.'s elastic distortion (their fields are normalised by the
// kernel's sum, as here). The random numbers are drawn in a fixed order
// whatever the parameters (angle, scale, shear, two shifts, then the two
// fields), so that zero strength gives the image itself and the same r
// state gives the same image. The result stays in [0, 1].
func Distort(img []float32, rows, cols int, p Distortion, r *rand.Rand) []float32 {
	theta := (2*r.Float64() - 1) * p.Rotate * math.Pi / 180
	k := p.ScaleMin + r.Float64()*(p.ScaleMax-p.ScaleMin)
	sh := (2*r.Float64() - 1) * p.Shear
	ty, tx := (2*r.Float64()-1)*p.Shift, (2*r.Float64()-1)*p.Shift
	n := rows * cols
	ux, uy := make([]float64, n), make([]float64, n)
	for i := range ux {
		ux[i] = 2*r.Float64() - 1
	}
	for i := range uy {
		uy[i] = 2*r.Float64() - 1
	}
	dx, dy := smooth(ux, rows, cols, p.Sigma), smooth(uy, rows, cols, p.Sigma)
	// A^-1 of A = R(theta) K(k) S(sh), with S = [[1, sh], [0, 1]] acting on
	// (x, y): A^-1 = S^-1 K^-1 R(-theta).
	c, s := math.Cos(theta), math.Sin(theta)
	cy, cx := float64(rows-1)/2, float64(cols-1)/2
	out := make([]float32, n)
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			px, py := float64(x)-cx-tx, float64(y)-cy-ty
			rx, ry := c*px+s*py, -s*px+c*py // R(-theta)
			rx, ry = rx/k, ry/k
			rx -= sh * ry // S^-1
			i := y*cols + x
			v := bilinear(img, rows, cols, cy+ry+p.Alpha*dy[i], cx+rx+p.Alpha*dx[i])
			out[i] = min(max(v, 0), 1)
		}
	}
	return out
}

// smooth convolves the rows x cols field u with a normalised Gaussian of
// sigma (separably, truncated at 3 sigma, zero outside the field).
func smooth(u []float64, rows, cols int, sigma float64) []float64 {
	rad := max(1, int(math.Ceil(3*sigma)))
	kern := make([]float64, 2*rad+1)
	var sum float64
	for i := range kern {
		x := float64(i - rad)
		kern[i] = math.Exp(-x * x / (2 * sigma * sigma))
		sum += kern[i]
	}
	for i := range kern {
		kern[i] /= sum
	}
	// Along the rows (stride 1, runs of cols), then along the columns
	// (stride cols, runs of rows): the same sums in the same order.
	return convolve(convolve(u, kern, rows, cols, 1), kern, cols, rows, cols)
}

// convolve returns u convolved with kern (of odd length, centred) along
// lines of length n with the given stride between neighbours; the lines
// start at every index that is not a neighbour of another (lines of them):
// stride 1 for rows of a rows x n field, stride cols for its columns.
func convolve(u, kern []float64, lines, n, stride int) []float64 {
	rad := len(kern) / 2
	out := make([]float64, len(u))
	for l := 0; l < lines; l++ {
		start := l * n
		if stride > 1 {
			start = l
		}
		for x := 0; x < n; x++ {
			var v float64
			for j, w := range kern {
				if xx := x + j - rad; xx >= 0 && xx < n {
					v += w * u[start+xx*stride]
				}
			}
			out[start+x*stride] = v
		}
	}
	return out
}

// distortStream is the random stream of copy k (1, 2, ...) of image i: one
// stream per image, so that copies can be made in any order, in parallel,
// and give the same images.
func distortStream(seed uint64, k, i int) *rand.Rand {
	return rng(seed, 0xd1<<56|uint64(k)<<32|uint64(i))
}

// DistortedCopy returns copy k >= 1 of the set s: every image distorted by
// Distort with its own random stream (seed, k, image index), labels,
// classes and targets kept. The images are made in parallel; the result
// does not depend on GOMAXPROCS.
func DistortedCopy(s *Set, p Distortion, seed uint64, k int) (*Set, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if k < 1 || k >= 1<<24 || s.Len() >= 1<<32 {
		return nil, fmt.Errorf("dataset: copy %d of %d images", k, s.Len())
	}
	if s.Chans() != 1 {
		return nil, fmt.Errorf("dataset: distortions of grey images only (%d channels)", s.Chans())
	}
	src := *s
	src.Pix = nil
	out := src.Clone()
	out.Pix = make([]float32, len(s.Pix))
	n, d := s.Len(), s.Dim()
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				copy(out.Pix[i*d:], Distort(s.Image(i), s.Rows, s.Cols, p, distortStream(seed, k, i)))
			}
		}(w)
	}
	wg.Wait()
	out.Source = fmt.Sprintf("%s, distorted copy %d", s.Source, k)
	return out, nil
}

// WritePart writes the files of one part of a derived set into dir, as
// Derived.Write does for each of its parts (images and labels or targets,
// gzip IDX, atomically), and returns their description for the manifest:
// a set too large for memory is written part by part, then its manifest
// by WriteManifest.
func WritePart(dir string, p Part) (PartInfo, error) {
	d := Derived{Manifest: Manifest{Name: p.Name}, Parts: []Part{p}}
	sub, err := os.MkdirTemp(dir, ".part-")
	if err != nil {
		return PartInfo{}, fmt.Errorf("dataset: %w", err)
	}
	defer os.RemoveAll(sub)
	if err := d.Write(sub); err != nil {
		return PartInfo{}, err
	}
	info := d.Manifest.Parts[0]
	for _, f := range info.Files {
		if err := os.Rename(filepath.Join(sub, f.Name), filepath.Join(dir, f.Name)); err != nil {
			return PartInfo{}, fmt.Errorf("dataset: %w", err)
		}
	}
	return info, nil
}

// WriteManifest writes manifest.json and README.md into dir for parts that
// WritePart wrote there (m.Parts).
func WriteManifest(dir string, m Manifest) error {
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, manifestFile), append(js, '\n')); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, readmeFile), []byte(m.readme()))
}
