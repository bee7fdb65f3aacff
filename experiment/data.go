package experiment

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// This file reads the data sets of ../shared/data directly. It is the
// experiment package's own small adapter, independent of package dataset.

// ErrMissingData is wrapped by errors about absent data files.
var ErrMissingData = errors.New("data file missing")

func missing(p string) error {
	return fmt.Errorf("experiment: %w: %s (set the data folder with --data or Options.DataDir)", ErrMissingData, p)
}

// needFile returns an error naming p if it does not exist.
func needFile(p string) error {
	if _, err := os.Stat(p); err != nil {
		return missing(p)
	}
	return nil
}

var digitClasses = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

var fashionClasses = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

// readIDXFile reads a (possibly gzipped) IDX file: dimensions and bytes.
func readIDXFile(p string) ([]int, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, missing(p)
		}
		return nil, nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(p, ".gz") {
		g, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
		}
		r = g
	}
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
	}
	if hdr[0] != 0 || hdr[1] != 0 || hdr[2] != 8 || hdr[3] < 1 || hdr[3] > 4 {
		return nil, nil, fmt.Errorf("experiment: %s: not an unsigned-byte IDX file", p)
	}
	dims := make([]int, hdr[3])
	n := 1
	for i := range dims {
		var v uint32
		if err := binary.Read(r, binary.BigEndian, &v); err != nil {
			return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
		}
		dims[i] = int(v)
		n *= int(v)
	}
	if n > 1<<30 {
		return nil, nil, fmt.Errorf("experiment: %s: %d values is too many", p, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
	}
	return dims, b, nil
}

// loadIDXPair reads images and labels of an MNIST-layout folder; prefix is
// "train" or "t10k".
func loadIDXPair(dir, prefix string, classes []string, source string) (*set, error) {
	ip := filepath.Join(dir, prefix+"-images-idx3-ubyte.gz")
	lp := filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz")
	if err := needFile(ip); err != nil {
		return nil, err
	}
	if err := needFile(lp); err != nil {
		return nil, err
	}
	idim, ib, err := readIDXFile(ip)
	if err != nil {
		return nil, err
	}
	ldim, lb, err := readIDXFile(lp)
	if err != nil {
		return nil, err
	}
	if len(idim) != 3 || len(ldim) != 1 || idim[0] != ldim[0] {
		return nil, fmt.Errorf("experiment: %s and %s do not match", ip, lp)
	}
	s := &set{Rows: idim[1], Cols: idim[2], Classes: classes, Source: source}
	s.Pix = make([]float32, len(ib))
	for i, v := range ib {
		s.Pix[i] = float32(v) / 255
	}
	s.Labels = make([]int, len(lb))
	for i, v := range lb {
		if int(v) >= len(classes) {
			return nil, fmt.Errorf("experiment: %s: label %d out of range", lp, v)
		}
		s.Labels[i] = int(v)
	}
	return s, nil
}

// loadMNISTLike reads the train and test sets of mnist/ or fashion-mnist/.
func loadMNISTLike(dataDir, sub string, classes []string, source string) (train, test *set, err error) {
	dir := filepath.Join(dataDir, sub)
	if train, err = loadIDXPair(dir, "train", classes, source); err != nil {
		return nil, nil, err
	}
	if test, err = loadIDXPair(dir, "t10k", classes, source); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

func loadMNIST(dataDir string) (*set, *set, error) {
	return loadMNISTLike(dataDir, "mnist", digitClasses, "MNIST (LeCun, Cortes, Burges), "+filepath.Join(dataDir, "mnist"))
}

func loadFashion(dataDir string) (*set, *set, error) {
	return loadMNISTLike(dataDir, "fashion-mnist", fashionClasses, "Fashion-MNIST (Zalando Research, MIT), "+filepath.Join(dataDir, "fashion-mnist"))
}

// loadORL reads orl_faces/sX/Y.pgm: 40 subjects x 10 images of 112 x 92,
// pixel values scaled to [0, 1]; class i is subject s(i+1).
func loadORL(dataDir string) (*set, error) {
	dir := filepath.Join(dataDir, "orl_faces")
	if _, err := os.Stat(dir); err != nil {
		return nil, missing(dir)
	}
	s := &set{Source: "ORL / AT&T Database of Faces (Olivetti Research Laboratory), " + dir}
	for subj := 1; ; subj++ {
		sd := filepath.Join(dir, fmt.Sprintf("s%d", subj))
		if _, err := os.Stat(sd); err != nil {
			if subj == 1 {
				return nil, missing(sd)
			}
			break
		}
		s.Classes = append(s.Classes, fmt.Sprintf("s%d", subj))
		for img := 1; img <= 10; img++ {
			p := filepath.Join(sd, fmt.Sprintf("%d.pgm", img))
			rows, cols, pix, err := readPGM(p)
			if err != nil {
				return nil, err
			}
			if s.Rows == 0 {
				s.Rows, s.Cols = rows, cols
			}
			if rows != s.Rows || cols != s.Cols {
				return nil, fmt.Errorf("experiment: %s is %d x %d, others %d x %d", p, rows, cols, s.Rows, s.Cols)
			}
			s.Pix = append(s.Pix, pix...)
			s.Labels = append(s.Labels, subj-1)
		}
	}
	return s, nil
}

// readPGM reads a binary (P5) 8-bit PGM file, values scaled to [0, 1].
func readPGM(p string) (rows, cols int, pix []float32, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, 0, nil, missing(p)
		}
		return 0, 0, nil, err
	}
	// Header: "P5" w h maxval, separated by white space, comments allowed.
	var fields []int
	i := 2
	if len(b) < 2 || string(b[:2]) != "P5" {
		return 0, 0, nil, fmt.Errorf("experiment: %s: not a binary PGM", p)
	}
	for len(fields) < 3 && i < len(b) {
		c := b[i]
		switch {
		case c == '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			j := i
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			v, err := strconv.Atoi(string(b[i:j]))
			if err != nil {
				return 0, 0, nil, fmt.Errorf("experiment: %s: bad header", p)
			}
			fields = append(fields, v)
			i = j
		}
	}
	if len(fields) < 3 || fields[2] <= 0 || fields[2] > 255 || i >= len(b) {
		return 0, 0, nil, fmt.Errorf("experiment: %s: bad header", p)
	}
	i++ // one white-space byte after maxval
	w, h, maxv := fields[0], fields[1], float32(fields[2])
	if len(b)-i < w*h {
		return 0, 0, nil, fmt.Errorf("experiment: %s: %d bytes of pixels, want %d", p, len(b)-i, w*h)
	}
	pix = make([]float32, w*h)
	for k := range pix {
		pix[k] = float32(b[i+k]) / maxv
	}
	return h, w, pix, nil
}

