package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// benchServer serves $SCN_BENCH_MODEL (e.g. an MNIST 2DSCN with L = 1000)
// as "bench", or the digits fixture.
func benchServer(b *testing.B, opts Options) *Server {
	digits, _, _, _ := fixtures(b)
	path := os.Getenv("SCN_BENCH_MODEL")
	if path == "" {
		path = digits
	}
	s := New(opts)
	if err := s.Load("bench", path); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkJSONBatch answers JSON batches of 256 images in process (no
// network): parsing, scoring and the answer.
func BenchmarkJSONBatch(b *testing.B) {
	s := benchServer(b, Options{})
	body := batchJSON(testSet, 0, 256, func(int) bool { return false }, "")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/models/bench:predict", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
	b.ReportMetric(256*float64(b.N)/b.Elapsed().Seconds(), "images/s")
}

// BenchmarkParseBatch is the JSON parsing alone.
func BenchmarkParseBatch(b *testing.B) {
	fixtures(b)
	body := batchJSON(testSet, 0, 256, func(int) bool { return false }, "")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseBatch(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPNG answers single PNG requests in process, one at a time.
func BenchmarkPNG(b *testing.B) {
	s := benchServer(b, Options{})
	body := pngOf(b, testSet.Image(0), 28, 28)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/models/bench:predict", bytes.NewReader(body))
		req.Header.Set("Content-Type", "image/png")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}

// BenchmarkLoadPNG sends single PNG requests from 64 concurrent clients
// over loopback HTTP to a server in the same process (so that a CPU
// profile shows both ends); cmd/scnload does the same against scn serve.
func BenchmarkLoadPNG(b *testing.B) {
	s := benchServer(b, Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	body := pngOf(b, testSet.Image(0), 28, 28)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	url := ts.URL + "/v1/models/bench:predict"
	b.SetParallelism(32) // 64 clients on 2 CPUs
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(url, "image/png", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Error(resp.Status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkParseBatchStdlib decodes the same batch with encoding/json, for
// comparison with BenchmarkParseBatch.
func BenchmarkParseBatchStdlib(b *testing.B) {
	fixtures(b)
	body := batchJSON(testSet, 0, 256, func(int) bool { return false }, "")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var v struct{ Images [][]float32 }
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}
