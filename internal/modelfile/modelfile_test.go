package modelfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fullHeader is a header with every field of every extension set.
func fullHeader() *Header {
	return &Header{
		Kind: "2DSCN", Activation: "sigmoid", Rows: 6, Cols: 5, Channels: 3, Outputs: 2, Nodes: 4,
		Classes: []string{"a", "b"},
		Config: Config{MaxNodes: 4, Tolerance: 0.01, Candidates: 10, Scales: []float64{0.5, 1}, Ratios: []float64{0.9},
			Seed: 7, Ridge: 1e-3, Preset: "fast", BlockSize: 2, FieldMin: 2, FieldMax: 4, Standardize: true,
			Differences: true, Float32Gram: true, BF16Gram: true, Pairs: true, StopAtRank: true, Robust: true,
			Redraw: true, Layers: []int{4, 3}, DirectLink: true},
		Summary:       Summary{Samples: 100, Stop: "max nodes", TrainRMSE: 0.25, Tried: 40, Rejected: 1},
		Preprocessing: Preprocessing{Invert: "auto", ResizeRows: 6, ResizeCols: 5, Fit: "pad", Channels: 3, MNIST: true, Deskew: true},
		Meta:          map[string]string{"source": "test"},
		Selection: &Choice{Method: "holdout", Held: 20, Metric: "accuracy", Nodes: 3, Ridge: 1e-2, Accuracy: 0.9,
			RMSE: 0.3, Refit: "all", StoppedAt: 3, FitNodes: 4, Curve: [][]float64{{1, 0.1, 0.5, 0.7}, {2, 0.1, 0.6, 0.6, 1}},
			Direct: true, Growth: "no gain"},
		Budget: &Budget{Budget: 10, Kind: "2DSCN", Preset: "fast", Nodes: 4, MaxNodes: 8, BlockSize: 2, Validation: 0.2,
			Points: 3, Ridges: []float64{1e-3}, FitRidge: 1e-3, Predicted: 9.5, Rates: [5]float64{1, 2, 3, 4, 5},
			Why: "time", FitNodes: 4, Stopped: "done", Elapsed: 9, Checkpoints: [][]float64{{2, 1, 0.5, 0.7}},
			FitWeights: true, Filters: 8, Probe: "local"},
		Deep: []int{3},
		Local: &Local{Sizes: []int{3}, Filters: 4, Stride: 1, Pad: 1, Pool: 2, Pooling: "avg", TwoSided: true,
			Standardize: true, Banks: []int{4}, Whiten: true, WhitenEps: 0.1,
			Augment: &Augment{Flip: true, Shift: 1, Copies: 2},
			Second:  &Second{Filters: 2, Size: 3, Window: 2, Stride: 1, MidPooling: "max", Concat: true, Held: 2}},
		Calibration:  &Calibration{Method: "logistic", Temperature: 1.5, A: []float64{1, 0, 0, 1}, B: []float64{0, 0}, Held: 20, TempLoss: 0.3, LogiLoss: 0.2, RawLoss: 0.4},
		Interval:     &Interval{Coverage: 0.9, Radius: []float64{0.1, 0.2}, Held: 20},
		ClassWeights: []float64{1, 2},
		Direct:       &Direct{Pool: 2, Features: 27},
	}
}

