package scn

import (
	"encoding/binary"
	"github.com/scn2d/scn/internal/par"
	"github.com/scn2d/scn/internal/proc"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkOnlineLearn times the passes of online learning (the sums and
// the solve apart) on a saved model and its statistics, with images and
// labels from random data of the model's shape (or from
// SCN_ONLINE_IMAGES, SCN_ONLINE_BATCH images and labels, raw):
//
//	SCN_ONLINE_MODEL=m.scn SCN_ONLINE_STATS=m.scnstats go test -run x -bench OnlineLearn -benchtime 5x .
func BenchmarkOnlineLearn(b *testing.B) {
	mp, sp := os.Getenv("SCN_ONLINE_MODEL"), os.Getenv("SCN_ONLINE_STATS")
	if mp == "" || sp == "" {
		b.Skip("SCN_ONLINE_MODEL and SCN_ONLINE_STATS name a model and its statistics")
	}
	m, err := Load(mp)
	if err != nil {
		b.Fatal(err)
	}
	st, err := LoadStats(sp)
	if err != nil {
		b.Fatal(err)
	}
	o, err := NewOnline(m, st, 1)
	if err != nil {
		b.Fatal(err)
	}
	k := 256
	if v, err := strconv.Atoi(os.Getenv("SCN_ONLINE_BATCH")); err == nil {
		k = v
	}
	x, y, _ := blobs(k, m.Rows, m.Cols, m.M, 3)
	p, err := Classification(x, y, m.Classes)
	if err != nil {
		b.Fatal(err)
	}
	if f := os.Getenv("SCN_ONLINE_IMAGES"); f != "" {
		// A raw file of k x rows x cols float32 values and k int32 labels.
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		d := m.Rows * m.Cols
		for i := range x.Pix {
			x.Pix[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		for i := range y {
			y[i] = int(binary.LittleEndian.Uint32(raw[4*(k*d+i):]))
		}
		if p, err = Classification(x, y, m.Classes); err != nil {
			b.Fatal(err)
		}
	}
	// SCN_ONLINE_WORKERS bounds the loops' goroutines (par.Limited, as
	// scn serve --learn-workers); SCN_ONLINE_SOLVE_EVERY=K solves after
	// every K passes (deferred solves, as scn serve --solve-every).
	workers, _ := strconv.Atoi(os.Getenv("SCN_ONLINE_WORKERS"))
	every := 1
	if v, err := strconv.Atoi(os.Getenv("SCN_ONLINE_SOLVE_EVERY")); err == nil && v > 0 {
		every = v
	}
	b.ResetTimer()
	par.Limited(workers, func() {
		for i := 0; i < b.N; i++ {
			t0, c0 := time.Now(), proc.CPUTime()
			if err := o.Add(p); err != nil {
				b.Fatal(err)
			}
			t1, c1 := time.Now(), proc.CPUTime()
			if (i+1)%every != 0 && i != b.N-1 {
				b.Logf("pass %d: sums %.2f s (CPU %.2f s)", i, t1.Sub(t0).Seconds(), (c1 - c0).Seconds())
				continue
			}
			if _, err := o.Solve(); err != nil {
				b.Fatal(err)
			}
			b.Logf("pass %d: sums %.2f s (CPU %.2f s), solve %.2f s (CPU %.2f s), %d steps", i, t1.Sub(t0).Seconds(), (c1 - c0).Seconds(),
				time.Since(t1).Seconds(), (proc.CPUTime() - c1).Seconds(), o.SolveSteps())
		}
	})
}
