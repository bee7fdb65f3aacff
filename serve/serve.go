// Package serve answers predictions of saved scn models over HTTP: image
// files or JSON batches of pixel arrays in, classes and scores (or
// regression outputs) out, with the model list, a health check, Prometheus
// metrics and a small page to draw a digit or drop an image on. It is what
// "scn serve" runs; New gives an http.Handler for tests and other programs.
//
// Endpoints:
//
//	POST /v1/models/{name}:predict  an image file (PNG, JPEG, GIF, BMP, PGM/PPM) or a JSON batch
//	GET  /v1/models                 the loaded models: kind, shapes, classes, nodes, SHA-256
//	GET  /v1/models/{name}          one of them
//	GET  /healthz                   {"status": "ok", ...}
//	GET  /metrics                   Prometheus text format
//	GET  /                          the page
//
// An image is prepared with the preprocessing its model records, as "scn
// predict" does. A JSON batch is
//
//	{"images": [IMAGE, ...], "top": 3, "prepared": false}
//
// where IMAGE is an array of rows of grey levels in [0, 1] (any size the
// preprocessing brings to the model's), or a flat array of rows x cols
// values in the model's own shape; "prepared": true says the values are
// already what the network sees and skips the preprocessing. Every answer
// is JSON; errors are {"error": "...", "status": 4xx}.
package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// Options bound what a Server accepts and how it works. Zero values take
// the defaults named.
type Options struct {
	// MaxBodyBytes bounds a request body (default 4 MiB); a larger one gets
	// 413.
	MaxBodyBytes int64
	// MaxPixels bounds the size an image file's header claims (default
	// 4 Mi pixels, 2048 x 2048), checked before decoding; a larger one gets
	// 413.
	MaxPixels int
	// MaxBatchImages bounds the images of one JSON batch (default 4096).
	MaxBatchImages int
	// MaxConcurrent bounds the scoring passes running at once (default
	// GOMAXPROCS); requests beyond it wait, and are gathered into the next
	// passes. Image decodings running at once are bounded by GOMAXPROCS.
	MaxConcurrent int
	// Gather is the most images one scoring pass gathers from the requests
	// waiting for the same model (default 64); 1 scores every request on
	// its own. Requests are only gathered while all passes are busy, so a
	// lone request never waits for company.
	Gather int
	// GatherWait is how long a scoring pass may wait for requests that are
	// being decoded when fewer than Gather images wait (default 1 ms;
	// negative: never). A pass never waits when no other request is being
	// decoded.
	GatherWait time.Duration
	// TopK is the number of scores a classification answers with when the
	// request does not say (default 5).
	TopK int
	// ReadTimeout, WriteTimeout and IdleTimeout are the http.Server's
	// (defaults 30 s, 30 s, 120 s); ShutdownTimeout bounds how long Serve
	// waits for requests in flight once told to stop (default 30 s).
	ReadTimeout, WriteTimeout, IdleTimeout, ShutdownTimeout time.Duration
	// Logger receives load, reload and error messages (default: discard).
	Logger *slog.Logger
	// RejectBelow in (0, 1] answers "unsure" for an image whose top
	// calibrated probability is below it (models with a calibration map
	// only; a request's ?reject_below=P overrides it). 0: never.
	RejectBelow float64
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = 1 << 22
	}
	if o.MaxBatchImages <= 0 {
		o.MaxBatchImages = 4096
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = runtime.GOMAXPROCS(0)
	}
	if o.Gather <= 0 {
		o.Gather = 64
	}
	if o.TopK <= 0 {
		o.TopK = 5
	}
	if o.GatherWait == 0 {
		o.GatherWait = time.Millisecond
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 120 * time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Server holds the loaded models and answers HTTP requests for them; it is
// an http.Handler. Models can be added and reloaded while it serves.
type Server struct {
	opts     Options
	log      *slog.Logger
	mu       sync.RWMutex
	models   map[string]*model
	sem      chan struct{} // scoring passes running
	decode   chan struct{} // image decodings running
	metrics  *metrics
	handler  http.Handler
	answered atomic.Int64 // requests answered
	learn    *learning    // online learning (learn.go), nil unless enabled
}

// model is one loaded model file. It is replaced, never changed, on reload;
// requests that hold the old one finish with it.
type model struct {
	name, path string
	m          *scn.Model
	pred       *scn.Predictor
	prep       dataset.Preprocess
	plain      bool // the preprocessing leaves images as they are
	sha256     string
	size       int64
	loaded     time.Time
	learner    *learner // the model learns online (learn.go), nil if not

	mu       sync.Mutex
	pending  []*job       // requests waiting to be scored
	arriving atomic.Int64 // requests read, not yet waiting
	// changed is signalled (without blocking) whenever a request stops
	// arriving, by joining pending or by failing: a pass waiting for
	// company (runPending) wakes on it instead of polling.
	changed chan struct{}
}

// New returns a server with no models; Load adds them.
func New(opts Options) *Server {
	o := opts.withDefaults()
	s := &Server{
		opts:   o,
		log:    o.Logger,
		models: map[string]*model{},
		sem:    make(chan struct{}, o.MaxConcurrent),
		decode: make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
	s.metrics = newMetrics(s)
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models/", s.modelRoute)
	mux.HandleFunc("/v1/models", s.listModels)
	mux.HandleFunc("/healthz", s.health)
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s.log}}))
	mux.HandleFunc("/", s.page)
	s.handler = s.instrument(mux)
	return s
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// HTTPServer returns an http.Server for s with the options' timeouts.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: min(s.opts.ReadTimeout, 10*time.Second),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Serve answers requests on ln until ctx is done, then stops: it answers
// the connections already waiting in the listener's queue (until none has
// come for 20 ms, at most one second), closes the listener, and waits for
// the requests in flight (at most Options.ShutdownTimeout), with keep-alive
// off so that each connection closes after its answer.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	dl := &drainListener{Listener: ln, stopping: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(dl) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: answering the requests accepted")
	hs.SetKeepAlivesEnabled(false)
	dl.stop()
	<-errc // the queue is drained
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	s.log.Info("stopped", "answered", s.answered.Load())
	if err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// drainListener is a listener that, once stopped, still accepts the
// connections that come within a quiet spell of each other (those the
// kernel queued before the server stopped, which closing the listener would
// reset), then reports itself closed.
type drainListener struct {
	net.Listener
	stopping chan struct{}
	since    time.Time
}

const (
	drainQuiet = 20 * time.Millisecond
	drainMax   = time.Second
)

func (l *drainListener) stop() {
	l.since = time.Now()
	close(l.stopping)
	l.deadline()
}

// deadline wakes a blocked Accept after the quiet spell.
func (l *drainListener) deadline() {
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		d.SetDeadline(time.Now().Add(drainQuiet))
	}
}

func (l *drainListener) Accept() (net.Conn, error) {
	select {
	case <-l.stopping:
		if time.Since(l.since) > drainMax {
			return nil, net.ErrClosed
		}
	default:
	}
	c, err := l.Listener.Accept()
	select {
	case <-l.stopping:
		if err != nil {
			return nil, net.ErrClosed
		}
		l.deadline()
	default:
	}
	return c, err
}
