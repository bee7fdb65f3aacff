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
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
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

// arrived records that a request is no longer arriving and wakes a pass
// that waits for company.
func (md *model) arrived() {
	md.arriving.Add(-1)
	select {
	case md.changed <- struct{}{}:
	default:
	}
}

// job is one request's images waiting for a scoring pass.
type job struct {
	pix  []float32
	n    int
	out  []float64
	err  error
	done chan struct{}
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

// nameRE is what a model name may be.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ParseModelArg splits a command-line model argument, PATH or NAME=PATH,
// into the model's name (by default the file name without its extension)
// and its path.
func ParseModelArg(arg string) (name, path string, err error) {
	if n, p, ok := strings.Cut(arg, "="); ok && nameRE.MatchString(n) && p != "" {
		return n, p, nil
	}
	path = arg
	base := filepath.Base(path)
	name = strings.TrimSuffix(base, filepath.Ext(base))
	if !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("serve: %s: cannot make a model name of %q (letters, digits, '.', '_', '-'); give NAME=PATH", arg, name)
	}
	return name, path, nil
}

// Load reads the model file at path and serves it as name, replacing a
// model of that name if there is one.
func (s *Server) Load(name, path string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("serve: model name %q: want letters, digits, '.', '_' or '-', at most 128", name)
	}
	md, err := readModel(name, path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.models[name] = md
	s.mu.Unlock()
	s.log.Info("model loaded", "name", name, "path", path, "kind", md.m.Kind.Title(), "nodes", md.m.Nodes(), "sha256", md.sha256)
	return nil
}

// readModel reads and checks a model file, with its checksum.
func readModel(name, path string) (*model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	m, err := scn.Read(io.TeeReader(f, h))
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	if _, err := io.Copy(h, f); err != nil { // scn.Read checks for trailing bytes; hash all the same
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	prep, err := dataset.RecordedPreprocess(m)
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return &model{
		name: name, path: path, m: m, pred: scn.NewPredictor(m), prep: prep, changed: make(chan struct{}, 1),
		plain:  prep.Identity(),
		sha256: hex.EncodeToString(h.Sum(nil)), size: st.Size(), loaded: time.Now().UTC(),
	}, nil
}

// Reload reads every model's file again. A model whose file is unchanged
// (same SHA-256) stays as it is; one whose file no longer reads keeps
// being served as it was, and the error says why (it is also logged).
// Requests in flight finish with the model they started with.
func (s *Server) Reload() error {
	s.mu.RLock()
	old := make([]*model, 0, len(s.models))
	for _, md := range s.models {
		old = append(old, md)
	}
	s.mu.RUnlock()
	sort.Slice(old, func(i, j int) bool { return old[i].name < old[j].name })
	var errs []error
	for _, md := range old {
		if md.learner != nil {
			continue // a learning model changes by learning and rollback only
		}
		nm, err := readModel(md.name, md.path)
		if err != nil {
			s.log.Error("reload failed; keeping the model loaded before", "name", md.name, "path", md.path, "sha256", md.sha256, "err", err)
			s.metrics.reloads.WithLabelValues("failed").Inc()
			errs = append(errs, err)
			continue
		}
		if nm.sha256 == md.sha256 {
			s.metrics.reloads.WithLabelValues("unchanged").Inc()
			continue
		}
		s.mu.Lock()
		if s.models[md.name] == md {
			s.models[md.name] = nm
		}
		s.mu.Unlock()
		s.metrics.reloads.WithLabelValues("replaced").Inc()
		s.log.Info("model reloaded", "name", md.name, "path", md.path, "sha256", nm.sha256, "was", md.sha256)
	}
	return errors.Join(errs...)
}

// Models returns the names of the loaded models, sorted.
func (s *Server) Models() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.models))
	for n := range s.models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ModelBytes returns the total size of the model files being served (as
// loaded: a reload that failed leaves the old file's size).
func (s *Server) ModelBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var n int64
	for _, md := range s.models {
		n += md.size
	}
	return n
}

