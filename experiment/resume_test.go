package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// cancelAfter cancels ctx once the log has seen n fit lines.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if strings.Count(c.buf.String(), " trial ") >= c.n {
		c.cancel()
	}
	return len(p), nil
}

// TestResumedRunEqualsUninterrupted: a run cancelled after three fits and
// run again with the same cache gives the outcomes of a run that was never
// interrupted (fit times aside), reading the finished fits from disk.
func TestResumedRunEqualsUninterrupted(t *testing.T) {
	spec := func(cache string, log *cancelAfter) trialSpec {
		sp := trialSpec{
			Kinds: scn.Kinds(), Trials: 3, Seed: 5, MaxNodes: 20, Checkpoints: []int{5, 10},
			Label: "resume test", Cache: cache, DataID: "blobs",
			Data: func(tr int) (*dataset.Set, *dataset.Set, error) {
				return toySet(90, uint64(tr)), toySet(60, uint64(100+tr)), nil
			},
		}
		if log != nil {
			sp.Log = log
		}
		return sp
	}
	whole, err := runTrials(context.Background(), spec("", nil))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelAfter{n: 3, cancel: cancel}
	if _, err := runTrials(ctx, spec(cache, stop)); err == nil {
		t.Fatal("the interrupted run did not stop")
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*", "*.json"))
	if len(files) != 3 {
		t.Fatalf("%d records after three fits, want 3", len(files))
	}
	log := &cancelAfter{n: 1 << 30, cancel: func() {}}
	resumed, err := runTrials(context.Background(), spec(cache, log))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.buf.String(), "3 of 12 fits read from the records") {
		t.Errorf("the resumed run did not say what it reused:\n%s", log.buf.String())
	}
	if normOutcomes(whole) != normOutcomes(resumed) {
		t.Error("the resumed run's outcomes differ from the uninterrupted run's")
	}
	// Another protocol (here another L) does not take the records.
	sp := spec(cache, &cancelAfter{n: 1 << 30, cancel: func() {}})
	sp.MaxNodes = 15
	if _, err := runTrials(context.Background(), sp); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sp.Log.(*cancelAfter).buf.String(), "read from the records") {
		t.Error("records of another protocol were reused")
	}
	// A corrupt record is an error naming the file.
	os.WriteFile(files[0], []byte("{not json"), 0o644)
	if _, err := runTrials(context.Background(), spec(cache, nil)); err == nil || !strings.Contains(err.Error(), files[0]) {
		t.Errorf("corrupt record: %v", err)
	}
}

// normOutcomes is the outcomes as JSON, fit times aside.
func normOutcomes(outs [][]trialOutcome) string {
	for _, ks := range outs {
		for i := range ks {
			ks[i].FitSeconds = 0
		}
	}
	b, _ := json.Marshal(outs)
	return string(b)
}

