package direct

import (
	"errors"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
)

func TestLinkFile(t *testing.T) {
	l := &Link{Pool: 2, Beta: []float64{1, 2, 3, 4, 5, 6, 7, 8}}
	h := &modelfile.Header{Rows: 4, Cols: 5, Outputs: 2, Direct: ToFile(l, 0, 4, 5)}
	h.Config.DirectLink = true
	if h.Direct.Features != 4 { // 2 x 2 blocks of 4 x 5, the last column dropped
		t.Fatalf("features %d", h.Direct.Features)
	}
	got, err := FromFile(h)
	if err != nil || got.Pool != 2 || got.Beta != nil {
		t.Fatalf("FromFile = %+v, %v", got, err)
	}
	if b := Append(nil, l); len(b) != 8*len(l.Beta) {
		t.Fatalf("Append wrote %d bytes", len(b))
	}
	if ToFile(nil, 1, 4, 5) != nil || len(Append([]byte{1}, nil)) != 1 {
		t.Fatal("nil links are written")
	}
	bad := func(f func(h *modelfile.Header)) error {
		c := *h
		d := *h.Direct
		c.Direct = &d
		f(&c)
		_, err := FromFile(&c)
		return err
	}
	for name, f := range map[string]func(h *modelfile.Header){
		"no config":  func(h *modelfile.Header) { h.Config.DirectLink = false },
		"no field":   func(h *modelfile.Header) { h.Direct = nil },
		"deep":       func(h *modelfile.Header) { h.Deep = []int{3} },
		"pool 0":     func(h *modelfile.Header) { h.Direct.Pool = 0 },
		"pool large": func(h *modelfile.Header) { h.Direct.Pool = 5 },
		"features":   func(h *modelfile.Header) { h.Direct.Features = 5 },
	} {
		if err := bad(f); !errors.Is(err, modelfile.ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// n * d / p^2 and the squared norm.
	s, w := l.IndicatorTerm(10, 4)
	if s != 10 || w != 204 {
		t.Fatalf("IndicatorTerm = %v, %v", s, w)
	}
}