// loadCVL reads cvl-digits.tar.gz (PNG, dark ink on white) and brings every
// digit to the MNIST convention (bright ink on dark, scaled to fit 20 x 20
// keeping its aspect ratio, centre of mass at the centre of 28 x 28).
func loadCVL(dataDir string) (train, test *set, err error) {
	p := filepath.Join(dataDir, "cvl-digits.tar.gz")
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, missing(p)
	}
	defer f.Close()
	g, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
	}
	src := "CVL single digits (Diem et al., ICDAR 2013 HDRC), " + p + ", inverted and normalised to the MNIST convention"
	train = &set{Rows: 28, Cols: 28, Classes: digitClasses, Source: src}
	test = &set{Rows: 28, Cols: 28, Classes: digitClasses, Source: src}
	type item struct {
		name string
		lab  int
		pix  []float32
	}
	var trs, tes []item
	tr := tar.NewReader(g)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: %s: %w", p, err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(strings.ToLower(h.Name), ".png") {
			continue
		}
		parts := strings.Split(path.Clean(strings.TrimPrefix(h.Name, "./")), "/")
		if len(parts) < 3 {
			continue
		}
		split, dig := parts[len(parts)-3], parts[len(parts)-2]
		lab, err := strconv.Atoi(dig)
		if err != nil || lab < 0 || lab > 9 || (split != "train" && split != "test") {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
		if err != nil {
			return nil, nil, err
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: %s: %s: %w", p, h.Name, err)
		}
		it := item{h.Name, lab, mnistConvention(img)}
		if split == "train" {
			trs = append(trs, it)
		} else {
			tes = append(tes, it)
		}
	}
	if len(trs) == 0 || len(tes) == 0 {
		return nil, nil, fmt.Errorf("experiment: %s: no train/<digit>/*.png or test/<digit>/*.png images", p)
	}
	for _, pr := range []struct {
		items []item
		s     *set
	}{{trs, train}, {tes, test}} {
		sort.Slice(pr.items, func(i, j int) bool { return pr.items[i].name < pr.items[j].name })
		for _, it := range pr.items {
			pr.s.Pix = append(pr.s.Pix, it.pix...)
			pr.s.Labels = append(pr.s.Labels, it.lab)
		}
	}
	return train, test, nil
}

