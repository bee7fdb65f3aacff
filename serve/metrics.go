package serve

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// slogPrinter adapts a slog.Logger to promhttp's error log.
type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.l.Error(fmt.Sprint(v...)) }

// statusWriter records the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// route is a request's path as a metric label (a fixed set, whatever the
// path).
func route(p string) string {
	switch {
	case strings.HasPrefix(p, "/v1/models/") && strings.HasSuffix(p, ":predict"):
		return "predict"
	case strings.HasPrefix(p, "/v1/models/") && strings.HasSuffix(p, ":learn"):
		return "learn"
	case strings.HasPrefix(p, "/v1/models/") && strings.HasSuffix(p, ":rollback"):
		return "rollback"
	case p == "/v1/models" || strings.HasPrefix(p, "/v1/models/"):
		return "models"
	case p == "/healthz", p == "/metrics", p == "/":
		return p
	}
	return "other"
}

// instrument counts and times every request, and turns a panic in a
// handler into a 500 answer (the process keeps serving).
func (s *Server) instrument(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		rt := route(r.URL.Path)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic answering a request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeError(sw, errorf(http.StatusInternalServerError, "internal error: %v", p))
				}
			}
			code := sw.status
			if code == 0 {
				code = http.StatusOK
			}
			s.metrics.requests.WithLabelValues(rt, strconv.Itoa(code)).Inc()
			s.answered.Add(1)
			s.metrics.latency.WithLabelValues(rt).Observe(time.Since(start).Seconds())
		}()
		h.ServeHTTP(sw, r)
	})
}

// metrics are the server's Prometheus collectors, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	errors   *prometheus.CounterVec
	images   *prometheus.CounterVec
	batch    prometheus.Histogram
	reloads  *prometheus.CounterVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_http_requests_total", Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "scn_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
		}, []string{"route"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_predict_errors_total", Help: "Prediction requests refused or failed, by model and status code.",
		}, []string{"model", "code"}),
		images: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_images_predicted_total", Help: "Images predicted, by model.",
		}, []string{"model"}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "scn_scoring_pass_images", Help: "Images per scoring pass (requests gathered together).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096},
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_model_reloads_total", Help: "Model reloads, by result: replaced, unchanged, failed (the old model kept).",
		}, []string{"result"}),
	}
	loaded := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "scn_models_loaded", Help: "Models being served.",
	}, func() float64 { return float64(len(s.Models())) })
	m.reg.MustRegister(m.requests, m.latency, m.errors, m.images, m.batch, m.reloads, loaded,
		// The scheduler's metrics (go_sched_latencies_seconds: how long
		// goroutines wait runnable; go_sched_pauses_*: stop-the-world
		// pauses) say whether slow predictions waited for the Go
		// scheduler, e.g. beside a model learning in the background.
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
