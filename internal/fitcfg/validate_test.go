package fitcfg

import (
	"errors"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/kind"
)

func valid() Spec {
	return Spec{Kind: kind.SCN2D, MaxNodes: 10, Candidates: 5, Scales: []float64{1, 5}, Ratios: []float64{0.9, 0.99}}
}

// TestValidate: a valid spec passes; each impossible setting is refused
// with the configuration error (the deep one for Layers with Robust) and
// a message naming it.
func TestValidate(t *testing.T) {
	s := valid()
	if err := s.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Spec)
		want string
		deep bool
	}{
		{"kind", func(s *Spec) { s.Kind = kind.Kind{Input: 7} }, "unknown kind", false},
		{"nodes", func(s *Spec) { s.MaxNodes = 0 }, "MaxNodes (L_max) = 0, want >= 1", false},
		{"too many nodes", func(s *Spec) { s.MaxNodes = MaxNodes + 1 }, "want <= 1048576", false},
		{"ratios", func(s *Spec) { s.Ratios = []float64{0.99, 0.9} }, "r list not increasing at 1", false},
		{"ratio range", func(s *Spec) { s.Ratios = []float64{1} }, "r 0 = 1, want 0 < r < 1", false},
		{"scale", func(s *Spec) { s.Scales = []float64{1, 0} }, "scale 1 = 0", false},
		{"pairs", func(s *Spec) { s.Kind, s.Pairs = kind.SCN, true }, "Pairs is for the supervised matrix learner", false},
		{"fields", func(s *Spec) { s.FieldMin = 3 }, "set both or neither", false},
		{"redraw", func(s *Spec) { s.Redraw, s.BlockSize = true, 10 }, "Redraw is for one-node", false},
		{"direct", func(s *Spec) { s.DirectLink, s.Robust = true, true }, "DirectLink is for one-layer", false},
		{"layers block", func(s *Spec) { s.Layers = []int{5} }, "Layers needs the block path", false},
		{"layers robust", func(s *Spec) { s.Layers, s.BlockSize, s.Robust = []int{5}, 10, true }, "Layers with Robust", true},
		{"layer ratios", func(s *Spec) { s.Layers, s.BlockSize, s.LayerRatios = []int{5}, 10, []float64{2} }, "r 0 = 2", false},
		{"augment alone", func(s *Spec) { s.Augment = &augment.Spec{Flip: true} }, "for local nodes (Config.Local) only", false},
	}
	for _, c := range cases {
		s := valid()
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			continue
		}
		if c.deep != errors.Is(err, ErrDeep) || c.deep == errors.Is(err, cfgerr.ErrConfig) {
			t.Errorf("%s: %v wraps the wrong error", c.name, err)
		}
	}
}

// TestBlockMode: any block-path option selects the block engine.
func TestBlockMode(t *testing.T) {
	for _, s := range []Spec{{BlockSize: 2}, {FieldMin: 1}, {Standardize: true}, {Differences: true}, {Float32Gram: true}, {BF16Gram: true}, {Pairs: true}} {
		if !s.BlockMode() {
			t.Errorf("%+v: not block mode", s)
		}
	}
	if s := (Spec{BlockSize: 1}); s.BlockMode() {
		t.Error("BlockSize 1 alone: block mode")
	}
}