// mnistConvention converts a grey digit image with dark ink on a light
// background to the MNIST convention (see SPEC section 5).
func mnistConvention(img image.Image) []float32 {
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	ink := make([]float64, w*h)
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, gg, b, _ := img.At(bd.Min.X+x, bd.Min.Y+y).RGBA()
			lum := (0.299*float64(r) + 0.587*float64(gg) + 0.114*float64(b)) / 65535
			v := 1 - lum
			if v < 0.05 {
				v = 0
			}
			ink[y*w+x] = v
			if v > 0 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	out := make([]float32, 28*28)
	if x1 < 0 {
		return out
	}
	bw, bh := x1-x0+1, y1-y0+1
	scale := 20 / math.Max(float64(bw), float64(bh))
	nw, nh := max(1, int(math.Round(float64(bw)*scale))), max(1, int(math.Round(float64(bh)*scale)))
	// Resample the box to nw x nh by area averaging (bilinear when enlarging).
	small := make([]float64, nw*nh)
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			sx := (float64(x)+0.5)/scale - 0.5 + float64(x0)
			sy := (float64(y)+0.5)/scale - 0.5 + float64(y0)
			if scale >= 1 {
				small[y*nw+x] = bilinear(ink, w, h, sx, sy)
				continue
			}
			// Average the source pixels the target pixel covers.
			ax, bx := float64(x0)+float64(x)/scale, float64(x0)+float64(x+1)/scale
			ay, by := float64(y0)+float64(y)/scale, float64(y0)+float64(y+1)/scale
			var s, n float64
			for yy := int(ay); yy < int(math.Ceil(by)) && yy < h; yy++ {
				for xx := int(ax); xx < int(math.Ceil(bx)) && xx < w; xx++ {
					s += ink[yy*w+xx]
					n++
				}
			}
			if n > 0 {
				small[y*nw+x] = s / n
			}
		}
	}
	// Centre of mass of the scaled digit.
	var m, cx, cy float64
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			v := small[y*nw+x]
			m += v
			cx += v * float64(x)
			cy += v * float64(y)
		}
	}
	if m == 0 {
		return out
	}
	cx, cy = cx/m, cy/m
	ox := int(math.Round(13.5 - cx))
	oy := int(math.Round(13.5 - cy))
	var peak float64
	for _, v := range small {
		peak = math.Max(peak, v)
	}
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			tx, ty := x+ox, y+oy
			if tx >= 0 && tx < 28 && ty >= 0 && ty < 28 {
				out[ty*28+tx] = float32(math.Min(1, small[y*nw+x]/peak))
			}
		}
	}
	return out
}

// bilinear samples img (w x h) at (x, y), zero outside.
func bilinear(img []float64, w, h int, x, y float64) float64 {
	fx, fy := math.Floor(x), math.Floor(y)
	ix, iy := int(fx), int(fy)
	ax, ay := x-fx, y-fy
	at := func(i, j int) float64 {
		if i < 0 || j < 0 || i >= w || j >= h {
			return 0
		}
		return img[j*w+i]
	}
	return (1-ax)*(1-ay)*at(ix, iy) + ax*(1-ay)*at(ix+1, iy) + (1-ax)*ay*at(ix, iy+1) + ax*ay*at(ix+1, iy+1)
}

// rotated returns the images of s (28 x 28 digits) each rotated about its
// centre by an angle uniform in [-maxDeg, maxDeg] (positive: counter-clockwise
// as displayed), with bilinear interpolation; the target is the angle in
// degrees and Digits keeps the digit labels.
func rotated(s *set, idx []int, maxDeg float64, rng *rand.Rand) *set {
	d := s.Rows * s.Cols
	out := &set{Rows: s.Rows, Cols: s.Cols, TargetDim: 1, Source: s.Source}
	out.Pix = make([]float32, len(idx)*d)
	src := make([]float64, d)
	cx, cy := float64(s.Cols-1)/2, float64(s.Rows-1)/2
	for n, i := range idx {
		deg := maxDeg * (2*rng.Float64() - 1)
		th := deg * math.Pi / 180
		c, sn := math.Cos(th), math.Sin(th)
		for k := range src {
			src[k] = float64(s.Pix[i*d+k])
		}
		dst := out.Pix[n*d : (n+1)*d]
		for y := 0; y < s.Rows; y++ {
			for x := 0; x < s.Cols; x++ {
				// Inverse map: destination (x, y) comes from the source
				// point rotated by -theta (y grows downwards on screen).
				dx, dy := float64(x)-cx, float64(y)-cy
				sx := c*dx - sn*dy + cx
				sy := sn*dx + c*dy + cy
				dst[y*s.Cols+x] = float32(bilinear(src, s.Cols, s.Rows, sx, sy))
			}
		}
		out.Targets = append(out.Targets, deg)
		out.Digits = append(out.Digits, s.Labels[i])
	}
	return out
}

// splitPerClass splits s so that, per class, a random perTrain of its
// images go to training and the rest to test.
func splitPerClass(s *set, perTrain int, rng *rand.Rand) (train, test *set) {
	byClass := map[int][]int{}
	for i, l := range s.Labels {
		byClass[l] = append(byClass[l], i)
	}
	var tr, te []int
	for c := 0; c < len(s.Classes); c++ {
		idx := append([]int(nil), byClass[c]...)
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		k := min(perTrain, len(idx))
		tr = append(tr, idx[:k]...)
		te = append(te, idx[k:]...)
	}
	return s.subset(tr), s.subset(te)
}

// sample returns n indices of [0, total) drawn without replacement, in
// increasing order (all of them when n >= total or n <= 0).
func sample(total, n int, rng *rand.Rand) []int {
	if n <= 0 || n >= total {
		idx := make([]int, total)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rng.Perm(total)[:n]
	sort.Ints(idx)
	return idx
}
