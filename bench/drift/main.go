// Command drift measures online learning (scn.Online, what scn serve
// --learn runs) on a stream whose task drifts: digits whose rotation grows
// over time. From a rotated set built by "scn derive rotated" it keeps the
// images rotated by 0 to 45 degrees, sorts them by angle, fits a model on
// the first --base images (the least rotated), then streams the rest in
// windows of --window images: each window is first predicted (the
// prequential accuracy: images the model has not learnt), then learnt. It
// compares no learning, learning without forgetting and with each
// forgetting factor of --forget, and a model of the same nodes solved on
// the last --ref stream images alone (the new regime), all scored on the
// test images of the last regime (angles of the last --ref stream images'
// range). It prints CSV rows (window, angle, arm, accuracy) and writes an
// SVG plot of accuracy over time:
//
//	scn derive rotated --train 30000 --test 10000 -o rot
//	go run ./bench/drift --derived rot --svg drift.svg > drift.csv
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "drift:", err)
		os.Exit(1)
	}
}

type arm struct {
	name string
	on   *scn.Online // nil: no learning
	m    *scn.Model
	acc  []float64
}

func run() error {
	dir := flag.String("derived", "rot", "folder of scn derive rotated")
	kind := flag.String("model", "2drvfl", "learner")
	nodes := flag.Int("nodes", 1000, "hidden nodes")
	ridge := flag.Float64("ridge", 1, "ridge term")
	base := flag.Int("base", 2000, "least rotated images the model is fitted on")
	window := flag.Int("window", 500, "images per window of the stream")
	ref := flag.Int("ref", 3000, "last stream images the new-regime model is solved on")
	forgets := flag.String("forget", "0.999,0.9995", "forgetting factors to compare")
	svg := flag.String("svg", "", "write the plot here")
	seed := flag.Uint64("seed", 1, "seed of the nodes")
	flag.Parse()
	d, err := dataset.ReadDerived(*dir)
	if err != nil {
		return err
	}
	train, test := d.Part("train"), d.Part("test")
	stream := positive(train)
	tst := positive(test)
	if len(stream) < *base+*ref {
		return fmt.Errorf("%d images rotated by 0-45 degrees: fewer than --base + --ref", len(stream))
	}
	k, err := scn.ParseKind(*kind)
	if err != nil {
		return err
	}
	c := scn.Paper(k)
	c.MaxNodes, c.Ridge, c.Seed = *nodes, *ridge, *seed
	bp := problem(train, stream[:*base])
	t0 := time.Now()
	m, err := c.Fit(context.Background(), bp, nil)
	if err != nil {
		return err
	}
	st0 := func() *scn.Stats {
		st, err := m.Stats(bp)
		if err != nil {
			panic(err)
		}
		return st
	}
	fmt.Fprintf(os.Stderr, "fitted %v L = %d on %d images (%.0f-%.0f degrees) in %.1f s\n", k, *nodes, *base,
		train.Targets[stream[0]], train.Targets[stream[*base-1]], time.Since(t0).Seconds())
	arms := []*arm{{name: "no learning", m: m}}
	for _, f := range append([]string{"1"}, strings.Split(*forgets, ",")...) {
		lambda, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return err
		}
		on, err := scn.NewOnline(m, st0(), lambda)
		if err != nil {
			return err
		}
		name := "learning (no forgetting)"
		if lambda < 1 {
			name = "learning (forget " + f + ")"
		}
		arms = append(arms, &arm{name: name, on: on, m: m})
	}
	rest := stream[*base:]
	fmt.Println("window,first_image,angle_from,angle_to,arm,accuracy")
	var angles []float64
	for w := 0; w*(*window) < len(rest); w++ {
		idx := rest[w**window : min(len(rest), (w+1)**window)]
		p := problem(train, idx)
		a0, a1 := train.Targets[idx[0]], train.Targets[idx[len(idx)-1]]
		angles = append(angles, (a0+a1)/2)
		for _, a := range arms {
			acc, err := accuracy(a.m, p)
			if err != nil {
				return err
			}
			a.acc = append(a.acc, acc)
			fmt.Printf("%d,%d,%.2f,%.2f,%s,%.4f\n", w, *base+w**window, a0, a1, a.name, acc)
			if a.on != nil {
				if a.m, err = a.on.Learn(p); err != nil {
					return err
				}
			}
		}
	}
	// The last regime: the angles of the last --ref stream images; its
	// test images; a model of the same nodes solved on those images alone.
	last := stream[len(stream)-*ref:]
	lo := train.Targets[last[0]]
	var tl []int
	for _, i := range tst {
		if test.Targets[i] >= lo {
			tl = append(tl, i)
		}
	}
	tp := problem(test, tl)
	rs, err := m.Stats(problem(train, last))
	if err != nil {
		return err
	}
	refm, err := rs.Solve(*ridge)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "last regime: %.1f-45 degrees, %d test images\n", lo, len(tl))
	racc, err := accuracy(refm, tp)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%-28s %.2f%%\n", "model of the new regime", 100*racc)
	for _, a := range arms {
		acc, err := accuracy(a.m, tp)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%-28s %.2f%% (%+.2f points)\n", a.name, 100*acc, 100*(acc-racc))
	}
	if *svg != "" {
		return os.WriteFile(*svg, []byte(plot(angles, arms, racc, *window)), 0o644)
	}
	return nil
}

