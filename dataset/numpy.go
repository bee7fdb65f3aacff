package dataset

import (
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/scn2d/scn/npy"
)

// NumPy input: images as a uint8 array (pixels scaled to [0, 1], as IDX
// files are) or a float32/float64 array (taken as given, checked finite),
// of shape N x rows x cols, N x rows*cols with the image shape given (or
// square), or with a channel axis: N x rows x cols x C (channels last, the
// convention of NumPy, PIL and Keras) or, asked for, N x C x rows x cols
// (channels first, PyTorch's); C = 1 is grey, 3 red, green, blue, other
// counts are planes as they are (at most MaxChannels). The set holds them
// channels first (N x C x rows x cols). labels as integers (N, or N x 1; the
// classes are "0", "1", ... up to the largest, as for IDX), integral
// floats, or strings (the classes are the distinct strings, sorted);
// regression targets as numbers, N or N x dim.

// maxLabel bounds a numeric label (as for CSV files): the classes run from
// 0 to the largest label.
const maxLabel = 1 << 16

// ReadNPY reads images from a .npy file and, unless empty, their class
// labels or their regression targets from another (not both). rows and
// cols give the image shape of an N x rows*cols array (0: the array's own
// shape, or square); channelsFirst reads a four-dimensional array as
// N x C x rows x cols, not N x rows x cols x C.
func ReadNPY(imagesPath, labelsPath, targetsPath string, rows, cols int, channelsFirst bool) (*Set, error) {
	if labelsPath != "" && targetsPath != "" {
		return nil, fmt.Errorf("dataset: give labels or targets, not both")
	}
	yPath := labelsPath + targetsPath
	if err := checkNumPyMemory(fileSize(imagesPath), fileSize(yPath), imagesPath); err != nil {
		return nil, err
	}
	x, err := npy.ReadFile(imagesPath)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var y *npy.Array
	if yPath != "" {
		if y, err = npy.ReadFile(yPath); err != nil {
			return nil, fmt.Errorf("dataset: %w", err)
		}
	}
	s, err := NumPySet(x, y, targetsPath != "", rows, cols, channelsFirst)
	if err != nil {
		if yPath != "" {
			return nil, fmt.Errorf("dataset: %s with %s: %w", imagesPath, yPath, err)
		}
		return nil, fmt.Errorf("dataset: %s: %w", imagesPath, err)
	}
	s.Source = imagesPath
	return s, nil
}

// ReadNPZ reads images and labels (or regression targets, with targets
// set) from arrays of a .npz file; xName and yName name them (yName empty:
// images only). rows, cols and channelsFirst are as for ReadNPY.
func ReadNPZ(path, xName, yName string, targets bool, rows, cols int, channelsFirst bool) (*Set, error) {
	z, err := npy.OpenNPZ(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer z.Close()
	xs, _ := z.Size(xName)
	ys, _ := z.Size(yName)
	if err := checkNumPyMemory(xs, ys, path); err != nil {
		return nil, err
	}
	x, err := z.Array(xName)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var y *npy.Array
	if yName != "" {
		if y, err = z.Array(yName); err != nil {
			return nil, fmt.Errorf("dataset: %w", err)
		}
	}
	s, err := NumPySet(x, y, targets, rows, cols, channelsFirst)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s, arrays %q and %q: %w", path, xName, yName, err)
	}
	s.Source = fmt.Sprintf("%s[%s]", path, xName)
	return s, nil
}

// checkNumPyMemory refuses arrays of x and y bytes (as stored) whose
// reading would exceed the limit of SetMemoryLimit: the stored values
// and the pixels they become (float32; up to 4 bytes per stored uint8),
// the labels or targets and what they become.
func checkNumPyMemory(x, y int64, name string) error {
	if err := checkMemory(5*x+2*y, "the arrays of "+name); err != nil {
		return fmt.Errorf("dataset: %s: %w", name, err)
	}
	return nil
}

