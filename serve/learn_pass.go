package serve

// The learner's passes: sums of the labelled images queued, solves on
// their own cadence, and the swap of the served model.

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/par"
)

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
			// them), and the requests waiting for that answered: after
			// the solve under way, one more if images were added since.
			l.mu.Lock()
			l.waitIdle()
			l.startSolve(l.since > 0)
			l.mu.Unlock()
			return
		}
		par.Background(l.lg.o.Workers, func() {
			for {
				jobs := l.take()
				if len(jobs) == 0 {
					break
				}
				l.learnPass(jobs)
			}
			l.mu.Lock()
			l.kick()
			if !l.unsolved.IsZero() && !l.solving {
				solveTimer.Reset(time.Until(l.solveAt()))
			}
			l.mu.Unlock()
		})
	}
}

// solveDue reports whether the output weights are to be solved now
// (l.mu held): images the served model lacks were added long enough ago
// (solveAt), or a request waits for them, and no solve is under way.
func (l *learner) solveDue() bool {
	if l.unsolved.IsZero() || l.solving {
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
	if l.gr != nil {
		// The journal first: an image the statistics hold is in it.
		if err := l.gr.j.append(journalRecordOf(p, p.Classes)); err != nil {
			l.s.log.Error("the journal of the images learnt cannot be written: not learnt", "model", l.name, "err", err)
			fail(errorf(http.StatusInternalServerError, "writing the journal of the images learnt (--grow): %v: not learnt", err))
			return
		}
	}
	if err := l.on.Add(p); err != nil {
		if l.gr != nil {
			l.gr.j.undo()
		}
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
		if j.wait || l.lg.o.SolveEvery < 0 { // a solve a pass: the answer names the model that has learnt them
			l.waiting = append(l.waiting, j)
		}
	}
	l.kick()
	l.maybeGrow()
	// The solve that takes these images: the one just started (its
	// frozen sums hold them), or the next after the one under way.
	in := l.solving && l.frozen >= l.on.Learnt()
	after := l.solving && !in
	res := learnResult{Model: l.name, Snapshot: l.next, SinceSnapshot: l.since, Images: l.on.Images(), AddedClasses: added, Solve: l.solves + 1}
	if after && l.snapPending {
		res.Snapshot++
	}
	if after {
		res.Solve++
	}
	if !in {
		res.SolveDueMS = max(0, float64(time.Until(l.solveAt()).Microseconds())/1000)
	}
	for _, j := range jobs {
		if !j.wait && l.lg.o.SolveEvery >= 0 {
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
