package serve

// Growing a learning model (scn serve --learn --grow K): up to K
// supervised nodes chosen on the residual of the images learnt since the
// last growth (scn.Model.GrowNodes, GrowUpdate's rule), the statistics of
// every image the model holds (its training images and the journal of
// the images learnt) summed again for the grown model, a batch at a time,
// and the grown model and statistics swapped in whole. See
// docs/serving.md.

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/par"
)

// Images are labelled images given a batch at a time, always in the same
// order: a learning model's training images, those its statistics file
// was summed over, which a growth sums the new nodes' products over
// (LoadLearningImages).
type Images interface {
	// Len returns the number of images.
	Len() int
	// Batches calls f with the images, a batch after another (a
	// classification's batches name their classes in Problem.Classes).
	Batches(ctx context.Context, f func(scn.Problem) error) error
}

// ProblemImages returns the images of p as Images, batch images at a
// time.
func ProblemImages(p scn.Problem, batch int) Images { return problemImages{p, max(1, batch)} }

type problemImages struct {
	p     scn.Problem
	batch int
}

func (pi problemImages) Len() int { return pi.p.X.Len() }

func (pi problemImages) Batches(ctx context.Context, f func(scn.Problem) error) error {
	n, d, m := pi.p.X.Len(), pi.p.X.Dim(), pi.p.M
	for lo := 0; lo < n; lo += pi.batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+pi.batch)
		q := pi.p
		q.X.Pix = pi.p.X.Pix[lo*d : hi*d]
		q.T = pi.p.T[lo*m : hi*m]
		if err := f(q); err != nil {
			return err
		}
	}
	return nil
}

// grower is a learning model's growth state (LearnOptions.Grow > 0).
type grower struct {
	train   Images
	j       *journal
	jname   string // the journal's file name in the versions folder
	mark    int    // journal records at the last growth: the images the next one chooses nodes on start there
	frozen  int    // journal records the solve under way holds (startSolve)
	running bool
	growths int
	last    map[string]any // the last growth's result (or error)
	done    chan struct{}  // closed when the growth under way ends
}

var journalRE = regexp.MustCompile(`^journal-[0-9]{6,9}\.scnj$`)

func journalName(v int) string { return fmt.Sprintf("journal-%06d.scnj", v) }

// growMetrics are the learning's metrics of growths.
type growMetrics struct {
	growths *prometheus.CounterVec
	grown   *prometheus.CounterVec
	nodes   *prometheus.GaugeVec
	took    prometheus.Histogram
}

func newGrowMetrics(reg *prometheus.Registry) *growMetrics {
	g := &growMetrics{
		growths: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_growths_total", Help: "Growths of learning models (--grow), by model and result (grown, failed).",
		}, []string{"model", "result"}),
		grown: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scn_learn_nodes_grown_total", Help: "Supervised nodes added by growths, by model.",
		}, []string{"model"}),
		nodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "scn_learn_nodes", Help: "Hidden nodes of the model a learning model serves.",
		}, []string{"model"}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "scn_learn_grow_seconds", Help: "Time of a growth: the new nodes, the statistics of every image summed again, the swap.",
			Buckets: []float64{.01, .05, .1, .5, 1, 2, 5, 10, 30, 60, 120, 300},
		}),
	}
	reg.MustRegister(g.growths, g.grown, g.nodes, g.took)
	return g
}

// checkGrowOptions refuses what a growth cannot do exactly (EnableLearning).
func checkGrowOptions(o LearnOptions) error {
	if o.Grow < 0 || o.GrowEvery < 0 {
		return fmt.Errorf("serve: grow by %d nodes every %d images: want values >= 0", o.Grow, o.GrowEvery)
	}
	if o.Grow > 0 && o.Forget != 1 {
		return fmt.Errorf("serve: --grow with --forget %v: a growth sums the statistics of every image again with weight 1, and the forgotten weights would be lost; grow without forgetting, or forget without growing", o.Forget)
	}
	if o.Grow == 0 && o.GrowEvery > 0 {
		return errors.New("serve: --grow-every needs --grow K (the nodes a growth adds)")
	}
	return nil
}

// checkGrowModel refuses models a growth cannot grow.
func checkGrowModel(m *scn.Model) error {
	switch {
	case m.Local != nil:
		return errors.New("--grow adds global supervised nodes on the residual; a model of local nodes learns its output weights only (serve it without --grow)")
	case m.Kind.Choice != scn.Supervised:
		return fmt.Errorf("--grow adds supervised nodes (scn, 2dscn); %s draws its nodes at random (serve it without --grow, or refit with more nodes)", m.Kind)
	case m.Direct != nil:
		return errors.New("--grow: a model with direct links cannot grow online yet (serve it without --grow)")
	case m.ClassWeights != nil:
		return errors.New("--grow: a model with class weights cannot grow online (online learning weighs every image 1)")
	}
	return nil
}