// fileSize returns the size of a file, 0 if it cannot be told (the
// reader then says why).
func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// NumPySet builds a set from an image array and, unless y is nil, the
// labels (or, with targets, the regression targets) of its images; rows,
// cols and channelsFirst are as for ReadNPY.
func NumPySet(x, y *npy.Array, targets bool, rows, cols int, channelsFirst bool) (*Set, error) {
	s, err := numpyImages(x, rows, cols, channelsFirst)
	if err != nil {
		return nil, err
	}
	if y == nil {
		return s, nil
	}
	n := s.Len()
	if err := checkYShape(y, n, targets); err != nil {
		return nil, err
	}
	if targets {
		t, err := y.Float64s()
		if err != nil {
			return nil, fmt.Errorf("%w: targets: %v", ErrFormat, err)
		}
		for i, v := range t {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: target %d is %v", ErrFormat, i, v)
			}
		}
		s.Targets, s.TargetDim = t, y.Len()/n
		if s.TargetDim < 1 {
			return nil, fmt.Errorf("%w: targets of shape %v have no values", ErrFormat, y.Shape)
		}
		return s, nil
	}
	if err := s.numpyLabels(y); err != nil {
		return nil, err
	}
	return s, nil
}

// checkYShape refuses labels (or, with targets, regression targets) whose
// shape is not that of n images' labels or targets.
func checkYShape(y *npy.Array, n int, targets bool) error {
	if len(y.Shape) == 0 || y.Shape[0] != n || len(y.Shape) > 2 {
		return fmt.Errorf("%w: %d images, but the labels or targets have shape %v (want %d or %d x dim)", ErrFormat, n, y.Shape, n, n)
	}
	if !targets && len(y.Shape) == 2 && y.Shape[1] != 1 {
		return fmt.Errorf("%w: labels of shape %v: want one label per image (for regression targets, ask for targets)", ErrFormat, y.Shape)
	}
	return nil
}

// numpyImages reads the images of an array.
func numpyImages(x *npy.Array, rows, cols int, channelsFirst bool) (*Set, error) {
	n, rows, cols, c, last, err := numpyShape(x.Shape, rows, cols, channelsFirst)
	if err != nil {
		return nil, err
	}
	d := c * rows * cols
	s := &Set{Rows: rows, Cols: cols}
	if c > 1 {
		s.Channels = c
	}
	switch v := x.Data.(type) {
	case []uint8:
		s.Pix = make([]float32, len(v))
		for i, p := range v {
			s.Pix[i] = float32(p) / 255
		}
	case []float32:
		s.Pix = append([]float32(nil), v...)
	case []float64:
		s.Pix = make([]float32, len(v))
		for i, p := range v {
			s.Pix[i] = float32(p)
		}
	default:
		return nil, fmt.Errorf("%w: images of type %s: want uint8 (0-255) or float32/float64 (used as given), e.g. x.astype(numpy.uint8)", ErrFormat, x.DType())
	}
	for i, p := range s.Pix {
		if math.IsNaN(float64(p)) || math.IsInf(float64(p), 0) {
			return nil, fmt.Errorf("%w: image %d has a non-finite pixel (%v; or a float64 value beyond float32)", ErrFormat, i/d, p)
		}
	}
	if last && c > 1 {
		channelsToFront(s.Pix, n, rows*cols, c)
	}
	return s, nil
}

// numpyShape reads the shape of an image array: the images, their rows,
// columns and planes, and whether the planes are the last axis. rows,
// cols and channelsFirst are as for ReadNPY.
func numpyShape(shape []int, rows, cols int, channelsFirst bool) (n, imgRows, imgCols, c int, last bool, err error) {
	sh := shape
	c = 1
	if len(sh) == 4 {
		if c, last, sh, err = channelAxis(sh, channelsFirst); err != nil {
			return 0, 0, 0, 0, false, err
		}
	}
	var d int
	switch len(sh) {
	case 3:
		n, d = sh[0], sh[1]*sh[2]
		if (rows != 0 && rows != sh[1]) || (cols != 0 && cols != sh[2]) {
			return 0, 0, 0, 0, false, fmt.Errorf("%w: images are %d x %d, not %d x %d as asked", ErrFormat, sh[1], sh[2], rows, cols)
		}
		rows, cols = sh[1], sh[2]
	case 2:
		n, d = sh[0], sh[1]
		switch {
		case rows <= 0 && cols <= 0:
			side := int(math.Round(math.Sqrt(float64(d))))
			rows, cols = side, side
		case rows <= 0:
			rows = d / cols
		case cols <= 0:
			cols = d / rows
		}
		if d < 1 || rows > d || cols > d || rows*cols != d {
			return 0, 0, 0, 0, false, fmt.Errorf("%w: images of %d pixels are not %d x %d (give the shape with rows and cols)", ErrFormat, d, rows, cols)
		}
	default:
		return 0, 0, 0, 0, false, fmt.Errorf("%w: images of shape %v: want N x rows x cols, N x rows*cols, N x rows x cols x C or (channels first) N x C x rows x cols", ErrFormat, shape)
	}
	if n < 1 || d < 1 {
		return 0, 0, 0, 0, false, fmt.Errorf("%w: images of shape %v: no images", ErrFormat, shape)
	}
	return n, rows, cols, c, last, nil
}

