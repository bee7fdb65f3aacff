package dataset

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scn2d/scn/npy"
)

func mustArray(t testing.TB, data any, shape ...int) *npy.Array {
	t.Helper()
	a, err := npy.New(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReadNPYAndNPZ(t *testing.T) {
	dir := t.TempDir()
	pix := []uint8{0, 255, 51, 102, 0, 0, 255, 255, 10, 20, 30, 40}
	x := mustArray(t, pix, 3, 2, 2)
	y := mustArray(t, []int64{2, 0, 2}, 3)
	xp, yp := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	if err := npy.WriteFile(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(yp, y); err != nil {
		t.Fatal(err)
	}
	s, err := ReadNPY(xp, yp, "", 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 2 || s.Cols != 2 || s.Len() != 3 || s.Pix[1] != 1 || s.Pix[2] != 0.2 ||
		!reflect.DeepEqual(s.Labels, []int{2, 0, 2}) || !reflect.DeepEqual(s.Classes, []string{"0", "1", "2"}) || s.Source != xp {
		t.Errorf("got %+v", s)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	// The same in a .npz, with other names and the images flat.
	zp := filepath.Join(dir, "d.npz")
	flat := mustArray(t, pix, 3, 4)
	tg := mustArray(t, []float32{0.5, -1, 2, 3, 4, 5}, 3, 2)
	if err := npy.WriteNPZFile(zp, true, npy.Named{Name: "images", Array: flat}, npy.Named{Name: "y", Array: y}, npy.Named{Name: "t", Array: tg}); err != nil {
		t.Fatal(err)
	}
	z, err := ReadNPZ(zp, "images", "y", false, 2, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(z.Pix, s.Pix) || !reflect.DeepEqual(z.Labels, s.Labels) || z.Rows != 2 || z.Cols != 2 {
		t.Errorf("npz: %+v", z)
	}
	r, err := ReadNPZ(zp, "images", "t", true, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.TargetDim != 2 || !reflect.DeepEqual(r.Targets, []float64{0.5, -1, 2, 3, 4, 5}) || r.Labels != nil {
		t.Errorf("targets: %+v", r)
	}
	if _, err := ReadNPZ(zp, "x", "y", false, 0, 0, false); err == nil || !strings.Contains(err.Error(), `no array "x" (it has images, y, t)`) {
		t.Errorf("missing array: %v", err)
	}
	if _, err := ReadNPY(xp, yp, yp, 0, 0, false); err == nil {
		t.Error("labels and targets accepted together")
	}
}

func TestNumPySetKinds(t *testing.T) {
	f32 := mustArray(t, []float32{0.25, 0.5, 0.75, 1, 0, 0.1, 0.2, 0.3}, 2, 2, 2, 1)
	s, err := NumPySet(f32, mustArray(t, []string{"cat", "dog"}, 2), false, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 2 || s.Cols != 2 || s.Pix[0] != 0.25 || !reflect.DeepEqual(s.Classes, []string{"cat", "dog"}) || !reflect.DeepEqual(s.Labels, []int{0, 1}) {
		t.Errorf("%+v", s)
	}
	s, err = NumPySet(mustArray(t, []float64{0.5, 2, -1, 0}, 1, 4), mustArray(t, []float64{3}, 1, 1), false, 1, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 1 || s.Cols != 4 || s.Pix[1] != 2 || len(s.Classes) != 4 || s.Labels[0] != 3 {
		t.Errorf("%+v", s)
	}
	s, err = NumPySet(mustArray(t, []uint8{1, 2, 3, 4, 5, 6}, 1, 6), nil, false, 0, 3, false)
	if err != nil || s.Rows != 2 || s.Cols != 3 || s.Labels != nil {
		t.Errorf("%+v %v", s, err)
	}
}

func TestNumPySetRefuses(t *testing.T) {
	img := mustArray(t, make([]uint8, 8), 2, 2, 2)
	for name, c := range map[string]struct {
		x, y    *npy.Array
		targets bool
		rows    int
		cols    int
		want    string
	}{
		"1-D images":      {mustArray(t, make([]uint8, 4), 4), nil, false, 0, 0, "want N x rows x cols"},
		"5-D images":      {mustArray(t, make([]uint8, 2), 1, 1, 1, 1, 2), nil, false, 0, 0, "want N x rows x cols"},
		"channels first":  {mustArray(t, make([]uint8, 3*8*8), 1, 3, 8, 8), nil, false, 0, 0, "ask for channels first"},
		"0 channels":      {mustArray(t, []uint8{}, 1, 2, 2, 0), nil, false, 0, 0, "0 channels"},
		"many channels":   {mustArray(t, make([]uint8, 8000), 1, 2, 2, 2000), nil, false, 0, 0, "2000 channels (at most 1024)"},
		"not square":      {mustArray(t, make([]uint8, 6), 1, 6), nil, false, 0, 0, "not 2 x 2"},
		"wrong rows":      {mustArray(t, make([]uint8, 6), 1, 6), nil, false, 4, 0, "not 4 x 1"},
		"huge rows":       {mustArray(t, make([]uint8, 6), 1, 6), nil, false, 1 << 40, 1 << 40, "not"},
		"3-D shape flags": {img, nil, false, 3, 0, "not 3 x 0 as asked"},
		"no images":       {mustArray(t, []uint8{}, 0, 2, 2), nil, false, 0, 0, "no images"},
		"int images":      {mustArray(t, make([]int64, 8), 2, 2, 2), nil, false, 0, 0, "want uint8"},
		"string images":   {mustArray(t, make([]string, 8), 2, 2, 2), nil, false, 0, 0, "want uint8"},
		"NaN pixel":       {mustArray(t, []float32{0, float32(math.NaN()), 0, 0}, 1, 2, 2), nil, false, 0, 0, "non-finite"},
		"big float64":     {mustArray(t, []float64{0, 1e300, 0, 0}, 1, 2, 2), nil, false, 0, 0, "non-finite"},
		"label count":     {img, mustArray(t, []int32{1}, 1), false, 0, 0, "2 images"},
		"label shape":     {img, mustArray(t, []int32{1, 2, 3, 4}, 2, 2), false, 0, 0, "one label per image"},
		"negative label":  {img, mustArray(t, []int8{1, -1}, 2), false, 0, 0, "outside"},
		"huge label":      {img, mustArray(t, []int64{1, 1 << 40}, 2), false, 0, 0, "outside"},
		"fraction label":  {img, mustArray(t, []float64{1, 0.5}, 2), false, 0, 0, "not a class number"},
		"NaN label":       {img, mustArray(t, []float64{1, math.NaN()}, 2), false, 0, 0, "not a class number"},
		"NaN target":      {img, mustArray(t, []float64{1, math.Inf(1)}, 2), true, 0, 0, "target 1 is +Inf"},
		"string targets":  {img, mustArray(t, []string{"a", "b"}, 2), true, 0, 0, "not numeric"},
		"scalar labels":   {img, mustArray(t, []int64{1}), false, 0, 0, "shape []"},
		"empty targets":   {img, mustArray(t, []float64{}, 2, 0), true, 0, 0, "no values"},
	} {
		_, err := NumPySet(c.x, c.y, c.targets, c.rows, c.cols, false)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error about %q", name, err, c.want)
		}
	}
}

// TestNumPyChannelAxis checks that an array with a channel axis, channels
// last (the default) or first (asked for), gives the same set, channels
// first; and that the other layout is refused with a hint.
func TestNumPyChannelAxis(t *testing.T) {
	const n, h, w, c = 2, 5, 4, 3
	nchw := make([]uint8, n*c*h*w)
	nhwc := make([]uint8, n*h*w*c)
	for i := 0; i < n; i++ {
		for k := 0; k < c; k++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					v := uint8(i*100 + k*30 + y*w + x)
					nchw[((i*c+k)*h+y)*w+x] = v
					nhwc[((i*h+y)*w+x)*c+k] = v
				}
			}
		}
	}
	labels := mustArray(t, []int64{0, 1}, 2)
	last, err := NumPySet(mustArray(t, nhwc, n, h, w, c), labels, false, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	first, err := NumPySet(mustArray(t, nchw, n, c, h, w), labels, false, 0, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if msg := sameSet(last, first); msg != "" || last.Channels != c || last.Rows != h || last.Cols != w || last.Len() != n {
		t.Fatalf("channels last and first differ: %s; %d images of %d x %d x %d", msg, last.Len(), last.Chans(), last.Rows, last.Cols)
	}
	for i, v := range nchw {
		if last.Pix[i] != float32(v)/255 {
			t.Fatalf("value %d is %v, want %v", i, last.Pix[i], float32(v)/255)
		}
	}
	// Grey with a channel axis of 1, either way, is the grey set.
	grey, err := NumPySet(mustArray(t, nchw[:n*h*w], n, 1, h, w), nil, false, 0, 0, true)
	if err != nil || grey.Channels != 0 || grey.Rows != h || grey.Cols != w {
		t.Fatalf("N x 1 x H x W: %+v %v", grey, err)
	}
	_, err = NumPySet(mustArray(t, nhwc, n, h, w, c), labels, false, 0, 0, true)
	wantErr(t, "channels last read as first", err, "looks channels last")
}

// FuzzNumPySet reads arbitrary bytes as a .npy image array, with and
// without a fixed label array, and checks that whatever is accepted is a
// valid set.
func FuzzNumPySet(f *testing.F) {
	for _, a := range []*npy.Array{
		mustArray(f, []uint8{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2),
		mustArray(f, []float32{0, 1, 0.5, 0.25}, 1, 4),
		mustArray(f, []float64{0, 1, 0.5, 0.25, 1, 1, 1, 1}, 2, 2, 2, 1),
		mustArray(f, make([]uint8, 24), 2, 2, 2, 3),
		mustArray(f, make([]uint8, 24), 2, 3, 2, 2),
	} {
		var b bytes.Buffer
		npy.Write(&b, a)
		f.Add(b.Bytes(), 0, 0)
	}
	labels := mustArray(f, []int64{1, 0}, 2)
	f.Fuzz(func(t *testing.T, data []byte, rows, cols int) {
		x, err := npy.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, y := range []*npy.Array{nil, labels} {
			for _, first := range []bool{false, true} {
				if s, err := NumPySet(x, y, false, rows, cols, first); err == nil {
					if err := s.Validate(); err != nil {
						t.Fatalf("accepted an invalid set: %v", err)
					}
				}
			}
		}
	})
}
