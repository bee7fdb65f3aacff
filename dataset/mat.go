package dataset

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/dataset/matfile"
	"github.com/scn2d/scn/npy"
)

// MATLAB MAT-file input (level 5, as MATLAB's save -v7 and -v6, Octave's
// save -v7 and scipy.io.savemat write them; see package matfile). The
// images are a numeric array in MATLAB's conventions:
//
//   - rows x cols x C x N (four dimensions: the image stacks of MATLAB's
//     Deep Learning Toolbox, e.g. digitTrain4DArrayData's XTrain, 28 x 28 x
//     1 x 5000), C = 1 grey, 3 red, green, blue;
//   - rows x cols x N (three dimensions);
//   - N x rows*cols (two dimensions, one image a row, as MATLAB's
//     statistics functions take samples), shaped by rows and cols or
//     square; d x N (one image a column) is read when the labels or
//     targets count matches the columns and not the rows.
//
// Element (i, j) of an image is row i, column j, as MATLAB shows it.
// uint8 pixels are scaled to [0, 1] (as for NumPy and IDX files); other
// classes are taken as given (checked finite). Labels are a vector of N
// integers (classes "0" up to the largest, as for NumPy); regression
// targets a vector of N values or an N x dim matrix.

// ReadMAT reads images, and unless yName is empty their class labels (or,
// with targets, their regression targets), from the variables xName and
// yName of a MAT-file. rows and cols give the image shape of a
// two-dimensional array (0: square).
func ReadMAT(path, xName, yName string, targets bool, rows, cols int) (*Set, error) {
	if xName == "" {
		return nil, fmt.Errorf("dataset: %s: name the images variable%s", path, matVarList(path))
	}
	m, err := matfile.Open(path, matfile.Options{MaxBytes: matMaxBytes()})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer m.Close()
	vars, err := m.Vars()
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	// The values are read as float64 and copied once as float32.
	need := int64(0)
	for _, v := range vars {
		if v.Name == xName || (yName != "" && v.Name == yName) {
			need += 12 * int64(elements(v.Dims))
		}
	}
	if err := checkMemory(need, "the arrays of "+path); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	x, err := m.Read(xName)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	var y *matfile.Array
	if yName != "" {
		if y, err = m.Read(yName); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", path, err)
		}
	}
	s, err := MATSet(x, y, targets, rows, cols)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	s.Source = path
	return s, nil
}

// matMaxBytes bounds one variable's values (as float64) by the memory
// limit the dataset package works under.
func matMaxBytes() int64 {
	if l := memoryLimit.Load(); l > 0 {
		return l
	}
	return matfile.DefaultMaxBytes
}

