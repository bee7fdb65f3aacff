package serve

// The learning routes: :learn, :rollback and /versions requests,
// authorization, rate limits and label checks.

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scn2d/scn"
)

// bucket is a token bucket of images.
type bucket struct {
	mu                  sync.Mutex
	rate, burst, tokens float64
	last                time.Time
}

// take takes n images from the bucket, or says how long to wait for them.
func (b *bucket) take(n int) (time.Duration, bool) {
	if b.rate == 0 {
		return 0, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if float64(n) <= b.tokens {
		b.tokens -= float64(n)
		return 0, true
	}
	return time.Duration((float64(n) - b.tokens) / b.rate * float64(time.Second)), false
}

// learnRoute answers /v1/models/NAME/versions, NAME:learn and
// NAME:rollback (rest is the path after /v1/models/), and reports
// whether the path was one of them.
func (s *Server) learnRoute(w http.ResponseWriter, r *http.Request, rest string) bool {
	name, verb, hasVerb := strings.Cut(rest, ":")
	vname, isVersions := strings.CutSuffix(rest, "/versions")
	switch {
	case isVersions && !strings.Contains(vname, "/"):
		name = vname
	case hasVerb && (verb == "learn" || verb == "rollback" || verb == "grow"):
	default:
		return false
	}
	l := s.learnerOf(name)
	if l == nil {
		switch {
		case s.lookup(name) == nil:
			writeError(w, errorf(http.StatusNotFound, "no model %q (loaded: %s)", name, strings.Join(s.Models(), ", ")))
		case s.learn == nil:
			writeError(w, errorf(http.StatusNotFound, "learning is off: start scn serve with --learn (and --token-file)"))
		default:
			writeError(w, errorf(http.StatusNotFound, "model %s does not learn", name))
		}
		return true
	}
	if isVersions {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: want GET", r.Method, r.URL.Path))
			return true
		}
		writeJSON(w, http.StatusOK, l.versions())
		return true
	}
	start := time.Now()
	var (
		resp any
		err  error
	)
	if r.Method != http.MethodPost {
		err = errorf(http.StatusMethodNotAllowed, "%s %s: want POST", r.Method, r.URL.Path)
	} else if err = s.learn.authorize(w, r); err == nil {
		if verb == "learn" {
			var res *learnResult
			if res, err = s.learnRequest(r, l); err == nil {
				res.TookMS = float64(time.Since(start).Microseconds()) / 1000
				resp = res
			}
		} else if verb == "grow" {
			resp, err = s.growRequest(r, l)
		} else {
			resp, err = s.rollbackRequest(r, l)
		}
	}
	if err != nil {
		s.learn.rejected.WithLabelValues(name, reason(err)).Inc()
		var re *retryError
		if errors.As(err, &re) {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(re.wait.Seconds()))))
		}
		writeError(w, err)
		return true
	}
	writeJSON(w, http.StatusOK, resp)
	return true
}

func (s *Server) learnerOf(name string) *learner {
	if s.learn == nil {
		return nil
	}
	s.learn.mu.Lock()
	defer s.learn.mu.Unlock()
	return s.learn.learners[name]
}