func (s *Server) lookup(name string) *model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.models[name]
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

// httpError is an error with the status it answers with.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) *httpError {
	return &httpError{status, fmt.Sprintf(format, args...)}
}

// writeJSON answers v with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{Error: "serve: cannot encode the answer: " + err.Error(), Status: status})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

type errorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeError(w http.ResponseWriter, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		he = &httpError{http.StatusInternalServerError, err.Error()}
	}
	if he.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", "GET, POST")
	}
	writeJSON(w, he.status, errorBody{Error: he.msg, Status: he.status})
}

// modelInfo is what GET /v1/models says of a model.
type modelInfo struct {
	Name         string             `json:"name"`
	Version      string             `json:"version"`
	Path         string             `json:"path"`
	SHA256       string             `json:"sha256"`
	SizeBytes    int64              `json:"size_bytes"`
	LoadedAt     time.Time          `json:"loaded_at"`
	Kind         string             `json:"kind"`
	Activation   string             `json:"activation"`
	Rows         int                `json:"rows"`
	Cols         int                `json:"cols"`
	Channels     int                `json:"channels,omitempty"` // input planes of a colour model (absent: grey)
	Outputs      int                `json:"outputs"`
	Task         string             `json:"task"`
	Classes      []string           `json:"classes,omitempty"`
	Nodes        int                `json:"nodes"`
	Parameters   int                `json:"parameters"`
	Preprocess   dataset.Preprocess `json:"preprocess"`
	InputRows    int                `json:"input_rows,omitempty"` // the image size preprocessing wants, 0: any
	TrainSamples int                `json:"train_samples,omitempty"`
	TrainRMSE    float64            `json:"train_rmse,omitempty"`
	calibInfo
}

func (md *model) info() modelInfo {
	m := md.m
	task := "regression"
	if m.IsClassifier() {
		task = "classification"
	}
	in := modelInfo{
		Name: md.name, Version: md.version(), Path: md.path, SHA256: md.sha256, SizeBytes: md.size,
		LoadedAt: md.loaded, Kind: m.Kind.Title(), Activation: m.Activation.String(),
		Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Outputs: m.M, Task: task, Classes: m.Classes,
		Nodes: m.Nodes(), Parameters: m.ParamCount(), Preprocess: md.prep,
		TrainSamples: m.Summary.Samples,
	}
	if !math.IsNaN(m.Summary.TrainRMSE) && !math.IsInf(m.Summary.TrainRMSE, 0) {
		in.TrainRMSE = m.Summary.TrainRMSE
	}
	in.calibInfo = infoCalib(m)
	return in
}

// version names the model file's content: the first 12 hex digits of its
// SHA-256.
func (md *model) version() string { return md.sha256[:12] }

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s /v1/models: want GET", r.Method))
		return
	}
	s.mu.RLock()
	list := make([]modelInfo, 0, len(s.models))
	for _, md := range s.models {
		list = append(list, md.info())
	}
	s.mu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": len(s.Models())})
}

// modelRoute answers /v1/models/{name} and /v1/models/{name}:predict.
func (s *Server) modelRoute(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/v1/models/")
	if s.learnRoute(w, r, rest) {
		return
	}
	name, verb, hasVerb := strings.Cut(rest, ":")
	if hasVerb && verb != "predict" {
		writeError(w, errorf(http.StatusNotFound, "unknown method %q: the path is /v1/models/NAME:predict", verb))
		return
	}
	md := s.lookup(name)
	if md == nil {
		writeError(w, errorf(http.StatusNotFound, "no model %q (loaded: %s)", name, strings.Join(s.Models(), ", ")))
		return
	}
	if !hasVerb {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: want GET", r.Method, r.URL.Path))
			return
		}
		writeJSON(w, http.StatusOK, md.info())
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: want POST with an image or a JSON batch", r.Method, r.URL.Path))
		return
	}
	start := time.Now()
	resp, n, err := s.predict(r, md)
	if err != nil {
		s.metrics.errors.WithLabelValues(md.name, reason(err)).Inc()
		writeError(w, err)
		return
	}
	s.metrics.images.WithLabelValues(md.name).Add(float64(n))
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	writeJSON(w, http.StatusOK, resp)
}