// checkTraining checks that train can be the images the statistics file
// stats was summed over: the same count, and of each class.
func checkTraining(ctx context.Context, train Images, stats string) error {
	st, err := scn.OpenStats(stats)
	if err != nil {
		return err
	}
	if train.Len() != st.Images() {
		return fmt.Errorf("the training images are %d, the statistics %s were summed over %d: give the model's training images", train.Len(), stats, st.Images())
	}
	if st.Classes == nil {
		return nil
	}
	counts := map[string]int{}
	seen := 0
	err = train.Batches(ctx, func(p scn.Problem) error {
		if p.Classes == nil {
			return errors.New("the training images have no labels, the statistics are a classification's")
		}
		for _, c := range scn.ArgMax(p.T, p.M) {
			counts[p.Classes[c]]++
		}
		seen += p.X.Len()
		return nil
	})
	if err != nil {
		return err
	}
	if seen != train.Len() {
		return fmt.Errorf("the training images gave %d images, said %d", seen, train.Len())
	}
	for i, c := range st.Classes {
		if counts[c] != st.ClassCounts[i] {
			return fmt.Errorf("the training images have %d of class %q, the statistics %s %d: give the model's training images", counts[c], c, stats, st.ClassCounts[i])
		}
	}
	return nil
}

// journalShapeOf is the journal header of a model's images.
func journalShapeOf(m *scn.Model) journalShape {
	h := journalShape{rows: m.Rows, cols: m.Cols, chans: max(1, m.Channels)}
	if !m.IsClassifier() {
		h.outputs = m.M
	}
	return h
}

// openGrower opens the journal of a learning model loaded from version
// vi (nil: the base files): the one vi names, cut to the records it
// covers, or a new one if vi learnt no image.
func (l *learner) openGrower(train Images, vi *versionInfo, m *scn.Model) error {
	gr := &grower{train: train}
	h := journalShapeOf(m)
	keep := 0
	switch {
	case vi == nil || (vi.Journal == "" && vi.Learnt == 0):
		gr.jname = journalName(l.next)
		for n := l.next; ; n++ {
			gr.jname = journalName(n)
			if _, err := os.Stat(filepath.Join(l.dir, gr.jname)); errors.Is(err, os.ErrNotExist) {
				break
			}
		}
	case vi.Journal == "":
		return fmt.Errorf("version %d learnt %d images without a journal (it was written without --grow): a growth needs every image learnt; roll back to version 0 or serve it without --grow", vi.Version, vi.Learnt)
	case !journalRE.MatchString(vi.Journal):
		return fmt.Errorf("version %d names the journal %q", vi.Version, vi.Journal)
	default:
		gr.jname, keep, gr.mark = vi.Journal, vi.JournalRecords, vi.GrowMark
	}
	j, err := openJournal(filepath.Join(l.dir, gr.jname), h, keep)
	if err != nil {
		return err
	}
	learnt := 0
	if vi != nil {
		learnt = vi.Learnt
	}
	if j.images != learnt || gr.mark > keep {
		j.close()
		return fmt.Errorf("journal %s: %d images in the %d records version %d covers, which learnt %d", gr.jname, j.images, keep, vi.Version, learnt)
	}
	gr.j = j
	l.gr = gr
	return nil
}

// journalRecordOf is the journal record of a pass's images (targets in
// the model's outputs, classes its classes).
func journalRecordOf(p scn.Problem, classes []string) *journalRecord {
	r := &journalRecord{n: p.X.Len(), pix: p.X.Pix}
	if classes == nil {
		r.targets = p.T
		return r
	}
	r.labels = make([]string, r.n)
	for i, c := range scn.ArgMax(p.T, p.M) {
		r.labels[i] = classes[c]
	}
	return r
}

// recordProblem is the problem of a journal record for a model m of the
// given classes (targets in their order): a label no class of them is an
// error.
func recordProblem(r *journalRecord, m *scn.Model, classes []string) (scn.Problem, error) {
	x := scn.Images{Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Pix: r.pix}
	if classes == nil {
		return scn.Problem{X: x, T: r.targets, M: m.M}, nil
	}
	labels := make([]int, r.n)
	for i, c := range r.labels {
		if labels[i] = slices.Index(classes, c); labels[i] < 0 {
			return scn.Problem{}, fmt.Errorf("journal: label %q is no class of the model", c)
		}
	}
	return scn.Classification(x, labels, classes)
}

