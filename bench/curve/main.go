// Command curve fits one learner on an IDX training set and prints, as CSV
// rows (data, learner, nodes, fit_s, cpu_s, test_acc), the test accuracy of
// the model after every --every nodes together with the wall and CPU time
// the fit had taken when it got there. With blocks that divide --every,
// the model after l nodes is exactly what a fit with L_max = l gives (its
// output weights re-solved by the fit's Path at the same ridge), so one
// run gives a whole accuracy-against-time curve (the fast random learners,
// which add their nodes only after one pass over the data for all of them,
// are fitted once for each l instead):
//
//	go run -tags openblas ./bench/curve --data ../shared/data/mnist --model 2dscn --preset fast
//
// Times exclude reading the data and evaluating the prefixes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/proc"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "curve:", err)
		os.Exit(1)
	}
}

// cpuSeconds is the process's CPU time (0 where the OS does not say).
func cpuSeconds() float64 { return proc.CPUTime().Seconds() }

func run() error {
	data := flag.String("data", "../shared/data/mnist", "folder with the four gzip IDX files of MNIST or Fashion-MNIST")
	model := flag.String("model", "2dscn", "learner")
	preset := flag.String("preset", "fast", "fast or paper")
	nodes := flag.Int("nodes", 0, "L_max (0: the preset's)")
	every := flag.Int("every", 1000, "report the prefix after every this many nodes")
	block := flag.Int("block", -1, "block size (-1: the preset's)")
	field := flag.Int("field-max", -1, "receptive fields 5..this (0: none; -1: the preset's)")
	f32 := flag.Bool("float32-gram", true, "float32 Gram products (fast preset)")
	bf16 := flag.Int("bf16-gram", -1, "bfloat16 Gram products: 1 on, 0 off (-1: the preset's)")
	diffs := flag.Int("differences", -1, "difference nodes: 1 on, 0 off (-1: the preset's)")
	labelFlag := flag.String("label", "", "the learner's name in the CSV (default: the learner and preset)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the fit to this file")
	flag.Parse()
	for name, v := range map[string]int{"bf16-gram": *bf16, "differences": *diffs} {
		if v < -1 || v > 1 {
			return fmt.Errorf("--%s %d: want -1, 0 or 1", name, v)
		}
	}
	if *every < 1 || *nodes < 0 {
		return fmt.Errorf("--every %d, --nodes %d: want every >= 1 and nodes >= 0", *every, *nodes)
	}
	read := func(img, lab string) (*dataset.Set, error) {
		return dataset.ReadIDX(filepath.Join(*data, img), filepath.Join(*data, lab))
	}
	tr, err := read("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")
	if err != nil {
		return err
	}
	te, err := read("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
	if err != nil {
		return err
	}
	p, err := scn.Classification(scn.Images{Rows: tr.Rows, Cols: tr.Cols, Pix: tr.Pix}, tr.Labels, tr.Classes)
	if err != nil {
		return err
	}
	k, err := scn.ParseKind(*model)
	if err != nil {
		return err
	}
	c := scn.Paper(k)
	if *preset == "fast" {
		c = scn.Fast(k)
		c.Float32Gram = *f32
	}
	if *nodes > 0 {
		c.MaxNodes = *nodes
	}
	if *block >= 0 {
		c.BlockSize = *block
	}
	if *bf16 >= 0 {
		c.BF16Gram = *bf16 == 1
	}
	if *diffs >= 0 {
		c.Differences = *diffs == 1
	}
	if *field == 0 {
		c.FieldMin, c.FieldMax = 0, 0
	} else if *field > 0 {
		c.FieldMax = *field
	}
	type stamp struct{ wall, cpu float64 }
	stamps := map[int]stamp{}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	xt := scn.Images{Rows: te.Rows, Cols: te.Cols, Pix: te.Pix}
	name := filepath.Base(filepath.Clean(*data))
	label := k.String()
	if *preset == "fast" {
		label += " fast"
	}
	if *labelFlag != "" {
		label = *labelFlag
	}
	// A random learner's block fit with a ridge takes one pass over the
	// data for all its nodes and adds them only after it: the time to l
	// nodes is not in its progress. Each l is then fitted on its own with
	// L_max = l, which gives the same nodes and the same model as the
	// prefix (with blocks that divide --every).
	if *preset == "fast" && k.Choice == scn.Random && c.Ridge > 0 {
		for l := *every; l <= c.MaxNodes; l += *every {
			cl := c
			cl.MaxNodes = l
			cpu0, t0 := cpuSeconds(), time.Now()
			m, err := cl.Fit(context.Background(), p, nil)
			if err != nil {
				return err
			}
			st := stamp{time.Since(t0).Seconds(), cpuSeconds() - cpu0}
			acc, err := m.Accuracy(xt, te.Labels)
			if err != nil {
				return err
			}
			fmt.Printf("%s,%s,%d,%.1f,%.1f,%.2f,%d\n", name, label, l, st.wall, st.cpu, 100*acc, m.ParamCount())
		}
		pprof.StopCPUProfile()
		return nil
	}
	cpu0, t0 := cpuSeconds(), time.Now()
	path, err := c.FitPath(context.Background(), p, func(s scn.Step) {
		if s.L%*every == 0 {
			stamps[s.L] = stamp{time.Since(t0).Seconds(), cpuSeconds() - cpu0}
		}
	})
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	end := stamp{time.Since(t0).Seconds(), cpuSeconds() - cpu0}
	for l := *every; l <= path.Nodes(); l += *every {
		m, err := path.Prefix(l)
		if err != nil {
			return err
		}
		acc, err := m.Accuracy(xt, te.Labels)
		if err != nil {
			return err
		}
		st := stamps[l]
		if l == path.Nodes() {
			st = end // the final solve included
		}
		fmt.Printf("%s,%s,%d,%.1f,%.1f,%.2f,%d\n", name, label, l, st.wall, st.cpu, 100*acc, m.ParamCount())
	}
	return nil
}