// channelAxis reads the channel axis of a four-dimensional image array:
// the number of channels, whether it is the last axis, and the shape
// without it. It refuses a channel count over MaxChannels and a shape that
// looks like the other layout (a channel axis of 1, 3 or 4 where the
// other layout has one, beside an image axis of another size).
func channelAxis(sh []int, first bool) (c int, last bool, rest []int, err error) {
	small := func(k int) bool { return k == 1 || k == 3 || k == 4 }
	if first {
		c, rest = sh[1], []int{sh[0], sh[2], sh[3]}
		if small(sh[3]) && !small(sh[1]) {
			return 0, false, nil, fmt.Errorf("%w: images of shape %v read channels first (N x C x rows x cols) have %d channels; the shape looks channels last (N x rows x cols x %d): leave out the channels-first option", ErrFormat, sh, c, sh[3])
		}
	} else {
		c, last, rest = sh[3], true, []int{sh[0], sh[1], sh[2]}
		if small(sh[1]) && !small(sh[3]) {
			return 0, false, nil, fmt.Errorf("%w: images of shape %v read channels last (N x rows x cols x C) have %d channels; the shape looks channels first (N x %d x rows x cols): ask for channels first (--channels-first)", ErrFormat, sh, c, sh[1])
		}
	}
	if c < 1 || c > MaxChannels {
		return 0, false, nil, fmt.Errorf("%w: images of shape %v: %d channels (at most %d)", ErrFormat, sh, c, MaxChannels)
	}
	return c, last, rest, nil
}

// channelsToFront reorders n images of p pixels x c channels (channels
// last, pixel-major) into c planes of p pixels each, image by image.
func channelsToFront(pix []float32, n, p, c int) {
	tmp := make([]float32, p*c)
	for i := 0; i < n; i++ {
		img := pix[i*p*c : (i+1)*p*c]
		copy(tmp, img)
		for j := 0; j < p; j++ {
			for k := 0; k < c; k++ {
				img[k*p+j] = tmp[j*c+k]
			}
		}
	}
}

// numpyLabels sets the labels and classes of s from an array of labels.
func (s *Set) numpyLabels(y *npy.Array) error {
	if names, ok := y.Data.([]string); ok {
		distinct := map[string]int{}
		for _, c := range names {
			distinct[c] = 0
		}
		for c := range distinct {
			s.Classes = append(s.Classes, c)
		}
		sort.Strings(s.Classes)
		for i, c := range s.Classes {
			distinct[c] = i
		}
		s.Labels = make([]int, len(names))
		for i, c := range names {
			s.Labels[i] = distinct[c]
		}
		if len(s.Classes) < 2 {
			s.Classes = append(s.Classes, "(none)") // a classifier needs two outputs
		}
		return nil
	}
	var labels []int
	if y.IsInteger() {
		var err error
		if labels, err = y.Ints(); err != nil {
			return fmt.Errorf("%w: labels: %v", ErrFormat, err)
		}
	} else {
		f, err := y.Float64s()
		if err != nil {
			return fmt.Errorf("%w: labels: %v", ErrFormat, err)
		}
		labels = make([]int, len(f))
		for i, v := range f {
			if v != math.Trunc(v) || v < 0 || v > maxLabel {
				return fmt.Errorf("%w: label %d is %v, not a class number (for regression targets, ask for targets)", ErrFormat, i, v)
			}
			labels[i] = int(v)
		}
	}
	most := 0
	for i, l := range labels {
		if l < 0 || l > maxLabel {
			return fmt.Errorf("%w: label %d is %d, outside [0, %d]", ErrFormat, i, l, maxLabel)
		}
		most = max(most, l)
	}
	s.Labels = labels
	s.Classes = digitClasses(max(most+1, 2))
	return nil
}