// reason is an error's label in the error counter.
func reason(err error) string {
	var he *httpError
	if errors.As(err, &he) {
		return strconv.Itoa(he.status)
	}
	return "500"
}

type predictResponse struct {
	Model       string       `json:"model"`
	Version     string       `json:"version"`
	TookMS      float64      `json:"took_ms"`
	Predictions []prediction `json:"predictions"`
}

type prediction struct {
	Class   string    `json:"class,omitempty"`
	Index   *int      `json:"index,omitempty"`
	Scores  []score   `json:"scores,omitempty"`
	Outputs []float64 `json:"outputs,omitempty"`
	calibPrediction
}

type score struct {
	Class string  `json:"class"`
	Score float64 `json:"score"`
	// Probability is the class's calibrated probability (calibrated
	// models only).
	Probability *float64 `json:"probability,omitempty"`
}

// predict reads the request's images, scores them and builds the answer;
// it returns the number of images.
func (s *Server) predict(r *http.Request, md *model) (*predictResponse, int, error) {
	body, err := s.readBody(r)
	if err != nil {
		return nil, 0, err
	}
	top := s.opts.TopK
	reject, err := s.rejectBelow(r, md)
	if err != nil {
		return nil, 0, err
	}
	if q := r.URL.Query().Get("top"); q != "" {
		t, err := strconv.Atoi(q)
		if err != nil || t < 0 {
			return nil, 0, errorf(http.StatusBadRequest, "top=%q: want a whole number >= 0", q)
		}
		top = t
	}
	var pix []float32
	var n int
	md.arriving.Add(1)
	arrived := false
	defer func() {
		if !arrived {
			md.arrived()
		}
	}()
	if isJSON(r, body) {
		var t int
		pix, n, t, err = s.batchImages(body, md)
		if t >= 0 {
			top = t
		}
	} else {
		pix, err = s.fileImage(body, md)
		n = 1
	}
	if err != nil {
		return nil, 0, err
	}
	arrived = true
	y, err := s.score(r.Context(), md, pix, n)
	if err != nil {
		return nil, 0, err
	}
	return md.answer(y, n, top, reject), n, nil
}

// readBody reads the request body within the limit.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > s.opts.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "body of %d bytes: the limit is %d", r.ContentLength, s.opts.MaxBodyBytes)
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "reading the body: %v", err)
	}
	if int64(buf.Len()) > s.opts.MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "body over the limit of %d bytes", s.opts.MaxBodyBytes)
	}
	if buf.Len() == 0 {
		return nil, errorf(http.StatusBadRequest, "empty body: send an image file or a JSON batch")
	}
	return buf.Bytes(), nil
}

