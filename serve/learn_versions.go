package serve

// The learner's versions: snapshots (model and statistics) written
// atomically, pruning, rollback and the versions listing.

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/par"
)

// snapshotDue reports whether a snapshot is due (l.mu held): images were
// learnt since the last one, none is being written, and
// SnapshotImages of them or SnapshotEvery passed.
func (l *learner) snapshotDue() bool {
	if l.since == 0 || l.writing {
		return false
	}
	return l.since >= l.lg.o.SnapshotImages || time.Since(l.lastSnap) >= l.lg.o.SnapshotEvery
}

// writeSnapshotLocked writes files (a model and the statistics of the same
// images: a frozen solve's) as version vi, images of them learnt since the
// last snapshot (l.mu held, released while writing).
func (l *learner) writeSnapshotLocked(vi *versionInfo, files snapshotFiles, images int) {
	l.next = vi.Version + 1
	l.since -= images
	l.lastSnap = time.Now()
	l.writing = true
	mustSnap := l.mustSnap
	l.mustSnap = false
	if l.gr != nil {
		files.sync = l.gr.j.sync
	}
	l.mu.Unlock()
	var err error // written within the learner's workers too
	par.Background(l.lg.o.Workers, func() { err = writeSnapshot(l.dir, vi, files) })
	l.mu.Lock()
	l.writing = false
	if err != nil {
		l.s.log.Error("snapshot failed: its images stay learnt, to be saved in the next one", "model", l.name, "version", vi.Version, "err", err)
		l.lg.snapshots.WithLabelValues(l.name, "failed").Inc()
		l.since += images
		l.mustSnap = l.mustSnap || mustSnap
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
	l.pruneJournals()
}

// rollback restores version v: its model and statistics become the
// current ones, written as a new snapshot (links to v's files) so that a
// restart keeps them; the images learnt since the last snapshot are
// dropped. It returns the new snapshot's information and the images
// dropped.
func (l *learner) rollback(v int) (*versionInfo, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waitIdle()      // let the solve and snapshot under way finish first
	for l.growing() { // and a growth
		l.idle.Wait()
		l.waitIdle()
	}
	var (
		loaded    *versionInfo
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
			learnt, loaded = vi.Learnt, vi
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
		Classes: md.m.Classes, ModelSHA256: md.sha256, BaseSHA256: l.baseSHA, Parent: v, Restores: &v, Nodes: md.m.Nodes()}
	var (
		j     *journal
		jname string
		mark  int
	)
	if l.gr != nil {
		// A journal of the images the version holds, for the growths
		// after: a copy of its records.
		if j, jname, mark, err = l.growRollback(loaded, vi.Version); err != nil {
			return nil, 0, errorf(http.StatusConflict, "model %s cannot go back to version %d: %v", l.name, v, err)
		}
		vi.Journal, vi.JournalRecords, vi.GrowMark = jname, j.records(), mark
	}
	if err := writeSnapshot(l.dir, vi, snapshotFiles{modelFrom: md.path, statsFrom: statsPath}); err != nil {
		l.lg.snapshots.WithLabelValues(l.name, "failed").Inc()
		if j != nil {
			j.close()
			os.Remove(j.path)
		}
		return nil, 0, errorf(http.StatusInternalServerError, "writing the snapshot of the rollback: %v (nothing changed)", err)
	}
	if j != nil {
		l.useJournal(j, jname, mark)
		l.lg.grow.nodes.WithLabelValues(l.name).Set(float64(md.m.Nodes()))
	}
	l.lg.snapshots.WithLabelValues(l.name, "written").Inc()
	dropped := l.since
	for _, j := range l.waiting {
		j.err = errorf(http.StatusConflict, "model %s was rolled back to version %d before these images took effect: not learnt", l.name, v)
		close(j.done)
	}
	l.waiting, l.unsolved, l.served, l.mustSnap = nil, time.Time{}, md.sha256[:12], false
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
	solves, unsolved, served, solving := l.solves, l.on.Unsolved(), l.served, l.solving
	nodes := l.on.Model().Nodes()
	var grow map[string]any
	if gr := l.gr; gr != nil {
		grow = map[string]any{"grow": l.lg.o.Grow, "grow_every": l.lg.o.GrowEvery, "growths": gr.growths, "growing": gr.running,
			"journal": gr.jname, "journal_records": gr.j.records(), "journal_images": gr.j.images,
			"images_since_growth": gr.j.images - gr.j.imagesTo(gr.mark), "last": gr.last}
	}
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
	list = append(list, &versionInfo{Version: 0, ModelSHA256: l.baseSHA, BaseSHA256: l.baseSHA, Path: l.basePath, Nodes: l.baseNodes})
	return map[string]any{"model": l.name, "current": cur, "next": next, "images_since_snapshot": since, "nodes": nodes, "growth": grow,
		"writing": writing, "forget": l.lg.o.Forget, "versions": list,
		"served": served, "solves": solves, "unsolved_images": unsolved, "solve_every_s": l.lg.o.SolveEvery.Seconds(), "solving": solving}
}
