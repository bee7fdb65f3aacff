package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/scn2d/scn"
	"golang.org/x/term"
)

// progress shows a fit's progress: a bar with nodes added, training RMSE
// and rate on a terminal, nothing otherwise (or with quiet).
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(total int, label string, quiet bool) *progress {
	if quiet || !term.IsTerminal(int(os.Stderr.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("nodes"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)}
}

// step is the fit's progress callback.
func (p *progress) step(s scn.Step) {
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("L=%d RMSE=%.4g", s.L, s.RMSE))
	p.bar.Set(s.L)
}

// grow says that model selection fits again with more nodes (scn.Selection.Grow).
func (p *progress) grow(w io.Writer, nodes int) {
	if p.bar != nil {
		p.bar.Reset()
		p.bar.ChangeMax(nodes)
	}
	fmt.Fprintf(w, "scn: held-out score still improving at the end of the fit: fitting %d nodes\n", nodes)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// summary prints one line about a finished fit.
func summary(w io.Writer, m *scn.Model) {
	s := m.Summary
	layers := ""
	if m.IsDeep() {
		layers = fmt.Sprintf(" in layers of %v", m.LayerSizes())
	}
	fmt.Fprintf(w, "%s: %d nodes%s (%v), training RMSE %.5g, %d candidates scored, %d parameters, %.2f s\n",
		m.Kind.Title(), m.Nodes(), layers, s.Stop, s.TrainRMSE, s.Tried, m.ParamCount(), s.Duration.Seconds())
}