// inClasses returns p with its targets in the order of classes (p's
// classes among them), for a classification.
func inClasses(p scn.Problem, classes []string) (scn.Problem, error) {
	if p.Classes == nil || slices.Equal(p.Classes, classes) {
		return p, nil
	}
	labels := scn.ArgMax(p.T, p.M)
	for i, c := range labels {
		if labels[i] = slices.Index(classes, p.Classes[c]); labels[i] < 0 {
			return scn.Problem{}, fmt.Errorf("training class %q is no class of the model", p.Classes[c])
		}
	}
	return scn.Classification(p.X, labels, classes)
}

// growReady reports why a growth cannot start now (l.mu held), nil if
// it can.
func (l *learner) growReady() error {
	gr := l.gr
	switch {
	case gr == nil:
		return errorf(http.StatusConflict, "model %s does not grow: start scn serve with --grow K (and the training images)", l.name)
	case gr.running:
		return errorf(http.StatusConflict, "model %s: a growth is under way", l.name)
	case gr.j.records() == gr.mark:
		return errorf(http.StatusConflict, "model %s: no image learnt since the last growth: the new nodes are chosen on the residual of the images learnt since", l.name)
	}
	return nil
}

// startGrow starts a growth in the background (l.mu held, growReady
// nil): the model served now, grown on the residual of the images learnt
// since the last growth; the statistics of all the images summed again.
func (l *learner) startGrow() {
	gr := l.gr
	gr.running, gr.done = true, make(chan struct{})
	m, classes := l.on.Model(), l.on.Classes()
	mark, j0 := gr.mark, gr.j.records()
	before, upTo := gr.j.imagesTo(mark), gr.j.imagesTo(j0)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		start := time.Now()
		var (
			on     *scn.Online
			nm     *scn.Model
			caught int
			err    error
		)
		par.Background(l.lg.o.Workers, func() {
			if l.growHook != nil {
				l.growHook()
			}
			on, nm, err = l.grow(m, classes, mark, j0, before)
			if err == nil {
				caught, err = l.catchUp(on, m, j0)
			}
		})
		l.mu.Lock()
		defer l.mu.Unlock()
		l.endGrow(m, on, nm, j0, upTo-before, caught, err, time.Since(start))
	}()
}

// grow returns the Online of m grown by up to Grow nodes on the residual
// of journal records mark ... j0-1, with the statistics of the training
// images and records 0 ... j0-1 (for the classes given, m's), and the
// grown model solved from them (the bits GrowUpdate gives with the
// training images and records before mark as the old images, the rest
// as the new).
func (l *learner) grow(m *scn.Model, classes []string, mark, j0, before int) (*scn.Online, *scn.Model, error) {
	gr := l.gr
	ctx := context.Background()
	var recent []*journalRecord
	if err := gr.j.read(mark, j0, func(r *journalRecord) error { recent = append(recent, r); return nil }); err != nil {
		return nil, nil, err
	}
	p, err := joined(recent, m, classes)
	if err != nil {
		return nil, nil, err
	}
	g, err := m.GrowNodes(ctx, p, l.lg.o.Grow)
	if err != nil {
		return nil, nil, err
	}
	// The old images' statistics: the training images, then the records
	// before mark; then the recent images' (in memory already).
	outs := m.M
	old, err := g.NewStatsSum(gr.train.Len()+before, outs, classes)
	if err != nil {
		return nil, nil, err
	}
	err = gr.train.Batches(ctx, func(q scn.Problem) error {
		q, err := inClasses(q, classes)
		if err != nil {
			return err
		}
		return old.Add(q)
	})
	if err == nil {
		err = gr.j.read(0, mark, func(r *journalRecord) error {
			q, err := recordProblem(r, m, classes)
			if err != nil {
				return err
			}
			return old.Add(q)
		})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the old images: %w", err)
	}
	so, err := old.Stats()
	if err != nil {
		return nil, nil, err
	}
	sn, err := g.NewStatsSum(p.X.Len(), outs, classes)
	if err != nil {
		return nil, nil, err
	}
	if err := sn.Add(p); err != nil {
		return nil, nil, err
	}
	snn, err := sn.Stats()
	if err != nil {
		return nil, nil, err
	}
	merged, err := so.Merge(snn)
	if err != nil {
		return nil, nil, err
	}
	so, snn = nil, nil
	nm, err := merged.Solve(m.Config.Ridge)
	if err != nil {
		return nil, nil, err
	}
	nm.Meta, nm.Preprocessing = m.Meta, m.Preprocessing
	on, err := scn.NewOnline(nm, merged, 1)
	if err != nil {
		return nil, nil, err
	}
	return on, nm, nil
}