// authorize checks the request's bearer token, in constant time.
func (lg *learning) authorize(w http.ResponseWriter, r *http.Request) error {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="scn"`)
		if h == "" {
			return errorf(http.StatusUnauthorized, "learning and rollback need the server's token: Authorization: Bearer TOKEN (the content of its --token-file)")
		}
		return errorf(http.StatusUnauthorized, "want Authorization: Bearer TOKEN")
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if subtle.ConstantTimeCompare(sum[:], lg.tokenSum[:]) != 1 {
		return errorf(http.StatusForbidden, "wrong token")
	}
	return nil
}

// learnRequest reads a :learn request's images and labels or targets,
// queues them and waits for the pass that learns them.
func (s *Server) learnRequest(r *http.Request, l *learner) (*learnResult, error) {
	body, err := s.readBody(r)
	if err != nil {
		return nil, err
	}
	md := s.lookup(l.name)
	if md == nil {
		return nil, errorf(http.StatusNotFound, "no model %q", l.name)
	}
	j := &learnJob{done: make(chan struct{})}
	if w := r.URL.Query().Get("wait"); w != "" {
		if j.wait, err = strconv.ParseBool(w); err != nil {
			return nil, errorf(http.StatusBadRequest, "wait=%q: want true or false", w)
		}
	}
	m := md.m
	if isJSON(r, body) {
		b, err := parseLearnBatch(body)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "%v", err)
		}
		if j.pix, j.n, _, err = s.checkedBatch(b, md); err != nil {
			return nil, err
		}
		j.labels, j.targets = b.labels, b.targets
	} else {
		if j.pix, err = s.fileImage(body, md); err != nil {
			return nil, err
		}
		j.n = 1
		q := r.URL.Query()
		if q.Has("label") {
			j.labels = []string{q.Get("label")}
		}
		if ts := q["target"]; len(ts) > 0 {
			var t []float64
			for _, s := range ts {
				for _, f := range strings.Split(s, ",") {
					v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
					if err != nil {
						return nil, errorf(http.StatusBadRequest, "target=%q: want numbers (target=0.5,1.2 or one target= per output)", s)
					}
					t = append(t, v)
				}
			}
			j.targets = [][]float64{t}
		}
	}
	if err := checkLabels(j, m, l.lg.o.AllowNewClasses, l.name); err != nil {
		return nil, err
	}
	if wait, ok := l.bucket.take(j.n); !ok {
		return nil, tooMany(wait)
	}
	l.pmu.Lock()
	l.pending = append(l.pending, j)
	l.pmu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	select {
	case <-j.done:
	case <-r.Context().Done():
		// A client gone before a pass took its images: they are not
		// learnt (one gone later has them learnt, unanswered).
		if l.remove(j) {
			return nil, errorf(499, "request cancelled before it was learnt: %v", r.Context().Err())
		}
		<-j.done
	case <-l.stopped:
		select {
		case <-j.done:
		default:
			return nil, errorf(http.StatusServiceUnavailable, "the server is stopping: not learnt")
		}
	}
	if j.err != nil {
		return nil, j.err
	}
	return &j.res, nil
}

// checkLabels checks that a job has a label per image (known classes
// unless allowNew) for a classification, or the model's number of finite
// targets per image for a regression.
func checkLabels(j *learnJob, m *scn.Model, allowNew bool, name string) error {
	if m.IsClassifier() {
		if j.targets != nil {
			return errorf(http.StatusUnprocessableEntity, "model %s is a classification: give labels (class names), not targets", name)
		}
		if j.labels == nil {
			return errorf(http.StatusUnprocessableEntity, "no labels: give \"labels\" (a class name per image), or ?label=CLASS with an image file")
		}
		if len(j.labels) != j.n {
			return errorf(http.StatusUnprocessableEntity, "%d labels for %d images", len(j.labels), j.n)
		}
		for i, c := range j.labels {
			if c == "" {
				return errorf(http.StatusUnprocessableEntity, "label %d is empty", i)
			}
			if !allowNew && !slices.Contains(m.Classes, c) {
				return errorf(http.StatusUnprocessableEntity, "label %d: %q is no class of model %s (classes: %s; scn serve --allow-new-classes lets labels add classes)", i, c, name, strings.Join(m.Classes, ", "))
			}
		}
		return nil
	}
	if j.labels != nil {
		return errorf(http.StatusUnprocessableEntity, "model %s is a regression: give targets, not labels", name)
	}
	if j.targets == nil {
		return errorf(http.StatusUnprocessableEntity, "no targets: give \"targets\" (%d values per image), or ?target=V with an image file", m.M)
	}
	if len(j.targets) != j.n {
		return errorf(http.StatusUnprocessableEntity, "%d targets for %d images", len(j.targets), j.n)
	}
	for i, t := range j.targets {
		if len(t) != m.M {
			return errorf(http.StatusUnprocessableEntity, "image %d: %d target values; model %s has %d outputs", i, len(t), name, m.M)
		}
		for k, v := range t {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errorf(http.StatusUnprocessableEntity, "image %d: target %d is %v: want finite values", i, k, v)
			}
		}
	}
	return nil
}

func tooMany(wait time.Duration) error {
	return &retryError{errorf(http.StatusTooManyRequests, "learning rate limit reached: retry in %.1f s", wait.Seconds()), wait}
}

// retryError is a 429 with the time to wait.
type retryError struct {
	*httpError
	wait time.Duration
}

func (e *retryError) Unwrap() error { return e.httpError }

// rollbackRequest answers :rollback?version=V.
func (s *Server) rollbackRequest(r *http.Request, l *learner) (any, error) {
	q := r.URL.Query().Get("version")
	v, err := strconv.Atoi(q)
	if err != nil || v < 0 {
		return nil, errorf(http.StatusBadRequest, "version=%q: want a version number >= 0 (GET /v1/models/%s/versions lists them)", q, l.name)
	}
	vi, dropped, err := l.rollback(v)
	if err != nil {
		return nil, err
	}
	s.learn.rollbacks.WithLabelValues(l.name).Inc()
	s.log.Info("rolled back", "model", l.name, "to", v, "snapshot", vi.Version, "dropped", dropped)
	return map[string]any{"model": l.name, "restored": v, "snapshot": vi.Version, "version": vi.ModelSHA256[:12],
		"model_sha256": vi.ModelSHA256, "images": vi.Images, "dropped_images": dropped}, nil
}
