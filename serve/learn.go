package serve

// Online learning (scn serve --learn): POST /v1/models/NAME:learn takes
// labelled images and updates the model's output layer from its
// statistics (scn.Online); GET /v1/models/NAME/versions lists the
// snapshots, POST /v1/models/NAME:rollback?version=V restores one. See
// docs/serving.md.

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/par"
)

// LearnOptions turn online learning on (Server.EnableLearning). Zero
// values take the defaults named.
type LearnOptions struct {
	// Token is the bearer token every :learn and :rollback request must
	// present (Authorization: Bearer TOKEN); required (ReadTokenFile).
	Token []byte
	// Forget is the forgetting factor per image, in (0, 1] (default 1:
	// none): each image's weight in the least squares is Forget to the
	// power of the images learnt after it.
	Forget float64
	// SnapshotImages and SnapshotEvery: a snapshot (model and statistics)
	// is written once this many images were learnt since the last one
	// (default 10000), or this long after it if any was (default 1 min).
	SnapshotImages int
	SnapshotEvery  time.Duration
	// Keep is the snapshots kept in a model's versions folder, the newest
	// (default 10; negative: all). Version 0, the files the server
	// started with, is never removed.
	Keep int
	// AllowNewClasses lets a label that is no class of the model add a
	// class (default: refused, 422).
	AllowNewClasses bool
	// Rate bounds the images per second a model learns, over a burst of
	// max(Rate, Options.MaxBatchImages) images (0: no bound): a request
	// beyond it gets 429 with Retry-After.
	Rate float64
	// Batch is the most images one learning pass takes from the requests
	// waiting (default 1024).
	Batch int
	// SolveEvery is how long after the first images the served model
	// lacks the output weights are solved again (default 2 s), or longer:
	// four times the last solve's time at least, so that solves take at
	// most a fifth of the learner's time. A pass only adds its images'
	// sums to the statistics and answers; the solve (conjugate gradient
	// steps over G, as costly as the sums of hundreds of images at large
	// L) takes every image added since. A negative value solves after
	// every pass. A snapshot, a waiting request (?wait=true) and the
	// server's stop solve first.
	SolveEvery time.Duration
	// Workers bounds the goroutines a model's learning runs its products
	// on (par.Limited): its passes and solves, and apart the writing of a
	// snapshot, so that predictions keep the other cores (default
	// GOMAXPROCS - 1, at least 1; negative: GOMAXPROCS).
	Workers int
}

// ReadTokenFile reads a bearer token from a file that only its owner can
// read (a file readable by its group or by others is refused), without
// surrounding white space; it must have 16 bytes at least.
func ReadTokenFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s: not a regular file", path)
	}
	if p := st.Mode().Perm(); p&0o077 != 0 {
		return nil, fmt.Errorf("token file %s: mode %04o lets others read it: chmod 600 %s", path, p, path)
	}
	b := make([]byte, 4097)
	n, _ := f.Read(b)
	if n > 4096 {
		return nil, fmt.Errorf("token file %s: over 4096 bytes", path)
	}
	tok := bytes.TrimSpace(b[:n])
	if len(tok) < 16 {
		return nil, fmt.Errorf("token file %s: a token of %d bytes, want 16 at least (e.g. head -c 32 /dev/urandom | base64)", path, len(tok))
	}
	return tok, nil
}

// learning is a server's online learning: options, token, metrics and
// the models that learn.
type learning struct {
	o        LearnOptions
	tokenSum [32]byte

	mu       sync.Mutex
	learners map[string]*learner

	images    *prometheus.CounterVec
	snapshots *prometheus.CounterVec
	rejected  *prometheus.CounterVec
	rollbacks *prometheus.CounterVec
	version   *prometheus.GaugeVec
	pass      prometheus.Histogram
	solve     prometheus.Histogram
}