// positive returns the indices of the images rotated by 0 to 45 degrees,
// sorted by angle.
func positive(s *dataset.Set) []int {
	var idx []int
	for i, a := range s.Targets {
		if a >= 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.Targets[idx[a]] < s.Targets[idx[b]] })
	return idx
}

// problem returns the images idx of s as a classification of their digits.
func problem(s *dataset.Set, idx []int) scn.Problem {
	d := s.Rows * s.Cols
	pix := make([]float32, 0, len(idx)*d)
	labels := make([]int, len(idx))
	for k, i := range idx {
		pix = append(pix, s.Pix[i*d:(i+1)*d]...)
		labels[k] = s.Labels[i]
	}
	p, err := scn.Classification(scn.Images{Rows: s.Rows, Cols: s.Cols, Pix: pix}, labels, s.Classes)
	if err != nil {
		panic(err)
	}
	return p
}

func accuracy(m *scn.Model, p scn.Problem) (float64, error) {
	got, err := m.Classify(p.X)
	if err != nil {
		return 0, err
	}
	want := scn.ArgMax(p.T, p.M)
	ok := 0
	for i := range got {
		if got[i] == want[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(got)), nil
}

// plot draws the prequential accuracy of each arm against the window's
// angle, with the new-regime model's test accuracy as a dashed line.
func plot(angles []float64, arms []*arm, ref float64, window int) string {
	const w, h, l, r, t, b = 720.0, 420.0, 60.0, 220.0, 30.0, 50.0
	lo := 1.0
	for _, a := range arms {
		for _, v := range a.acc {
			lo = min(lo, v)
		}
	}
	lo = float64(int(lo*10)) / 10
	x := func(a float64) float64 { return l + (a-angles[0])/(angles[len(angles)-1]-angles[0])*(w-l-r) }
	y := func(v float64) float64 { return t + (1-(v-lo)/(1-lo))*(h-t-b) }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&sb, `<text x="%.0f" y="18">Accuracy on each window of %d digits before learning it, rotation growing over time</text>`+"\n", l, window)
	for v := lo; v <= 1.0001; v += 0.05 {
		fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", l, w-r, y(v), y(v), l-4, y(v)+4, v*100)
	}
	for a := 0.0; a <= 45; a += 5 {
		if a < angles[0] || a > angles[len(angles)-1] {
			continue
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">%.0f°</text>`+"\n", x(a), h-b+16, a)
	}
	fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">rotation of the window's digits (degrees)</text>`+"\n", (l+w-r)/2, h-12)
	colours := []string{"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"}
	for i, a := range arms {
		var pts []string
		for k, v := range a.acc {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(angles[k]), y(v)))
		}
		c := colours[i%len(colours)]
		fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%s</text>`+"\n", w-r+10, w-r+30, t+20*float64(i)+10, t+20*float64(i)+10, c, w-r+34, t+20*float64(i)+14, a.name)
	}
	fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/>`+"\n", x(angles[len(angles)-1])-60, x(angles[len(angles)-1]), y(ref), y(ref))
	fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/><text x="%.1f" y="%.1f">new-regime model (test)</text>`+"\n", w-r+10, w-r+30, t+20*float64(len(arms))+10, t+20*float64(len(arms))+10, w-r+34, t+20*float64(len(arms))+14)
	sb.WriteString("</svg>\n")
	return sb.String()
}