// isJSON tells a JSON batch from an image file: by the content type
// (application/json, or image/...), else by a leading '{' (no image format
// starts with one).
func isJSON(r *http.Request, body []byte) bool {
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return true
	case strings.HasPrefix(ct, "image/"):
		return false
	}
	t := bytes.TrimLeft(body, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// fileImage decodes an image file and prepares it for the model.
func (s *Server) fileImage(body []byte, md *model) ([]float32, error) {
	rows, cols, err := dataset.ImageSize(bytes.NewReader(body))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "not an image of a known format (PNG, JPEG, GIF, BMP, PGM/PPM): %v", err)
	}
	if rows < 1 || cols < 1 {
		return nil, errorf(http.StatusBadRequest, "image of %d x %d", rows, cols)
	}
	if rows > s.opts.MaxPixels || cols > s.opts.MaxPixels || rows*cols > s.opts.MaxPixels {
		return nil, errorf(http.StatusRequestEntityTooLarge, "image of %d x %d: the limit is %d pixels", rows, cols, s.opts.MaxPixels)
	}
	// The model's planes (its recorded preprocessing): a colour image
	// given to a grey model becomes grey, a grey one given to a colour
	// model three equal planes, as scn predict does.
	s.decode <- struct{}{}
	pic, err := dataset.DecodePicture(bytes.NewReader(body), "image", decodePlanes(md.prep))
	if err == nil {
		if pic, err = md.prep.ApplyPicture(pic); err != nil {
			err = fmt.Errorf("%w (model %s takes %d planes)", err, md.name, md.prep.Channels)
		}
	}
	<-s.decode
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad image: %v", err)
	}
	if pic.Rows != md.m.Rows || pic.Cols != md.m.Cols {
		return nil, errorf(http.StatusUnprocessableEntity, "image is %d x %d after the model's preprocessing (%s); model %s takes %d x %d", pic.Rows, pic.Cols, describePrep(md.prep), md.name, md.m.Rows, md.m.Cols)
	}
	if c := max(pic.Channels, 1); c != md.m.Chans() {
		// A model file whose preprocessing record does not name its
		// channels (one written by the library without a record).
		return nil, errorf(http.StatusUnprocessableEntity, "image has %d channel(s) after the model's preprocessing (%s); model %s takes %d channels", c, describePrep(md.prep), md.name, md.m.Chans())
	}
	return pic.Pix, nil
}

// decodePlanes returns the planes to decode an image file into for a
// model's preprocessing: grey directly when the model is grey (the values
// scn predict gives), else as the file is (ApplyPicture converts).
func decodePlanes(p dataset.Preprocess) int {
	if p.Channels <= 1 || p.MNIST {
		return 1
	}
	return 0
}

func describePrep(p dataset.Preprocess) string {
	var parts []string
	if p.Invert != "" && p.Invert != "no" {
		parts = append(parts, "invert "+p.Invert)
	}
	if p.MNIST {
		parts = append(parts, "MNIST convention")
	}
	if p.ResizeRows > 0 {
		parts = append(parts, fmt.Sprintf("resize to %d x %d", p.ResizeRows, p.ResizeCols))
		if p.Fit != "" && p.Fit != "stretch" {
			parts[len(parts)-1] += ", " + p.Fit
		}
	}
	if p.Channels > 1 {
		parts = append(parts, fmt.Sprintf("%d planes", p.Channels))
	}
	if len(parts) == 0 {
		return "none: images are used as they are"
	}
	return strings.Join(parts, ", ")
}

// batchImages decodes a JSON batch and prepares its images for the model;
// it returns them one after the other, their number, and the batch's
// "top" (-1 if not given).
func (s *Server) batchImages(body []byte, md *model) ([]float32, int, int, error) {
	b, err := parseBatch(body)
	if err != nil {
		return nil, 0, 0, errorf(http.StatusBadRequest, "%v", err)
	}
	return s.checkedBatch(b, md)
}