// joined is one problem of journal records' images.
func joined(recs []*journalRecord, m *scn.Model, classes []string) (scn.Problem, error) {
	all := &journalRecord{}
	n := 0
	for _, r := range recs {
		n += r.n
	}
	all.pix = make([]float32, 0, n*m.Dim())
	for _, r := range recs {
		all.n += r.n
		all.pix = append(all.pix, r.pix...)
		all.labels = append(all.labels, r.labels...)
		all.targets = append(all.targets, r.targets...)
	}
	return recordProblem(all, m, classes)
}

// addRecord adds a journal record's images to a grown Online, adding the
// classes it brings first (as the passes added them).
func addRecord(on *scn.Online, m *scn.Model, r *journalRecord) error {
	if on.Classes() != nil {
		var add []string
		for _, c := range r.labels {
			if !slices.Contains(on.Classes(), c) && !slices.Contains(add, c) {
				add = append(add, c)
			}
		}
		if len(add) > 0 {
			if err := on.AddClasses(add...); err != nil {
				return err
			}
		}
	}
	q, err := recordProblem(r, m, on.Classes())
	if err != nil {
		return err
	}
	return on.Add(q)
}

// catchUp adds to the grown Online the images learnt while it grew
// (journal records from j0 on), without l.mu, in rounds until few are
// left (endGrow adds those), and solves them. It returns the records
// added.
func (l *learner) catchUp(on *scn.Online, m *scn.Model, j0 int) (int, error) {
	done := j0
	for range 8 {
		l.mu.Lock()
		to := l.gr.j.records()
		l.mu.Unlock()
		if to-done <= 1 {
			break
		}
		if err := l.gr.j.read(done, to, func(r *journalRecord) error { return addRecord(on, m, r) }); err != nil {
			return 0, err
		}
		done = to
	}
	if _, err := on.Solve(); err != nil {
		return 0, err
	}
	return done - j0, nil
}

// endGrow (l.mu held) swaps the grown model and statistics in, once the
// solve under way ended, with the images learnt since it grew, and writes
// a snapshot of them; or logs why the growth failed (the model stays as
// it was).
func (l *learner) endGrow(m *scn.Model, on *scn.Online, nm *scn.Model, j0, recent, caught int, err error, took time.Duration) {
	gr := l.gr
	defer func() {
		gr.running = false
		close(gr.done)
		l.idle.Broadcast()
	}()
	l.waitIdle() // a rollback waits for the growth (growing)
	if err == nil {
		// The images learnt since the catch-up: a few passes.
		err = gr.j.read(j0+caught, gr.j.records(), func(r *journalRecord) error { return addRecord(on, nm, r) })
	}
	var b []byte
	if err == nil {
		b, err = modelBytes(on.Model())
	}
	if err != nil {
		l.s.log.Error("growing failed: the model stays as it was", "model", l.name, "err", err)
		l.lg.grow.growths.WithLabelValues(l.name, "failed").Inc()
		gr.last = map[string]any{"model": l.name, "error": err.Error()}
		gr.mark = max(gr.mark, min(j0, gr.j.records())) // the next growth waits for GrowEvery more images
		return
	}
	added := nm.Nodes() - m.Nodes()
	l.on = on
	l.learnt0 = gr.j.images - on.Learnt()
	gr.mark = j0
	gr.growths++
	l.cur = b
	l.swap(on.Model(), b, l.servedPath())
	l.solves++
	l.served = hashOf(b)
	if on.Unsolved() > 0 && l.unsolved.IsZero() {
		l.unsolved = time.Now()
	}
	l.mustSnap = true
	l.lg.grow.growths.WithLabelValues(l.name, "grown").Inc()
	l.lg.grow.grown.WithLabelValues(l.name).Add(float64(added))
	l.lg.grow.nodes.WithLabelValues(l.name).Set(float64(nm.Nodes()))
	l.lg.grow.took.Observe(took.Seconds())
	gr.last = map[string]any{"model": l.name, "growth": gr.growths, "added_nodes": added, "nodes": nm.Nodes(),
		"recent_images": recent, "images": on.Images(), "version": l.served, "took_ms": float64(took.Microseconds()) / 1000}
	l.s.log.Info("grown", "model", l.name, "added", added, "nodes", nm.Nodes(), "images", on.Images(), "took", took)
	l.startSolve(true) // the snapshot of the grown model
}