func elements(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// matVarList lists a file's variables for an error message ("" when the
// file cannot be read: the read then says why).
func matVarList(path string) string {
	m, err := matfile.Open(path, matfile.Options{})
	if err != nil {
		return ""
	}
	defer m.Close()
	vars, err := m.Vars()
	if err != nil || len(vars) == 0 {
		return ""
	}
	s := "; the file holds"
	for i, v := range vars {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %s (%s %s)", v.Name, dimText(v.Dims), v.Class)
	}
	return s
}

func dimText(d []int) string {
	s := ""
	for i, v := range d {
		if i > 0 {
			s += "x"
		}
		s += fmt.Sprint(v)
	}
	return s
}

// MATSet builds a set from a MAT-file's image array and, unless y is nil,
// its labels (or, with targets, its regression targets), in the
// conventions ReadMAT describes.
func MATSet(x, y *matfile.Array, targets bool, rows, cols int) (*Set, error) {
	d := x.Dims
	for len(d) > 2 && d[len(d)-1] == 1 && len(d) > 4 {
		d = d[:len(d)-1]
	}
	yn := -1 // the count the labels or targets give
	if y != nil {
		switch {
		case len(y.Dims) == 2 && y.Dims[1] == 1, len(y.Dims) == 2 && y.Dims[0] == 1:
			yn = y.Len()
		case len(y.Dims) == 2 && targets:
			yn = y.Dims[0]
		default:
			return nil, fmt.Errorf("%w: %s is %s; want a vector of %s or (targets) an N x dim matrix", ErrFormat, y.Name, dimText(y.Dims), yWhat(targets))
		}
	}
	var (
		n, r, c, ch int
		at          func(i, row, col, k int) int // column-major offset of image i's pixel
	)
	switch len(d) {
	case 4:
		r, c, ch, n = d[0], d[1], d[2], d[3]
		at = func(i, row, col, k int) int { return row + r*(col+c*(k+ch*i)) }
	case 3:
		r, c, ch, n = d[0], d[1], 1, d[2]
		at = func(i, row, col, _ int) int { return row + r*(col+c*i) }
	case 2:
		var dim int
		var byCol bool
		n, dim = d[0], d[1]
		if yn >= 0 && yn != d[0] && yn == d[1] {
			n, dim, byCol = d[1], d[0], true
		}
		r, c, ch = rows, cols, 1
		if r == 0 && c == 0 {
			r = isqrt(dim)
			c = r
		}
		if r*c != dim || r < 1 {
			return nil, fmt.Errorf("%w: %s is %s: images of %d values, not %d x %d (give rows and cols)", ErrFormat, x.Name, dimText(x.Dims), dim, r, c)
		}
		if byCol {
			at = func(i, row, col, _ int) int { return row*c + col + dim*i }
		} else {
			at = func(i, row, col, _ int) int { return i + n*(row*c+col) }
		}
	default:
		return nil, fmt.Errorf("%w: %s is %s; want rows x cols x C x N, rows x cols x N or N x rows*cols", ErrFormat, x.Name, dimText(x.Dims))
	}
	if (rows != 0 || cols != 0) && len(d) > 2 && (rows != r || cols != c) {
		return nil, fmt.Errorf("%w: %s is %s: images of %d x %d, not the %d x %d asked for", ErrFormat, x.Name, dimText(x.Dims), r, c, rows, cols)
	}
	if n < 1 || r < 1 || c < 1 || ch < 1 || ch > MaxChannels {
		return nil, fmt.Errorf("%w: %s is %s: %d images of %d x %d x %d planes", ErrFormat, x.Name, dimText(x.Dims), n, r, c, ch)
	}
	if yn >= 0 && yn != n {
		return nil, fmt.Errorf("%w: %s holds %d images, %s holds %d %s", ErrFormat, x.Name, n, y.Name, yn, yWhat(targets))
	}
	// Row-major N x rows x cols x C, as NumPySet reads it.
	shape := []int{n, r, c, ch}
	var arr *npy.Array
	var err error
	if x.Class == "uint8" {
		px := make([]uint8, n*r*c*ch)
		fill(px, n, r, c, ch, at, func(o int) uint8 { return uint8(x.Data[o]) })
		arr, err = npy.New(px, shape...)
	} else {
		px := make([]float64, n*r*c*ch)
		fill(px, n, r, c, ch, at, func(o int) float64 { return x.Data[o] })
		arr, err = npy.New(px, shape...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	var ya *npy.Array
	if y != nil {
		if yn == y.Len() { // a vector
			ya, err = npy.New(append([]float64(nil), y.Data...), n)
		} else { // N x dim, column-major to row-major
			dim := y.Dims[1]
			t := make([]float64, n*dim)
			for i := range n {
				for j := range dim {
					t[i*dim+j] = y.Data[i+n*j]
				}
			}
			ya, err = npy.New(t, n, dim)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	s, err := NumPySet(arr, ya, targets, 0, 0, false)
	if err != nil {
		var fe error = err
		if !errors.Is(err, ErrFormat) {
			fe = fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return nil, fe
	}
	return s, nil
}

func yWhat(targets bool) string {
	if targets {
		return "targets"
	}
	return "labels"
}

func fill[T any](dst []T, n, r, c, ch int, at func(i, row, col, k int) int, val func(int) T) {
	o := 0
	for i := range n {
		for row := range r {
			for col := range c {
				for k := range ch {
					dst[o] = val(at(i, row, col, k))
					o++
				}
			}
		}
	}
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