// EnableLearning turns online learning on: models loaded with
// LoadLearning then take :learn and :rollback requests that present
// o.Token. It is called once, before LoadLearning.
func (s *Server) EnableLearning(o LearnOptions) error {
	if s.learn != nil {
		return errors.New("serve: learning is enabled already")
	}
	if len(o.Token) == 0 {
		return errors.New("serve: learning needs a bearer token (--token-file)")
	}
	if o.Forget == 0 {
		o.Forget = 1
	}
	if !(o.Forget > 0 && o.Forget <= 1) {
		return fmt.Errorf("serve: forgetting factor %v: want a value in (0, 1]", o.Forget)
	}
	if o.SnapshotImages <= 0 {
		o.SnapshotImages = 10000
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = time.Minute
	}
	if o.Keep == 0 {
		o.Keep = 10
	}
	if o.Batch <= 0 {
		o.Batch = 1024
	}
	if o.SolveEvery == 0 {
		o.SolveEvery = 2 * time.Second
	}
	if o.Workers == 0 {
		o.Workers = max(1, runtime.GOMAXPROCS(0)-1)
	} else if o.Workers < 0 {
		o.Workers = 0 // par: no limit
	}
	if !(o.Rate >= 0) || math.IsInf(o.Rate, 0) {
		return fmt.Errorf("serve: learning rate limit %v: want a finite value >= 0", o.Rate)
	}
	lg := &learning{o: o, tokenSum: sha256.Sum256(o.Token), learners: map[string]*learner{},
		images: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_images_total", Help: "Images learnt online, by model.",
		}, []string{"model"}),
		snapshots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_snapshots_total", Help: "Snapshots of learning models, by model and result (written, failed).",
		}, []string{"model", "result"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_rejections_total", Help: "Learning and rollback requests refused, by model and status code.",
		}, []string{"model", "code"}),
		rollbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_rollbacks_total", Help: "Rollbacks, by model.",
		}, []string{"model"}),
		version: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "scn_learn_snapshot_version", Help: "The newest complete snapshot of a learning model.",
		}, []string{"model"}),
		pass: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "scn_learn_pass_seconds", Help: "Time of a learning pass (the images' sums; a solve due after it is scn_learn_solve_seconds).",
			Buckets: []float64{.001, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10},
		}),
		solve: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "scn_learn_solve_seconds", Help: "Time of a solve of the output weights (and the swap of the model served).",
			Buckets: []float64{.001, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10, 30},
		}),
	}
	if err := s.metrics.reg.Register(lg.images); err != nil {
		return err
	}
	s.metrics.reg.MustRegister(lg.snapshots, lg.rejected, lg.rollbacks, lg.version, lg.pass, lg.solve)
	s.learn = lg
	return nil
}

// learner is one learning model: its Online, versions and queue.
type learner struct {
	s                  *Server
	lg                 *learning
	name, dir          string
	basePath, baseStat string
	baseSHA            string

	mu        sync.Mutex // held while learning a pass, snapshotting, rolling back
	on        *scn.Online
	cur       []byte // the current model's file bytes
	learnt0   int    // images learnt before on started (since the base model)
	version   int    // newest complete snapshot (0: the base files)
	from      int    // the version on started from
	next      int    // the number the next snapshot takes
	since     int    // images learnt since the last snapshot began
	lastSnap  time.Time
	writing   bool
	wg        sync.WaitGroup
	solves    int                  // solves since the server started (the served model is the last one's)
	lastSolve time.Duration        // the time the last solve took
	unsolved  time.Time            // when the first images the served model lacks were added (zero: none)
	waiting   []*learnJob          // requests that wait for the solve of their images (?wait=true)
	served    string               // the served model's version (its SHA-256, 12 digits)
	onSwap    func(version string) // tests: called with each model served (l.mu held)

	pmu     sync.Mutex
	pending []*learnJob
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	bucket  bucket
}

// learnJob is one request's labelled images waiting for a learning pass.
type learnJob struct {
	pix     []float32
	n       int
	wait    bool        // answer once the served model has learnt them
	labels  []string    // classification
	targets [][]float64 // regression
	done    chan struct{}
	err     error
	res     learnResult
}

// learnResult is the answer to :learn.
type learnResult struct {
	Model   string `json:"model"`
	Learnt  int    `json:"learnt"`
	Applied bool   `json:"applied"`           // the served model has learnt them
	Version string `json:"version,omitempty"` // if applied: the served model now
	Solve   int    `json:"solve"`             // the solve that applies them (or applied them)
	// SolveDueMS: if not applied, the time until that solve begins, at
	// most (a pass or a solve under way may delay it).
	SolveDueMS    float64  `json:"solve_due_ms,omitempty"`
	Snapshot      int      `json:"snapshot"` // the snapshot they will be in
	SinceSnapshot int      `json:"images_since_snapshot"`
	Images        int      `json:"images"` // images the statistics hold
	AddedClasses  []string `json:"added_classes,omitempty"`
	TookMS        float64  `json:"took_ms"`
}