// write returns the file Write makes of h and the payload p.
func write(t testing.TB, v uint32, h *Header, p []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := Write(&buf, v, h, len(p), func(b []byte) []byte { return append(b, p...) })
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("Write says %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

// read reads a whole file of a payload of size bytes.
func read(data []byte, size int) (*Header, uint32, []byte, error) {
	r := bytes.NewReader(data)
	var raw bytes.Buffer
	h, v, hlen, err := ReadHeader(r, &raw)
	if err != nil {
		return nil, 0, nil, err
	}
	p, err := ReadPayload(r, &raw, hlen, size)
	return h, v, p, err
}

func TestRoundTrip(t *testing.T) {
	// A negative zero (the literal -0.0 is +0 in Go) keeps its sign bit.
	payload := AppendFloat64s(AppendFloat32s(nil, []float32{1, -2, 3.5}), []float64{math.Pi, math.Copysign(0, -1)})
	for _, tc := range []struct {
		v uint32
		h *Header
	}{
		{Version, fullHeader()},
		{GreyVersion, &Header{Kind: "SCN", Activation: "sigmoid", Rows: 2, Cols: 2, Outputs: 1, Nodes: 1}},
		{ColourVersion, &Header{Kind: "SCN", Activation: "sigmoid", Rows: 2, Cols: 2, Channels: 3, Outputs: 1, Nodes: 1}},
	} {
		file := write(t, tc.v, tc.h, payload)
		h, v, p, err := read(file, len(payload))
		if err != nil {
			t.Fatalf("version %d: %v", tc.v, err)
		}
		if v != tc.v || !reflect.DeepEqual(h, tc.h) || !bytes.Equal(p, payload) {
			t.Errorf("version %d: read back %d, %+v, %x", tc.v, v, h, p)
		}
		// Written again: the same bytes.
		if again := write(t, v, h, p); !bytes.Equal(again, file) {
			t.Errorf("version %d: rewritten file differs", tc.v)
		}
	}
}

// TestLayout checks Write's bytes against the layout written out by hand.
func TestLayout(t *testing.T) {
	h := &Header{Kind: "SCN", Activation: "sigmoid", Rows: 1, Cols: 1, Outputs: 1, Nodes: 1}
	js, _ := json.Marshal(h)
	want := []byte("2DSCNMDL")
	want = append(want, 1, 0, 0, 0)
	want = append(want, byte(len(js)), byte(len(js)>>8), 0, 0)
	want = append(want, js...)
	want = append(want, 0x00, 0x00, 0x80, 0x3f) // float32 1
	sum := crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli))
	want = append(want, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
	if got := write(t, 1, h, AppendFloat32s(nil, []float32{1})); !bytes.Equal(got, want) {
		t.Fatalf("file\n%x\nwant\n%x", got, want)
	}
	if !strings.Contains(string(js), `"kind":"SCN"`) || strings.Contains(string(js), "preprocessing") || strings.Contains(string(js), "channels") {
		t.Errorf("header %s: zero extensions must be absent", js)
	}
}

func TestFloatsExact(t *testing.T) {
	f32 := []float32{0, float32(math.Copysign(0, -1)), 1e-45, math.MaxFloat32, float32(math.Inf(-1)), float32(math.NaN())}
	f64 := []float64{0, math.Copysign(0, -1), 5e-324, math.MaxFloat64, math.Inf(1), math.NaN()}
	r := NewPayloadReader(AppendFloat64s(AppendFloat32s(nil, f32), f64))
	g32 := r.F32(len(f32))
	g64 := make([]float64, len(f64))
	r.F64(g64)
	for i := range f32 {
		if math.Float32bits(g32[i]) != math.Float32bits(f32[i]) {
			t.Errorf("float32 %d: %x, want %x", i, math.Float32bits(g32[i]), math.Float32bits(f32[i]))
		}
	}
	for i := range f64 {
		if math.Float64bits(g64[i]) != math.Float64bits(f64[i]) {
			t.Errorf("float64 %d: %x, want %x", i, math.Float64bits(g64[i]), math.Float64bits(f64[i]))
		}
	}
	if len(r.Rest()) != 0 {
		t.Errorf("%d bytes left", len(r.Rest()))
	}
}

func TestWriteRefuses(t *testing.T) {
	h := &Header{Kind: "SCN", Meta: map[string]string{"big": strings.Repeat("x", MaxHeader)}}
	if _, err := Write(io.Discard, 1, h, 0, func(b []byte) []byte { return b }); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("header over MaxHeader: %v", err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, 1, &Header{}, 8, func(b []byte) []byte { return append(b, 1, 2, 3) }); err == nil || buf.Len() != 0 {
		t.Errorf("payload of the wrong size: %v, %d bytes written", err, buf.Len())
	}
}

// seal replaces the checksum at the end of file by the right one.
func seal(file []byte) []byte {
	end := len(file) - 4
	binary.LittleEndian.PutUint32(file[end:], crc32.Checksum(file[:end], Castagnoli))
	return file
}

// withHeader returns a file of version v with the header text js.
func withHeader(v uint32, js string) []byte {
	b := append([]byte(Magic), binary.LittleEndian.AppendUint32(nil, v)...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	return seal(append(append(b, js...), 0, 0, 0, 0))
}

func TestBadFiles(t *testing.T) {
	good := write(t, Version, fullHeader(), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	le := binary.LittleEndian
	mod := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	const grey = `{"kind":"SCN","activation":"sigmoid","rows":2,"cols":2,"outputs":1,"nodes":1`
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "truncated preamble", nil},
		{"short preamble", "truncated preamble", good[:10]},
		{"wrong magic", "wrong magic", mod(func(b []byte) { b[0] = 'X' })},
		{"statistics magic", "wrong magic", mod(func(b []byte) { copy(b, "2DSCNSTA") })},
		{"version 0", "format version 0", mod(func(b []byte) { le.PutUint32(b[8:], 0) })},
		{"future version", "format version 4", mod(func(b []byte) { le.PutUint32(b[8:], Version+1) })},
		{"absurd header", "header length 4294967295 exceeds", mod(func(b []byte) { le.PutUint32(b[12:], math.MaxUint32) })},
		{"cut header", "truncated header", good[:PreambleSize+5]},
		{"bad json", "header:", mod(func(b []byte) { b[PreambleSize] = '[' })},
		{"unknown field", "unknown field", withHeader(1, grey+`,"colour":true}`)},
		{"grey with channels", "channels need version 2", withHeader(1, grey+`,"channels":3}`)},
		{"colour without channels", "channels = 0", withHeader(2, grey+`}`)},
		{"colour of 2000 channels", "channels = 2000", withHeader(2, grey+`,"channels":2000}`)},
		{"version 3 of one channel", "channels = 1", withHeader(3, grey+`,"channels":1}`)},
		{"grey with direct links", "fields of version 3", withHeader(1, grey+`,"direct":{"pool":1,"features":4}}`)},
		{"grey with a probe", "fields of version 3", withHeader(1, grey+`,"budget":{"probe":"local"}}`)},
		{"grey with a direct curve row", "fields of version 3", withHeader(1, grey+`,"selection":{"curve":[[1,0,0,0,1]]}}`)},
		{"cut payload", "truncated weights", good[:len(good)-6]},
		{"no checksum", "truncated weights", good[:len(good)-4]},
		{"trailing bytes", "data after the checksum", append(bytes.Clone(good), 0)},
		{"bit flip", "checksum mismatch", mod(func(b []byte) { b[len(b)-6] ^= 0x10 })},
		{"flipped checksum", "checksum mismatch", mod(func(b []byte) { b[len(b)-1] ^= 1 })},
	} {
		size := 8
		if bytes.Contains(tc.data, []byte(grey)) {
			size = 0
		}
		_, _, _, err := read(tc.data, size)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrFormat with %q", tc.name, err, tc.want)
		}
	}
}

