package main

import (
	"fmt"
	"strings"

	"github.com/scn2d/scn"
)

// secondFlags are scn train's flags of a second layer of local nodes.
type secondFlags struct {
	size       string // --local2 3x3
	filters    int    // --filters2
	window     int    // --mid-pool
	stride     int    // --mid-stride (0: the window)
	midPooling string // --mid-pooling
	concat     bool   // --concat
}

// addSecond registers the second layer's flags.
func (h *hyperFlags) addSecond() {
	f := h.flags
	s := &h.second
	f.StringVar(&s.size, "local2", "", "with --local: a second layer of local nodes of KxK filters (e.g. 3x3) on the first layer's activated maps pooled between the layers (--mid-pool); separable u v^T x w (one weight per map) for 2dscn/2drvfl, full for scn/rvfl; random for rvfl/2drvfl, chosen by the supervisory inequality for scn/2dscn (the first layer stays random); pooled over --pool as the first (docs/local.md)")
	intVar(f, &s.filters, "filters2", 128, 1, 1<<16, "with --local2: the second layer's filters")
	intVar(f, &s.window, "mid-pool", 2, 1, 1024, "with --local2: the window of the pooling between the layers")
	intVar(f, &s.stride, "mid-stride", 0, 0, 1024, "with --local2: the step of the pooling between the layers (0: the window)")
	f.StringVar(&s.midPooling, "mid-pooling", "max", "with --local2: max or avg pooling between the layers")
	f.BoolVar(&s.concat, "concat", true, "with --local2: the output weights read both layers' pooled outputs (false: the second layer's only)")
}

// secondOnly are the flags that mean nothing without --local2.
var secondOnly = []string{"filters2", "mid-pool", "mid-stride", "mid-pooling", "concat"}

// applySecond sets g.Second from the flags.
func (h *hyperFlags) applySecond(g *scn.Local) error {
	s := &h.second
	if s.size == "" {
		for _, name := range secondOnly {
			if h.changed(name) {
				return usageError{fmt.Errorf("--%s is a setting of a second layer of local nodes: add --local2 (e.g. --local2 3x3)", name)}
			}
		}
		return nil
	}
	k, err := parseSquare(strings.TrimSpace(s.size))
	if err != nil {
		return usageError{fmt.Errorf("--local2 %q: %v", s.size, err)}
	}
	p, err := scn.ParsePooling(s.midPooling)
	if err != nil || p == scn.PoolAvgMax {
		return usageError{fmt.Errorf("--mid-pooling %q: want max or avg", s.midPooling)}
	}
	st := s.stride
	if st == 0 {
		st = s.window
	}
	g.Second = &scn.LocalSecond{Filters: s.filters, Size: k, Window: s.window, Stride: st, MidPooling: p, Concat: s.concat}
	return nil
}

// secondLine describes a two-layer model's second layer for scn inspect
// ("" for others).
func secondLine(m scn.Info) string {
	if m.Local == nil || m.Local.Second == nil {
		return ""
	}
	form := "full filters"
	if m.Kind.Input == scn.Matrix {
		form = "separable filters u v^T x w"
	}
	return fmt.Sprintf("second layer: %d filters of %dx%d (%s, %d + bias each) on %d pooled maps", m.SecondFilters,
		m.Local.Second.Size, m.Local.Second.Size, form, m.SecondParamsPerFilter(), m.Local.Filters*m.Local.Sides())
}

// secondJSON is the second layer in scn inspect --json (nil without).
func secondJSON(m scn.Info) map[string]any {
	if m.Local == nil || m.Local.Second == nil {
		return nil
	}
	s := m.Local.Second
	return map[string]any{"filters": s.Filters, "held": m.SecondFilters, "size": s.Size, "mid_pool": s.Window,
		"mid_stride": s.Stride, "mid_pooling": s.MidPooling.String(), "concat": s.Concat, "params_per_filter": m.SecondParamsPerFilter()}
}