// checkedBatch checks a decoded batch's images and prepares them for the
// model, as batchImages.
func (s *Server) checkedBatch(b *batch, md *model) ([]float32, int, int, error) {
	n := len(b.shapes)
	if n == 0 {
		return nil, 0, 0, errorf(http.StatusBadRequest, `"images" is empty`)
	}
	if n > s.opts.MaxBatchImages {
		return nil, 0, 0, errorf(http.StatusRequestEntityTooLarge, "%d images in one batch: the limit is %d", n, s.opts.MaxBatchImages)
	}
	m := md.m
	d := m.Dim()
	if c := m.Chans(); c > 1 {
		return colourBatch(b, md, d)
	}
	for i, v := range b.pix {
		if !(v >= 0 && v <= 1) {
			img := sort.Search(n, func(k int) bool { return b.shapes[k].off > i }) - 1
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: value %g: want grey levels in [0, 1] (divide 8-bit values by 255)", img, v)
		}
	}
	direct := b.prepared || md.plain // the values go to the network as they are
	for i, sh := range b.shapes {
		if sh.rows == 0 { // flat: the model's shape
			if sh.cols != d {
				return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: %d values; model %s takes %d x %d = %d (or send rows of values)", i, sh.cols, md.name, m.Rows, m.Cols, d)
			}
			b.shapes[i].rows, b.shapes[i].cols = m.Rows, m.Cols
		} else if direct && (sh.rows != m.Rows || sh.cols != m.Cols) {
			why := "the model records no preprocessing"
			if b.prepared {
				why = `"prepared": true`
			}
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d is %d x %d; model %s takes %d x %d (%s)", i, sh.rows, sh.cols, md.name, m.Rows, m.Cols, why)
		}
		if sh.rows*sh.cols > s.opts.MaxPixels {
			return nil, 0, 0, errorf(http.StatusRequestEntityTooLarge, "image %d of %d x %d: the limit is %d pixels", i, sh.rows, sh.cols, s.opts.MaxPixels)
		}
	}
	if direct {
		return b.pix, n, b.top, nil
	}
	out := make([]float32, 0, n*d)
	for i, sh := range b.shapes {
		pix, rows, cols := md.prep.Apply(b.pix[sh.off:sh.off+sh.rows*sh.cols], sh.rows, sh.cols)
		if rows != m.Rows || cols != m.Cols {
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d is %d x %d after the model's preprocessing (%s); model %s takes %d x %d", i, rows, cols, describePrep(md.prep), md.name, m.Rows, m.Cols)
		}
		out = append(out, pix...)
	}
	return out, n, b.top, nil
}

// colourBatch checks a JSON batch for a model of several channels: each
// image flat, the model's C x rows x cols values (channel planes), used as
// they are (the model's preprocessing must be none, or the batch
// "prepared"); an image sent as rows of values, or of another size, is
// refused with the shape the model takes.
func colourBatch(b *batch, md *model, d int) ([]float32, int, int, error) {
	m, n := md.m, len(b.shapes)
	for i, sh := range b.shapes {
		if sh.rows != 0 || sh.cols != d {
			got := fmt.Sprintf("%d values", sh.cols)
			if sh.rows != 0 {
				got = fmt.Sprintf("%d x %d values (1 channel)", sh.rows, sh.cols)
			}
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: %s; model %s takes images of %d channels: %d x %d x %d = %d values, flat, channel after channel", i, got, md.name, m.Chans(), m.Chans(), m.Rows, m.Cols, d)
		}
	}
	if !b.prepared && !md.plain {
		return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "model %s records preprocessing (%s), which this server applies to grey images only: send the colour values prepared (\"prepared\": true)", md.name, describePrep(md.prep))
	}
	for i, v := range b.pix {
		if !(v >= 0 && v <= 1) {
			return nil, 0, 0, errorf(http.StatusUnprocessableEntity, "image %d: value %g: want levels in [0, 1] (divide 8-bit values by 255)", i/d, v)
		}
	}
	return b.pix, n, b.top, nil
}

// answer turns the outputs of n images into the response.
func (md *model) answer(y []float64, n, top int, reject float64) *predictResponse {
	m := md.m
	resp := &predictResponse{Model: md.name, Version: md.version(), Predictions: make([]prediction, n)}
	for i := range n {
		yi := y[i*m.M : (i+1)*m.M]
		p := &resp.Predictions[i]
		if !m.IsClassifier() {
			p.Outputs = yi
			p.addInterval(m, yi)
			continue
		}
		if m.Calibration != nil {
			p.calibrated(m, yi, top, reject)
			continue
		}
		idx := scn.TopK(yi, max(top, 1))
		best := idx[0]
		p.Class, p.Index = m.Classes[best], &best
		p.Scores = make([]score, 0, min(top, len(idx)))
		for _, k := range idx[:min(top, len(idx))] {
			p.Scores = append(p.Scores, score{Class: m.Classes[k], Score: yi[k]})
		}
	}
	return resp
}