// TestJobsDoNotChangeOutcomes: trials fitted three at a time give the
// outcomes of trials fitted one by one (fit times aside), in the same
// places, and write the same records.
func TestJobsDoNotChangeOutcomes(t *testing.T) {
	spec := func(jobs int, cache string) trialSpec {
		return trialSpec{
			Kinds: scn.Kinds(), Trials: 5, Seed: 9, MaxNodes: 15, Checkpoints: []int{5},
			Label: "jobs test", Jobs: jobs, Cache: cache, DataID: "blobs", Robust: true,
			Data: func(tr int) (*dataset.Set, *dataset.Set, error) {
				return toySet(80, uint64(tr)), toySet(40, uint64(200+tr)), nil
			},
		}
	}
	one, err := runTrials(context.Background(), spec(1, ""))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	three, err := runTrials(context.Background(), spec(3, cache))
	if err != nil {
		t.Fatal(err)
	}
	if normOutcomes(one) != normOutcomes(three) {
		t.Error("trials fitted three at a time differ from trials fitted one by one")
	}
	for ki, ks := range three {
		for tr, o := range ks {
			if o.Trial != tr || o.Kind != scn.Kinds()[ki] {
				t.Fatalf("out[%d][%d] holds trial %d of %s", ki, tr, o.Trial, o.Kind)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*", "*.json"))
	if want := 5 * len(scn.Kinds()); len(files) != want {
		t.Errorf("%d records, want %d", len(files), want)
	}
	// A failing trial stops the run with its error.
	sp := spec(2, "")
	sp.Data = func(tr int) (*dataset.Set, *dataset.Set, error) {
		if tr == 3 {
			return nil, nil, os.ErrNotExist
		}
		return toySet(80, uint64(tr)), toySet(40, uint64(200+tr)), nil
	}
	if _, err := runTrials(context.Background(), sp); err == nil || !strings.Contains(err.Error(), "not exist") {
		t.Errorf("a failing trial: %v", err)
	}
}

// TestFingerprintIgnoresZeroFields: a configuration field at its zero value
// leaves the fingerprint as it was without the field (so adding a field to
// scn.Config does not orphan an earlier run's records), while a field set to
// anything else, or a changed one, makes a different fingerprint.
func TestFingerprintIgnoresZeroFields(t *testing.T) {
	sp := trialSpec{Label: "E1", MaxNodes: 100, Checkpoints: []int{10, 100}, DataID: "data"}
	base := scn.Paper(scn.SCN2D)
	fp := sp.fingerprint(base, 3)
	if strings.Contains(fp, "Layers") || strings.Contains(fp, "Robust") {
		t.Errorf("zero fields are in the fingerprint: %s", fp)
	}
	if again := sp.fingerprint(base, 3); again != fp {
		t.Errorf("fingerprint not stable:\n%s\n%s", fp, again)
	}
	changed := []func(*scn.Config){
		func(c *scn.Config) { c.Layers = []int{10} },
		func(c *scn.Config) { c.Robust = true },
		func(c *scn.Config) { c.Seed++ },
		func(c *scn.Config) { c.Scales = append([]float64{0}, c.Scales...) },
	}
	for i, change := range changed {
		c := base
		c.Scales = append([]float64(nil), base.Scales...)
		change(&c)
		if sp.fingerprint(c, 3) == fp {
			t.Errorf("change %d did not change the fingerprint", i)
		}
	}
	if sp.fingerprint(base, 4) == fp {
		t.Error("another trial has the same fingerprint")
	}
}

// TestFreshRunWritesRecords: a fresh run reads no record (a planted record
// with the right fingerprint but a wrong outcome is not used) and writes
// its own over it, so that a fresh run is itself resumable.
func TestFreshRunWritesRecords(t *testing.T) {
	cache := t.TempDir()
	sp := trialSpec{
		Kinds: []scn.Kind{scn.RVFL}, Trials: 1, Seed: 5, MaxNodes: 10, Checkpoints: []int{10},
		Label: "fresh test", Cache: cache, DataID: "blobs",
		Data: func(tr int) (*dataset.Set, *dataset.Set, error) {
			return toySet(90, uint64(tr)), toySet(60, uint64(100+tr)), nil
		},
	}
	first, err := runTrials(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	cfg := scn.Paper(scn.RVFL)
	cfg.MaxNodes, cfg.Seed = sp.MaxNodes, sp.Seed
	fp := sp.fingerprint(cfg, 0)
	planted := first[0][0]
	planted.Nodes = -7
	if err := sp.saveTrial(0, scn.RVFL, fp, planted); err != nil {
		t.Fatal(err)
	}
	if o, ok, err := sp.loadTrial(0, scn.RVFL, fp); err != nil || !ok || o.Nodes != -7 {
		t.Fatalf("the planted record was not read back: %v %v %d", err, ok, o.Nodes)
	}
	sp.Fresh = true
	fresh, err := runTrials(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	if fresh[0][0].Nodes != first[0][0].Nodes {
		t.Fatalf("a fresh run used the record on disk: %d nodes", fresh[0][0].Nodes)
	}
	sp.Fresh = false
	o, ok, err := sp.loadTrial(0, scn.RVFL, fp)
	if err != nil || !ok || o.Nodes != first[0][0].Nodes {
		t.Fatalf("the fresh run did not write its record: %v %v %d", err, ok, o.Nodes)
	}
}
