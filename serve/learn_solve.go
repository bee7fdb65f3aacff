package serve

// The learner's solves: on a frozen copy of the sums, in the background,
// while the passes go on adding images to the live sums.

import (
	"encoding/hex"
	"net/http"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/par"
)

// kick starts a solve if one is due (l.mu held): one that writes a
// snapshot when a snapshot is due, else a solve of the images the model
// served lacks when one is due. It reports whether it started one.
func (l *learner) kick() bool {
	if l.snapshotDue() {
		return l.startSolve(true)
	}
	if l.solveDue() {
		return l.startSolve(false)
	}
	return false
}

// startSolve freezes the sums (Online.Freeze: a copy of G, H^T T, T^T T
// and the counts) and solves them in the background, unless a solve or a
// snapshot is under way (l.mu held); passes go on adding images to the
// live sums meanwhile. When the solve ends the model of the frozen sums
// is served, the requests that waited for the images it holds are
// answered, and, with snap (or a snapshot then due), the frozen
// statistics and that model are written as the next snapshot, by the
// same goroutine: at most one copy of G is held besides the live one.
// It reports whether it started.
func (l *learner) startSolve(snap bool) bool {
	if l.solving || l.writing {
		return false
	}
	if l.on.Unsolved() == 0 && !snap {
		l.unsolved = time.Time{}
		return false
	}
	var fz *scn.FrozenSolve
	par.Background(l.lg.o.Workers, func() { fz = l.on.Freeze() })
	waiting := l.waiting // every one's images are in the frozen sums
	l.waiting = nil
	l.solving, l.frozen, l.snapPending = true, fz.Learnt(), snap
	if l.gr != nil {
		l.gr.frozen = l.gr.j.records() // the passes append to the journal under l.mu too
	}
	l.unsolved = time.Time{} // the images added after the freeze set it again
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		start := time.Now()
		var (
			nm  *scn.Model
			err error
		)
		par.Background(l.lg.o.Workers, func() {
			if l.solveHook != nil {
				l.solveHook()
			}
			nm, err = fz.Solve()
		})
		l.mu.Lock()
		if err == nil && fz.Images() > 0 {
			nm, err = l.on.Commit(fz) // the same Online: a rollback waits for the solve
		}
		l.endSolve(fz, nm, err, waiting, snap, time.Since(start))
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}: // the run loop starts the next solve due
		default:
		}
	}()
	return true
}

// endSolve (l.mu held, released while a snapshot is written) serves the
// model of the frozen sums, answers the requests that waited for it and
// writes the snapshot of the frozen statistics if one is asked or due.
func (l *learner) endSolve(fz *scn.FrozenSolve, nm *scn.Model, err error, waiting []*learnJob, snap bool, took time.Duration) {
	defer func() {
		l.solving, l.snapPending = false, false
		l.idle.Broadcast()
	}()
	defer l.on.Release(fz) // its copy of G, for the next solve's (run before the call above)
	var b []byte
	if err == nil && fz.Images() > 0 {
		if b, err = modelBytes(nm); err == nil {
			l.cur = b
		}
	}
	if err != nil {
		l.s.log.Error("solving the output weights failed: the images stay in the statistics, for the next solve", "model", l.name, "images", fz.Images(), "err", err)
		for _, j := range waiting {
			j.err = errorf(http.StatusInternalServerError, "solving the output weights failed (%v): the images are in the statistics and take effect at the next solve that succeeds", err)
			close(j.done)
		}
		l.unsolved = time.Now() // retried SolveEvery later
		return
	}
	if fz.Images() > 0 {
		l.swap(nm, b, l.servedPath())
		l.solves++
		l.served = hex.EncodeToString(sha(b))[:12]
		l.lastSolve = took
		l.lg.solve.Observe(took.Seconds())
	}
	// The images learnt since the freeze are not in the frozen sums.
	after := l.on.Learnt() - fz.Learnt()
	in := l.since - after // images of the frozen sums since the last snapshot
	write := (in > 0 || l.mustSnap) && (snap || l.snapshotDue())
	for _, j := range waiting {
		j.res.Applied, j.res.Version, j.res.Solve, j.res.SolveDueMS = true, l.served, l.solves, 0
		j.res.Snapshot, j.res.SinceSnapshot, j.res.Images = l.next, in, fz.StatImages()
		if write {
			j.res.SinceSnapshot = 0
		}
		close(j.done)
	}
	if !write {
		return
	}
	// The model served is the solve of the frozen statistics (or, with
	// no image to solve, the last solve's, of the same images).
	_, st := fz.Stats()
	vi := &versionInfo{Version: l.next, Created: time.Now().UTC(), Images: st.N, Learnt: l.learnt0 + fz.Learnt(),
		Forget: l.on.Forget(), Classes: st.Classes, ModelSHA256: hex.EncodeToString(sha(l.cur)), BaseSHA256: l.baseSHA, Parent: l.from,
		Nodes: l.on.Model().Nodes()}
	if l.gr != nil {
		l.growInfo(vi, l.gr.frozen)
	}
	l.writeSnapshotLocked(vi, snapshotFiles{model: l.cur, stats: st}, in)
}

// waitIdle waits until no solve or snapshot is under way (l.mu held,
// released while waiting): by the condition, not the WaitGroup, since the
// learner's loop may start another solve meanwhile.
func (l *learner) waitIdle() {
	for l.solving || l.writing {
		l.idle.Wait()
	}
}
