package serve

// Online learning (scn serve --learn): POST /v1/models/NAME:learn takes
// labelled images and updates the model's output layer from its
// statistics (scn.Online); GET /v1/models/NAME/versions lists the
// snapshots, POST /v1/models/NAME:rollback?version=V restores one. See
// docs/serving.md.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/scn2d/scn"
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
	// (default 100000), or this long after it if any was (default 1 min).
	// A snapshot of a large model writes its statistics (300 MB at L =
	// 5000): every 10000 images, at 1000 images/s, they made the
	// predictions' p99 2.0-2.3 x that of a server not learning, against
	// 1.7-1.8 x at one a minute (docs/serving.md).
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
	// on: its passes and solves, and apart the writing of a snapshot, so
	// that predictions keep the other cores (default GOMAXPROCS - 1, at
	// least 1; negative: GOMAXPROCS). They run in the background
	// (par.Background: on Linux, threads ten nice steps below the
	// server's), so that a prediction's thread takes a core from them at
	// once rather than at the Go scheduler's next preemption; for that the
	// server needs Ps beyond the ones learning holds (a pass and a solve
	// can each hold Workers): scn serve --learn raises GOMAXPROCS so.
	Workers int
	// Grow, if > 0, lets the models loaded with LoadLearningImages grow
	// by up to Grow supervised nodes (POST NAME:grow, or every GrowEvery
	// images learnt if > 0): chosen on the residual of the images learnt
	// since the last growth, with the statistics of every image summed
	// again (learn_grow.go). Every image learnt is then kept in a journal
	// in the model's versions folder. Not with Forget < 1.
	Grow, GrowEvery int
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
	grow      *growMetrics
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
		o.SnapshotImages = 100000
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
	if err := checkGrowOptions(o); err != nil {
		return err
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
	lg.grow = newGrowMetrics(s.metrics.reg)
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

	// solving: a solve of frozen sums (startSolve) is under way, of the
	// images learnt up to frozen (Online.Learnt), writing a snapshot after
	// if snapPending.
	solving     bool
	frozen      int
	snapPending bool
	idle        *sync.Cond // on mu: broadcast when a solve (and its snapshot) ends
	solveHook   func()     // tests: called by a solve's goroutine (in the background) before it solves

	gr        *grower // growth (LearnOptions.Grow; nil: none)
	mustSnap  bool    // a growth's model awaits its snapshot
	growHook  func()  // tests: called by a growth's goroutine before it grows
	baseNodes int     // the base model's hidden nodes

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
	return s.LoadLearningImages(name, path, stats, versions, nil)
}

// LoadLearningImages is LoadLearning with the model's training images,
// those its statistics file was summed over (checked: their count and
// class counts), for growths (LearnOptions.Grow > 0: train is then
// required, and the model must be a supervised one of global nodes).
// The images learnt are kept in a journal in the versions folder.
func (s *Server) LoadLearningImages(name, path, stats, versions string, train Images) error {
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
	l.idle = sync.NewCond(&l.mu)
	l.bucket = bucket{rate: lg.o.Rate, burst: max(lg.o.Rate, float64(s.opts.MaxBatchImages)), last: time.Now()}
	l.bucket.tokens = l.bucket.burst
	vs, err := listVersions(versions, true)
	if err != nil {
		return fmt.Errorf("serve: versions folder: %w", err)
	}
	if lg.o.Grow > 0 {
		if train == nil {
			return fmt.Errorf("serve: %s: --grow needs the model's training images (the --old-* flags), those its statistics were summed over", name)
		}
		if err := checkGrowModel(base.m); err != nil {
			return fmt.Errorf("serve: %s: %w", name, err)
		}
		if err := checkTraining(context.Background(), train, stats); err != nil {
			return fmt.Errorf("serve: %s: %w", name, err)
		}
	}
	md, st := base, (*scn.Stats)(nil)
	var loaded *versionInfo
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
		md, st, l.version, l.learnt0, loaded = vmd, vst, v, vi.Learnt, vi
		break
	}
	if st == nil {
		if st, err = scn.LoadStats(stats); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	l.from = l.version
	l.baseNodes = base.m.Nodes()
	if lg.o.Grow > 0 {
		if err := l.openGrower(train, loaded, md.m); err != nil {
			return fmt.Errorf("serve: %s: %w", name, err)
		}
		lg.grow.nodes.WithLabelValues(name).Set(float64(md.m.Nodes()))
	}
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
		if l.since > 0 || l.mustSnap {
			l.startSolve(true)
		}
		l.mu.Unlock()
		l.wg.Wait()
		l.mu.Lock()
		if l.since > 0 || l.mustSnap {
			errs = append(errs, fmt.Errorf("serve: %s: %d images learnt since the last snapshot could not be saved", l.name, l.since))
		}
		l.mu.Unlock()
	}
	return errors.Join(errs...)
}
