package scn

import (
	"context"
	"fmt"
	"testing"
)

// Benchmarks of the parts of a fit. Run with
//
//	go test -run x -bench . -benchtime 5x
//	go test -tags openblas -run x -bench . -benchtime 5x
//
// They use synthetic 28 x 28 images with 10 classes (blobs), so that no data
// set is needed; the work per node does not depend on the pixel values.

func benchProblem(b *testing.B, n int) Problem {
	x, y, names := blobs(n, 28, 28, 10, 1)
	p, err := Classification(x, y, names)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkScoreBatch times one batch of T_max = 5 candidates (and 45, all
// nine scales at once) on N images: X W^T, the activation and E^T H_c.
func BenchmarkScoreBatch(b *testing.B) {
	for _, n := range []int{5000, 60000} {
		for _, k := range []int{5, 45} {
			b.Run(fmt.Sprintf("N=%d/K=%d", n, k), func(b *testing.B) {
				p := benchProblem(b, n)
				bl := newBuilder(Paper(SCN2D), p)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					bl.DrawBatch(k, 1)
					bl.Correlations()
				}
				flops := 2 * float64(n) * float64(k) * float64(p.X.Dim())
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkFit2DSCN times a whole 2DSCN fit with the paper preset on N = 5000
// images of 28 x 28 to L = 300.
func BenchmarkFit2DSCN(b *testing.B) {
	p := benchProblem(b, 5000)
	c := Paper(SCN2D)
	c.MaxNodes = 300
	for i := 0; i < b.N; i++ {
		m, err := c.Fit(context.Background(), p, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Summary.Duration.Milliseconds())/float64(m.Nodes()), "ms/node")
	}
}

// BenchmarkPredict times predictions of a 2DSCN with L = 1000 on 28 x 28
// images (the model is a 2DRVFL-built network of the same shape: prediction
// does not care how the nodes were chosen).
func BenchmarkPredict(b *testing.B) {
	p := benchProblem(b, 10000)
	c := Paper(RVFL2D)
	c.MaxNodes = 1000
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Predict(p.X); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.X.Len())*float64(b.N)/b.Elapsed().Seconds(), "images/s")
}
