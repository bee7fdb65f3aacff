package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkAgainstStdlib checks an accepted batch against encoding/json: the
// text is valid JSON and every value is what strconv.ParseFloat(s, 32)
// makes of the number, in order, with the shapes the arrays have.
func checkAgainstStdlib(t *testing.T, data []byte, b *batch) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("accepted, but encoding/json refuses %q: %v", data, err)
	}
	images, ok := doc["images"].([]any)
	if !ok {
		t.Fatalf("accepted %q without an images array", data)
	}
	if len(images) != len(b.shapes) {
		t.Fatalf("%d images, encoding/json %d", len(b.shapes), len(images))
	}
	k := 0
	check := func(v any) {
		num, ok := v.(json.Number)
		if !ok {
			t.Fatalf("value %v (%T) accepted as a number", v, v)
		}
		want, err := strconv.ParseFloat(string(num), 32)
		if err != nil {
			t.Fatalf("accepted %s, strconv: %v", num, err)
		}
		if got := b.pix[k]; math.Float32bits(got) != math.Float32bits(float32(want)) {
			t.Fatalf("%s: %v, strconv %v", num, got, float32(want))
		}
		k++
	}
	for i, img := range images {
		rows := img.([]any)
		sh := b.shapes[i]
		if sh.off != k {
			t.Fatalf("image %d at %d, want %d", i, sh.off, k)
		}
		if sh.rows == 0 {
			if len(rows) != sh.cols {
				t.Fatalf("flat image %d: %d values, shape says %d", i, len(rows), sh.cols)
			}
			for _, v := range rows {
				check(v)
			}
			continue
		}
		if len(rows) != sh.rows {
			t.Fatalf("image %d: %d rows, shape says %d", i, len(rows), sh.rows)
		}
		for _, r := range rows {
			vals := r.([]any)
			if len(vals) != sh.cols {
				t.Fatalf("image %d: row of %d, shape says %d", i, len(vals), sh.cols)
			}
			for _, v := range vals {
				check(v)
			}
		}
	}
	if k != len(b.pix) {
		t.Fatalf("%d values, encoding/json %d", len(b.pix), k)
	}
	if top, ok := doc["top"]; ok && float64(b.top) != mustFloat(top) {
		t.Fatalf("top %d, encoding/json %v", b.top, top)
	}
	if p, ok := doc["prepared"]; ok && p != b.prepared {
		t.Fatalf("prepared %v, encoding/json %v", b.prepared, p)
	}
}

func mustFloat(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}

func TestParseBatch(t *testing.T) {
	good := []string{
		`{"images": [[0, 0.5, 1]]}`,
		` { "images" : [ [ [0,1] , [1e-1, 2E+0] ] , [3] ] , "top" : 3 , "prepared" : true } `,
		`{"top": 0, "images": [], "prepared": false}`,
		`{"images": [[-0, 0.0000001, 123456789012345678901234567890, 1e-50]]}`,
		`{"images": [[0.011764706, 0.49803922, 0.99607843, 3.4028234e38]]}`,
	}
	for _, g := range good {
		b, err := parseBatch([]byte(g))
		if err != nil {
			t.Errorf("%s: %v", g, err)
			continue
		}
		checkAgainstStdlib(t, []byte(g), b)
	}
	bad := []string{
		``, `[]`, `{}`, `{"images": [[]]}`, `{"images": [[[]]]}`, `{"images": [[[0], 1]]}`, `{"images": [[1, [0]]]}`,
		`{"images": [[01]]}`, `{"images": [[.5]]}`, `{"images": [[1.]]}`, `{"images": [[1e]]}`, `{"images": [[+1]]}`,
		`{"images": [[NaN]]}`, `{"images": [[1e39]]}`, `{"images": [["1"]]}`, `{"images": [[1,]]}`, `{"images": [[1]],}`,
		`{"images": [[1]]} x`, `{"images": [[1]], "images": [[1]]}`, `{"im\u0061ges": [[1]]}`, `{"images": [[1]], "top": -1}`,
		`{"images": [[1]], "top": 2e9}`, `{"images": [[1]], "prepared": 1}`, `{"images": [[1]]`, `{"images": [[1] [2]]}`,
		`{"images": [[[1, 2], [3]]]}`, `{"images": null}`, `{"images" [[1]]}`, "{\"images\": [[1]]}\x00",
	}
	for _, s := range bad {
		if b, err := parseBatch([]byte(s)); err == nil {
			t.Errorf("%q accepted: %+v", s, b)
		} else if !errors.Is(err, errJSON) {
			t.Errorf("%q: error %v does not wrap errJSON", s, err)
		}
	}
}

// TestNumbers checks the number reader against strconv on many decimals,
// the ones 8-bit levels print as among them.
func TestNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var strs []string
	for k := range 256 {
		v := float32(k) / 255
		strs = append(strs, strconv.FormatFloat(float64(v), 'g', -1, 32), strconv.FormatFloat(float64(v), 'g', -1, 64),
			strconv.FormatFloat(float64(k)/255, 'f', 6, 64))
	}
	for range 200000 {
		digits := 1 + rng.IntN(17)
		m := rng.Uint64() % uint64(math.Pow10(min(digits, 19)))
		s := strconv.FormatUint(m, 10)
		if p := rng.IntN(len(s) + 1); p < len(s) && rng.IntN(2) == 0 {
			s = "0." + s
		}
		if rng.IntN(3) == 0 {
			s += "e" + strconv.Itoa(rng.IntN(90)-45)
		}
		if rng.IntN(4) == 0 {
			s = "-" + s
		}
		strs = append(strs, s)
	}
	for _, s := range strs {
		p := &parser{data: []byte(s)}
		got, err := p.number()
		want, serr := strconv.ParseFloat(s, 32)
		if (err != nil) != (serr != nil) || err == nil && math.Float32bits(float32(got)) != math.Float32bits(float32(want)) {
			t.Fatalf("%s: %v %v, strconv %v %v", s, got, err, want, serr)
		}
		if err == nil && p.pos != len(s) {
			t.Fatalf("%s: read %d bytes", s, p.pos)
		}
	}
}

// FuzzParseBatch: whatever parseBatch accepts, encoding/json reads the same
// way.
func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{
		`{"images": [[0, 0.5, 1]]}`,
		`{"images": [[[0,1],[1e-1,2E+0]],[3]],"top":3,"prepared":true}`,
		`{"images": [[0.011764706, 4.9803922e-1, -0.0]], "top": 10}`,
		`{"images": [[1.00000005960464477539062500001]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBatch(data)
		if err != nil {
			if !errors.Is(err, errJSON) {
				t.Fatalf("error %v does not wrap errJSON", err)
			}
			return
		}
		checkAgainstStdlib(t, data, b)
	})
}