// growInfo adds the growth's fields to a snapshot's information (l.mu
// held): the journal and the records the snapshot's statistics hold.
func (l *learner) growInfo(vi *versionInfo, records int) {
	if l.gr == nil {
		return
	}
	vi.Journal, vi.JournalRecords, vi.GrowMark = l.gr.jname, records, min(l.gr.mark, records)
}

// growRequest answers :grow: it starts a growth, and with ?wait=true
// waits for it and answers its result.
func (s *Server) growRequest(r *http.Request, l *learner) (any, error) {
	wait := false
	if w := r.URL.Query().Get("wait"); w != "" {
		var err error
		if wait, err = strconv.ParseBool(w); err != nil {
			return nil, errorf(http.StatusBadRequest, "wait=%q: want true or false", w)
		}
	}
	l.mu.Lock()
	if err := l.growReady(); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	l.startGrow()
	done, n, from := l.gr.done, l.gr.growths+1, l.on.Model().Nodes()
	recent := l.gr.j.images - l.gr.j.imagesTo(l.gr.mark)
	l.mu.Unlock()
	if !wait {
		return map[string]any{"model": l.name, "growth": n, "started": true, "nodes": from, "grow": l.lg.o.Grow, "recent_images": recent}, nil
	}
	select {
	case <-done:
	case <-r.Context().Done():
		return nil, errorf(499, "request cancelled (the growth goes on): %v", r.Context().Err())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.gr.last["error"]; ok {
		return nil, errorf(http.StatusInternalServerError, "growing failed: %v (the model stays as it was)", e)
	}
	return l.gr.last, nil
}

// maybeGrow starts a growth if GrowEvery images were learnt since the
// last one (l.mu held).
func (l *learner) maybeGrow() {
	gr := l.gr
	if gr == nil || l.lg.o.GrowEvery <= 0 || gr.running {
		return
	}
	if gr.j.images-gr.j.imagesTo(gr.mark) >= l.lg.o.GrowEvery && l.growReady() == nil {
		l.startGrow()
	}
}

// growRollback (l.mu held, no growth under way) starts a new journal for
// a rollback to version v (nil: the base files) as version next: a copy
// of the records v covers. It returns the new journal's name, records
// and growth mark, for the snapshot; the caller swaps it in with
// useJournal once the snapshot is written.
func (l *learner) growRollback(v *versionInfo, next int) (*journal, string, int, error) {
	gr := l.gr
	name := journalName(next)
	path := filepath.Join(l.dir, name)
	keep, mark := 0, 0
	switch {
	case v == nil || (v.Journal == "" && v.Learnt == 0):
	case v.Journal == "":
		return nil, "", 0, fmt.Errorf("version %d learnt %d images without a journal (written without --grow): a growing model cannot go back to it", v.Version, v.Learnt)
	default:
		keep, mark = v.JournalRecords, v.GrowMark
	}
	os.Remove(path)
	if keep > 0 {
		if err := copyJournal(filepath.Join(l.dir, v.Journal), path, keep); err != nil {
			return nil, "", 0, err
		}
	}
	j, err := openJournal(path, gr.j.h, keep)
	if err != nil {
		return nil, "", 0, err
	}
	return j, name, mark, nil
}

// useJournal makes j the journal (l.mu held).
func (l *learner) useJournal(j *journal, name string, mark int) {
	l.gr.j.close()
	l.gr.j, l.gr.jname, l.gr.mark = j, name, mark
}

// pruneJournals removes the journals no snapshot names but the current
// one (l.mu held).
func (l *learner) pruneJournals() {
	if l.gr == nil {
		return
	}
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return
	}
	used := map[string]bool{l.gr.jname: true}
	vs, _ := listVersions(l.dir, false)
	for _, v := range vs {
		vi, err := readVersionInfo(l.dir, v)
		if err != nil {
			return // keep them all when one does not read
		}
		used[vi.Journal] = true
	}
	for _, e := range ents {
		if journalRE.MatchString(e.Name()) && !used[e.Name()] {
			os.Remove(filepath.Join(l.dir, e.Name()))
		}
	}
}

func hashOf(b []byte) string { return hex.EncodeToString(sha(b))[:12] }

// growing reports whether a growth is under way (l.mu held).
func (l *learner) growing() bool { return l.gr != nil && l.gr.running }