// score predicts n prepared images, gathering them with other requests'
// into one scoring pass when all passes are busy: the request waits for a
// pass slot, and whoever gets one scores the requests waiting then (up to
// Options.Gather images), its own among them unless another pass took it.
func (s *Server) score(ctx context.Context, md *model, pix []float32, n int) ([]float64, error) {
	j := &job{pix: pix, n: n, done: make(chan struct{})}
	md.mu.Lock()
	md.pending = append(md.pending, j)
	md.mu.Unlock()
	md.arrived()
	for {
		select {
		case <-j.done:
			return j.out, j.err
		case s.sem <- struct{}{}:
			k := s.runPending(md)
			<-s.sem
			if k == 0 { // another pass took j: wait for it, without spinning
				<-j.done
				return j.out, j.err
			}
		case <-ctx.Done():
			if md.remove(j) {
				return nil, errorf(499, "request cancelled before it was scored: %v", ctx.Err())
			}
			<-j.done
			return j.out, j.err
		}
	}
}

// remove takes j off the pending list, if it is still there.
func (md *model) remove(j *job) bool {
	md.mu.Lock()
	defer md.mu.Unlock()
	for i, p := range md.pending {
		if p == j {
			md.pending = append(md.pending[:i], md.pending[i+1:]...)
			return true
		}
	}
	return false
}

// runPending scores the jobs waiting at the head of md's list, up to
// Options.Gather images (at least one job), in one pass, and returns the
// number of jobs it scored. While fewer images wait and other requests for
// the model are being decoded, it first waits for them, at most
// Options.GatherWait.
func (s *Server) runPending(md *model) int {
	// Under load, wait a little for the requests being decoded: one pass
	// of many images costs less than many passes of few. The wait sleeps
	// until a request joins the list or stops arriving (md.changed), not
	// in a polling loop: passes are frequent, and each poll costs a timer
	// and a wake-up.
	if s.opts.GatherWait > 0 && md.arriving.Load() > 0 {
		timer := time.NewTimer(s.opts.GatherWait)
		defer timer.Stop()
	wait:
		for md.arriving.Load() > 0 {
			md.mu.Lock()
			images := 0
			for _, j := range md.pending {
				images += j.n
			}
			md.mu.Unlock()
			if images >= s.opts.Gather {
				break
			}
			select {
			case <-md.changed:
			case <-timer.C:
				break wait
			}
		}
	}
	md.mu.Lock()
	k, images := 0, 0
	for k < len(md.pending) && (k == 0 || images+md.pending[k].n <= s.opts.Gather) {
		images += md.pending[k].n
		k++
	}
	jobs := append([]*job(nil), md.pending[:k]...)
	clear(md.pending[:k])
	md.pending = md.pending[k:]
	md.mu.Unlock()
	if k == 0 {
		return 0
	}
	s.metrics.batch.Observe(float64(images))
	pix := jobs[0].pix
	if k > 1 {
		pix = make([]float32, 0, images*md.m.Dim())
		for _, j := range jobs {
			pix = append(pix, j.pix...)
		}
	}
	y, err := md.safePredict(pix)
	off := 0
	for _, j := range jobs {
		if err != nil {
			j.err = err
		} else {
			j.out = y[off*md.m.M : (off+j.n)*md.m.M : (off+j.n)*md.m.M]
		}
		off += j.n
		close(j.done)
	}
	return k
}

// safePredict runs the model, turning a panic into an error.
func (md *model) safePredict(pix []float32) (y []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("serve: model %s panicked: %v", md.name, p)
		}
	}()
	y, err = md.pred.Predict(scn.Images{Rows: md.m.Rows, Cols: md.m.Cols, Channels: md.m.Channels, Pix: pix})
	if err != nil {
		return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	return y, nil
}

//go:embed page.html
var pageFS embed.FS

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		writeError(w, errorf(http.StatusNotFound, "no such path %q (see / for the page, /v1/models for the models)", r.URL.Path))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s /: want GET", r.Method))
		return
	}
	b, err := pageFS.ReadFile("page.html")
	if err != nil {
		writeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data: blob:")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

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
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
