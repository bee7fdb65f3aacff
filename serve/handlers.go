package serve

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scn2d/scn"
)

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