// TestNoAllocationBeforeData checks that what a file claims is not
// allocated before the bytes arrive: a header length over the bound is
// refused unread, and a payload claimed far larger than the data grows
// the buffer no further than the data.
func TestNoAllocationBeforeData(t *testing.T) {
	var raw bytes.Buffer
	pre := append([]byte(Magic), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f)
	if _, _, _, err := ReadHeader(bytes.NewReader(pre), &raw); err == nil || raw.Cap() > 1024 {
		t.Errorf("absurd header length: %v, buffer of %d bytes", err, raw.Cap())
	}
	file := write(t, 1, &Header{Kind: "SCN"}, nil)
	raw.Reset()
	r := bytes.NewReader(file)
	_, _, hlen, err := ReadHeader(r, &raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPayload(r, &raw, hlen, 1<<40); err == nil || !strings.Contains(err.Error(), "truncated weights") || raw.Cap() > 1<<16 {
		t.Errorf("payload of 2^40 bytes claimed: %v, buffer of %d bytes", err, raw.Cap())
	}
}

func TestHeaderChecks(t *testing.T) {
	ok := func() *Header {
		return &Header{Rows: 28, Cols: 28, Outputs: 10, Nodes: 5, Classes: make([]string, 10), Deep: []int{4, 3}}
	}
	if err := ok().CheckSizes(); err != nil {
		t.Fatal(err)
	}
	if n, err := ok().CheckLayers(); err != nil || n != 7 {
		t.Fatalf("CheckLayers: %d, %v", n, err)
	}
	direct := ok()
	direct.Nodes, direct.Deep, direct.Direct = 0, nil, &Direct{Pool: 1, Features: 784}
	if err := direct.CheckSizes(); err != nil {
		t.Errorf("direct links without hidden nodes: %v", err)
	}
	for name, f := range map[string]func(h *Header){
		"no rows":          func(h *Header) { h.Rows = 0 },
		"negative cols":    func(h *Header) { h.Cols = -1 },
		"no outputs":       func(h *Header) { h.Outputs = 0 },
		"no nodes":         func(h *Header) { h.Nodes = 0 },
		"absurd nodes":     func(h *Header) { h.Nodes = MaxValues + 1 },
		"class names":      func(h *Header) { h.Classes = h.Classes[:3] },
		"absurd inputs":    func(h *Header) { h.Rows, h.Cols, h.Channels = 1<<17, 1<<17, 2 },
		"empty layer":      func(h *Header) { h.Deep[1] = 0 },
		"absurd layers":    func(h *Header) { h.Deep = []int{1 << 20, 1 << 20} },
		"direct with deep": func(h *Header) { h.Nodes, h.Direct = 0, &Direct{Pool: 1} },
	} {
		h := ok()
		f(h)
		err := h.CheckSizes()
		if err == nil {
			_, err = h.CheckLayers()
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestUsesV3(t *testing.T) {
	if (&Header{}).UsesV3() {
		t.Error("empty header uses version 3")
	}
	for name, h := range map[string]*Header{
		"direct":         {Direct: &Direct{}},
		"config direct":  {Config: Config{DirectLink: true}},
		"probe":          {Budget: &Budget{Probe: "local"}},
		"choice direct":  {Selection: &Choice{Direct: true}},
		"choice growth":  {Selection: &Choice{Growth: "x"}},
		"direct row":     {Selection: &Choice{Curve: [][]float64{{1, 0, 0, 0, 1}}}},
		"full extension": fullHeader(),
	} {
		if !h.UsesV3() {
			t.Errorf("%s: not version 3", name)
		}
	}
}

// FuzzReadFile reads any bytes as a model file whose payload is the rest
// of the file: no panic, errors wrap ErrFormat, and what is read writes
// back to a file that reads the same.
func FuzzReadFile(f *testing.F) {
	f.Add(write(f, Version, fullHeader(), []byte{1, 2, 3, 4}))
	f.Add(write(f, 1, &Header{Kind: "SCN", Rows: 1, Cols: 1, Outputs: 1, Nodes: 1}, AppendFloat32s(nil, []float32{1, 2})))
	f.Add(withHeader(2, `{"channels":3}`))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		var raw bytes.Buffer
		h, v, hlen, err := ReadHeader(r, &raw)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		size := len(data) - PreambleSize - hlen - 4
		if size < 0 {
			size = 0
		}
		p, err := ReadPayload(r, &raw, hlen, size)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		var out bytes.Buffer
		if _, err := Write(&out, v, h, len(p), func(b []byte) []byte { return append(b, p...) }); err != nil {
			return // a header the JSON reads but cannot write back (too long once re-encoded)
		}
		// Compared as JSON: an empty list or map reads back absent.
		h2, v2, p2, err := read(out.Bytes(), len(p))
		j1, _ := json.Marshal(h)
		j2, _ := json.Marshal(h2)
		if err != nil || v2 != v || !bytes.Equal(j1, j2) || !bytes.Equal(p2, p) {
			t.Fatalf("written back: %v\n%s\n%s", err, j1, j2)
		}
	})
}