// LoadLearning serves the model file at path as name, learning online
// from the statistics file stats (of its training images: scn train
// --stats-out), with its snapshots in the folder versions (made if
// missing). The newest complete snapshot there is loaded if there is one
// (one that does not read is logged and passed over); snapshots of
// another model file are refused.
func (s *Server) LoadLearning(name, path, stats, versions string) error {
	lg := s.learn
	if lg == nil {
		return errors.New("serve: learning is off (EnableLearning first)")
	}
	if !nameRE.MatchString(name) {
		return fmt.Errorf("serve: model name %q: want letters, digits, '.', '_' or '-', at most 128", name)
	}
	base, err := readModel(name, path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(versions, 0o755); err != nil {
		return fmt.Errorf("serve: versions folder: %w", err)
	}
	l := &learner{s: s, lg: lg, name: name, dir: versions, basePath: path, baseStat: stats, baseSHA: base.sha256,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{}), lastSnap: time.Now()}
	l.bucket = bucket{rate: lg.o.Rate, burst: max(lg.o.Rate, float64(s.opts.MaxBatchImages)), last: time.Now()}
	l.bucket.tokens = l.bucket.burst
	vs, err := listVersions(versions, true)
	if err != nil {
		return fmt.Errorf("serve: versions folder: %w", err)
	}
	md, st := base, (*scn.Stats)(nil)
	if len(vs) > 0 {
		l.next = vs[0] + 1
	} else {
		l.next = 1
	}
	for _, v := range vs {
		vi, vmd, vst, err := loadVersion(name, versions, v)
		if err == nil && vi.BaseSHA256 != base.sha256 {
			return fmt.Errorf("serve: %s holds snapshots of another model (version %d learnt from a model of SHA-256 %s; %s is %s): give another versions folder or remove it", versions, v, vi.BaseSHA256, path, base.sha256)
		}
		if err != nil {
			s.log.Warn("snapshot does not read; trying the one before", "model", name, "version", v, "err", err)
			continue
		}
		if vi.Forget != lg.o.Forget {
			s.log.Warn("snapshot learnt with another forgetting factor", "model", name, "version", v, "forget", vi.Forget, "now", lg.o.Forget)
		}
		md, st, l.version, l.learnt0 = vmd, vst, v, vi.Learnt
		break
	}
	if st == nil {
		if st, err = scn.LoadStats(stats); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	l.from = l.version
	if l.on, err = scn.NewOnline(md.m, st, lg.o.Forget); err != nil {
		return fmt.Errorf("serve: %s: %w", name, err)
	}
	if md.m.Config.Ridge == 0 {
		s.log.Warn("the model has no ridge term: each learning pass solves through an eigendecomposition of G (L^3 operations); a model trained with --ridge learns by a few conjugate gradient steps", "model", name, "nodes", md.m.Nodes())
	}
	if l.cur, err = os.ReadFile(md.path); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	l.served = md.sha256[:12]
	md.learner = l
	lg.mu.Lock()
	if _, ok := lg.learners[name]; ok {
		lg.mu.Unlock()
		return fmt.Errorf("serve: model %q learns already", name)
	}
	lg.learners[name] = l
	lg.mu.Unlock()
	lg.version.WithLabelValues(name).Set(float64(l.version))
	s.mu.Lock()
	s.models[name] = md
	s.mu.Unlock()
	s.log.Info("model loaded to learn", "name", name, "path", md.path, "version", l.version, "images", st.N, "forget", lg.o.Forget, "versions", versions)
	go l.run()
	return nil
}

// CloseLearning stops learning: the requests waiting are refused (503),
// a last snapshot of the images learnt since the last one is written,
// and it returns once every snapshot is written.
func (s *Server) CloseLearning() error {
	if s.learn == nil {
		return nil
	}
	s.learn.mu.Lock()
	ls := make([]*learner, 0, len(s.learn.learners))
	for _, l := range s.learn.learners {
		ls = append(ls, l)
	}
	s.learn.mu.Unlock()
	var errs []error
	for _, l := range ls {
		select {
		case <-l.stop:
		default:
			close(l.stop)
		}
		<-l.stopped
		l.wg.Wait()
		l.mu.Lock()
		if l.since > 0 {
			l.startSnapshot()
		}
		l.mu.Unlock()
		l.wg.Wait()
		l.mu.Lock()
		if l.since > 0 {
			errs = append(errs, fmt.Errorf("serve: %s: %d images learnt since the last snapshot could not be saved", l.name, l.since))
		}
		l.mu.Unlock()
	}
	return errors.Join(errs...)
}

// run is the learner's worker: it learns the waiting requests a pass at a
// time (their sums), solves the output weights when a solve is due, and
// writes the snapshots that are due. Its products run on at most
// LearnOptions.Workers goroutines.
func (l *learner) run() {
	defer close(l.stopped)
	tick := time.NewTicker(min(l.lg.o.SnapshotEvery/4+time.Millisecond, time.Second))
	defer tick.Stop()
	solveTimer := time.NewTimer(time.Hour)
	solveTimer.Stop()
	for {
		select {
		case <-l.wake:
		case <-tick.C:
		case <-solveTimer.C:
		case <-l.stop:
			l.pmu.Lock()
			jobs := l.pending
			l.pending = nil
			l.pmu.Unlock()
			for _, j := range jobs {
				j.err = errorf(http.StatusServiceUnavailable, "the server is stopping: not learnt")
				close(j.done)
			}
			// The images added are solved (the last snapshot holds
			// them), and the requests waiting for that answered.
			l.mu.Lock()
			par.Limited(l.lg.o.Workers, func() { l.solveLocked() })
			l.mu.Unlock()
			return
		}
		par.Limited(l.lg.o.Workers, func() {
			for {
				jobs := l.take()
				if len(jobs) == 0 {
					break
				}
				l.learnPass(jobs)
			}
			l.mu.Lock()
			if l.solveDue() {
				l.solveLocked()
			}
			l.maybeSnapshot()
			if !l.unsolved.IsZero() {
				solveTimer.Reset(time.Until(l.solveAt()))
			}
			l.mu.Unlock()
		})
	}
}

// solveDue reports whether the output weights are to be solved now
// (l.mu held): images the served model lacks were added long enough ago
// (solveAt), or a request waits for them.
func (l *learner) solveDue() bool {
	if l.unsolved.IsZero() {
		return false
	}
	return len(l.waiting) > 0 || !time.Now().Before(l.solveAt())
}

// solveShare is the most of a learner's time that solves take on a
// steady stream: the next solve comes solveShare - 1 times the last one's
// time after the first images it takes at the earliest.
const solveShare = 5

// solveAt is when the images the served model lacks are solved (l.mu
// held, some unsolved): SolveEvery after the first of them, or later, so
// that solves take at most 1 / solveShare of the learner's time.
func (l *learner) solveAt() time.Time {
	if l.lg.o.SolveEvery < 0 {
		return l.unsolved
	}
	return l.unsolved.Add(max(l.lg.o.SolveEvery, (solveShare-1)*l.lastSolve))
}

// solveLocked solves the output weights of the images added (if any were
// since the last solve), serves the model solved and answers the requests
// that wait for it (l.mu held). It reports whether the served model holds
// every image added.
func (l *learner) solveLocked() bool {
	if l.on.Unsolved() == 0 {
		l.unsolved = time.Time{}
		return true
	}
	start := time.Now()
	nm, err := l.on.Solve()
	var b []byte
	if err == nil {
		b, err = modelBytes(nm)
	}
	waiting := l.waiting
	l.waiting = nil
	if err != nil {
		l.s.log.Error("solving the output weights failed: the images stay in the statistics, for the next solve", "model", l.name, "images", l.on.Unsolved(), "err", err)
		for _, j := range waiting {
			j.err = errorf(http.StatusInternalServerError, "solving the output weights failed (%v): the images are in the statistics and take effect at the next solve that succeeds", err)
			close(j.done)
		}
		l.unsolved = time.Now() // retried SolveEvery later
		return false
	}
	l.cur = b
	l.swap(nm, b, l.servedPath())
	l.solves++
	l.served = hex.EncodeToString(sha(b))[:12]
	l.unsolved = time.Time{}
	l.lastSolve = time.Since(start)
	l.lg.solve.Observe(l.lastSolve.Seconds())
	for _, j := range waiting {
		j.res.Applied, j.res.Version, j.res.Solve, j.res.SolveDueMS = true, l.served, l.solves, 0
		j.res.Snapshot, j.res.SinceSnapshot, j.res.Images = l.next, l.since, l.on.Images()
		close(j.done)
	}
	return true
}

// take returns the jobs at the head of the queue, up to the batch size
// (one job at least).
func (l *learner) take() []*learnJob {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	k, n := 0, 0
	for k < len(l.pending) && (k == 0 || n+l.pending[k].n <= l.lg.o.Batch) {
		n += l.pending[k].n
		k++
	}
	jobs := slices.Clone(l.pending[:k])
	clear(l.pending[:k])
	l.pending = l.pending[k:]
	return jobs
}

// remove takes j off the queue, if no pass took it yet.
func (l *learner) remove(j *learnJob) bool {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for i, p := range l.pending {
		if p == j {
			l.pending = append(l.pending[:i], l.pending[i+1:]...)
			return true
		}
	}
	return false
}

// learnPass learns the jobs' images in one pass, swaps the model served
// and answers the jobs.
func (l *learner) learnPass(jobs []*learnJob) {
	start := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	fail := func(err error) {
		for _, j := range jobs {
			j.err = err
			close(j.done)
		}
	}
	m := l.on.Model()
	classes := l.on.Classes()
	// Labels the model does not know: added if allowed (a rollback may
	// have removed a class a request was checked against).
	var added []string
	ok := jobs[:0:0]
	for _, j := range jobs {
		var bad string
		for _, c := range j.labels {
			if !slices.Contains(classes, c) && !slices.Contains(added, c) {
				if !l.lg.o.AllowNewClasses {
					bad = c
					break
				}
				added = append(added, c)
			}
		}
		if bad != "" {
			j.err = errorf(http.StatusUnprocessableEntity, "label %q is no class of model %s (classes: %s)", bad, l.name, strings.Join(classes, ", "))
			close(j.done)
			continue
		}
		ok = append(ok, j)
	}
	jobs = ok
	if len(jobs) == 0 {
		return
	}
	if len(added) > 0 {
		if err := l.on.AddClasses(added...); err != nil {
			fail(errorf(http.StatusUnprocessableEntity, "%v", err))
			return
		}
		classes = l.on.Classes()
		m = l.on.Model()
		l.s.log.Info("classes added", "model", l.name, "classes", added)
	}
	n := 0
	for _, j := range jobs {
		n += j.n
	}
	outs := m.M
	pix := make([]float32, 0, n*m.Dim())
	t := make([]float64, n*outs)
	i := 0
	for _, j := range jobs {
		pix = append(pix, j.pix...)
		for k := range j.n {
			if j.labels != nil {
				t[(i+k)*outs+slices.Index(classes, j.labels[k])] = 1
			} else {
				copy(t[(i+k)*outs:(i+k+1)*outs], j.targets[k])
			}
		}
		i += j.n
	}
	p := scn.Problem{X: scn.Images{Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Pix: pix}, T: t, M: outs}
	if m.IsClassifier() {
		p.Classes = classes
	}
	if err := l.on.Add(p); err != nil {
		fail(errorf(http.StatusUnprocessableEntity, "%v", err))
		return
	}
	if l.unsolved.IsZero() {
		l.unsolved = time.Now()
	}
	l.since += n
	l.lg.images.WithLabelValues(l.name).Add(float64(n))
	l.lg.pass.Observe(time.Since(start).Seconds())
	for _, j := range jobs {
		j.res = learnResult{Model: l.name, Learnt: j.n, AddedClasses: added}
		if j.wait {
			l.waiting = append(l.waiting, j)
		}
	}
	if l.solveDue() {
		l.solveLocked()
	}
	in := l.next
	if l.maybeSnapshot() {
		in = l.next - 1
	}
	res := learnResult{Model: l.name, Snapshot: in, SinceSnapshot: l.since, Images: l.on.Images(), AddedClasses: added}
	if l.unsolved.IsZero() {
		res.Applied, res.Version, res.Solve = true, l.served, l.solves
	} else {
		res.Solve = l.solves + 1
		res.SolveDueMS = max(0, float64(time.Until(l.solveAt()).Microseconds())/1000)
	}
	for _, j := range jobs {
		if !j.wait {
			j.res = res
			j.res.Learnt = j.n
			close(j.done)
		}
	}
}

func sha(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// servedPath is the file the served model was last read from or written
// to: the newest snapshot's, or the base file.
func (l *learner) servedPath() string {
	if l.version == 0 {
		return l.basePath
	}
	return filepath.Join(versionDir(l.dir, l.version), snapModel)
}

// swap serves model m (file bytes b) in place of the current one:
// requests that hold the old one finish with it.
func (l *learner) swap(m *scn.Model, b []byte, path string) {
	s := l.s
	s.mu.RLock()
	prev := s.models[l.name]
	s.mu.RUnlock()
	md := &model{name: l.name, path: path, m: m, pred: scn.NewPredictor(m), prep: prev.prep, plain: prev.plain,
		sha256: hex.EncodeToString(sha(b)), size: int64(len(b)), loaded: time.Now().UTC(), changed: make(chan struct{}, 1), learner: l}
	s.mu.Lock()
	s.models[l.name] = md
	s.mu.Unlock()
	if l.onSwap != nil {
		l.onSwap(md.sha256[:12])
	}
}

// maybeSnapshot starts a snapshot if one is due and none is being
// written (l.mu held), and reports whether it did.
func (l *learner) maybeSnapshot() bool {
	if l.since == 0 || l.writing {
		return false
	}
	if l.since < l.lg.o.SnapshotImages && time.Since(l.lastSnap) < l.lg.o.SnapshotEvery {
		return false
	}
	return l.startSnapshot()
}

// startSnapshot solves the images the model served lacks, copies the
// model and statistics (l.mu held) and writes them as the next version in
// the background. It reports whether it did (not if the solve failed:
// the model would not be the statistics'; retried later).
func (l *learner) startSnapshot() bool {
	if !l.solveLocked() {
		return false
	}
	m, st := l.on.Snapshot()
	vi := &versionInfo{Version: l.next, Created: time.Now().UTC(), Images: st.N, Learnt: l.learnt0 + l.on.Learnt(),
		Forget: l.on.Forget(), Classes: m.Classes, ModelSHA256: hex.EncodeToString(sha(l.cur)), BaseSHA256: l.baseSHA, Parent: l.from}
	files := snapshotFiles{model: l.cur, stats: st}
	images := l.since
	l.next++
	l.since = 0
	l.lastSnap = time.Now()
	l.writing = true
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		var err error // written within the learner's workers too
		par.Limited(l.lg.o.Workers, func() { err = writeSnapshot(l.dir, vi, files) })
		l.mu.Lock()
		defer l.mu.Unlock()
		l.writing = false
		if err != nil {
			l.s.log.Error("snapshot failed: its images stay learnt, to be saved in the next one", "model", l.name, "version", vi.Version, "err", err)
			l.lg.snapshots.WithLabelValues(l.name, "failed").Inc()
			l.since += images
			if l.next == vi.Version+1 {
				l.next = vi.Version // the number is free again
			}
			return
		}
		l.version = max(l.version, vi.Version)
		l.lg.snapshots.WithLabelValues(l.name, "written").Inc()
		l.lg.version.WithLabelValues(l.name).Set(float64(l.version))
		l.s.log.Info("snapshot written", "model", l.name, "version", vi.Version, "images", vi.Images, "learnt", vi.Learnt)
		l.prune()
	}()
	return true
}

// prune removes the snapshots beyond the newest Keep (l.mu held): each
// renamed to a temporary name first, so that a crash never leaves half of
// one under a version's name.
func (l *learner) prune() {
	if l.lg.o.Keep < 0 {
		return
	}
	vs, err := listVersions(l.dir, false)
	if err != nil {
		return
	}
	for _, v := range vs[min(len(vs), l.lg.o.Keep):] {
		tmp := filepath.Join(l.dir, fmt.Sprintf(".v%06d-removed", v))
		if os.Rename(versionDir(l.dir, v), tmp) == nil {
			os.RemoveAll(tmp)
		}
	}
}

// rollback restores version v: its model and statistics become the
// current ones, written as a new snapshot (links to v's files) so that a
// restart keeps them; the images learnt since the last snapshot are
// dropped. It returns the new snapshot's information and the images
// dropped.
func (l *learner) rollback(v int) (*versionInfo, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.writing { // let the snapshot being written finish first
		l.mu.Unlock()
		l.wg.Wait()
		l.mu.Lock()
	}
	var (
		md        *model
		st        *scn.Stats
		learnt    int
		statsPath string
		err       error
	)
	if v == 0 {
		if md, err = readModel(l.name, l.basePath); err == nil && md.sha256 != l.baseSHA {
			err = fmt.Errorf("%s changed since the server started (SHA-256 %s, was %s)", l.basePath, md.sha256, l.baseSHA)
		}
		if err == nil {
			st, err = scn.LoadStats(l.baseStat)
		}
		statsPath = l.baseStat
	} else {
		var vi *versionInfo
		if vi, md, st, err = loadVersion(l.name, l.dir, v); err == nil {
			learnt = vi.Learnt
		}
		statsPath = filepath.Join(versionDir(l.dir, v), snapStats)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, 0, errorf(http.StatusNotFound, "no version %d of model %s (GET /v1/models/%s/versions lists them)", v, l.name, l.name)
		}
		return nil, 0, errorf(http.StatusInternalServerError, "version %d of model %s does not read: %v", v, l.name, err)
	}
	on, err := scn.NewOnline(md.m, st, l.lg.o.Forget)
	if err != nil {
		return nil, 0, errorf(http.StatusInternalServerError, "version %d of model %s: %v", v, l.name, err)
	}
	cur, err := os.ReadFile(md.path)
	if err != nil {
		return nil, 0, errorf(http.StatusInternalServerError, "%v", err)
	}
	vi := &versionInfo{Version: l.next, Created: time.Now().UTC(), Images: st.N, Learnt: learnt, Forget: l.lg.o.Forget,
		Classes: md.m.Classes, ModelSHA256: md.sha256, BaseSHA256: l.baseSHA, Parent: v, Restores: &v}
	if err := writeSnapshot(l.dir, vi, snapshotFiles{modelFrom: md.path, statsFrom: statsPath}); err != nil {
		l.lg.snapshots.WithLabelValues(l.name, "failed").Inc()
		return nil, 0, errorf(http.StatusInternalServerError, "writing the snapshot of the rollback: %v (nothing changed)", err)
	}
	l.lg.snapshots.WithLabelValues(l.name, "written").Inc()
	dropped := l.since
	for _, j := range l.waiting {
		j.err = errorf(http.StatusConflict, "model %s was rolled back to version %d before these images took effect: not learnt", l.name, v)
		close(j.done)
	}
	l.waiting, l.unsolved, l.served = nil, time.Time{}, md.sha256[:12]
	l.on, l.cur, l.learnt0, l.from = on, cur, learnt, vi.Version
	l.version, l.next, l.since, l.lastSnap = vi.Version, vi.Version+1, 0, time.Now()
	l.lg.version.WithLabelValues(l.name).Set(float64(l.version))
	l.swap(md.m, cur, filepath.Join(versionDir(l.dir, vi.Version), snapModel))
	l.prune()
	return vi, dropped, nil
}

// versions lists the snapshots, newest first, with version 0 (the base
// files) last.
func (l *learner) versions() map[string]any {
	l.mu.Lock()
	cur, next, since, writing := l.version, l.next, l.since, l.writing
	solves, unsolved, served := l.solves, l.on.Unsolved(), l.served
	l.mu.Unlock()
	vs, _ := listVersions(l.dir, false)
	list := make([]*versionInfo, 0, len(vs)+1)
	for _, v := range vs {
		vi, err := readVersionInfo(l.dir, v)
		if err != nil {
			continue
		}
		vi.Path = versionDir(l.dir, v)
		list = append(list, vi)
	}
	list = append(list, &versionInfo{Version: 0, ModelSHA256: l.baseSHA, BaseSHA256: l.baseSHA, Path: l.basePath})
	return map[string]any{"model": l.name, "current": cur, "next": next, "images_since_snapshot": since,
		"writing": writing, "forget": l.lg.o.Forget, "versions": list,
		"served": served, "solves": solves, "unsolved_images": unsolved, "solve_every_s": l.lg.o.SolveEvery.Seconds()}
}

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
	case hasVerb && (verb == "learn" || verb == "rollback"):
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
