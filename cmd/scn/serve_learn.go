package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/scn2d/scn/serve"
	"github.com/spf13/cobra"
)

// learnFlags are scn serve's flags of online learning (--learn).
type learnFlags struct {
	on        bool
	tokenFile string
	versions  string
	stats     []string
	o         serve.LearnOptions
	statsOf   map[string]string
	cmd       *cobra.Command
	procs     int       // GOMAXPROCS before learning raised it
	learners  int       // models loaded to learn
	old       dataFlags // --old-*: the training images of a model that grows (serve_grow.go)
}

func (lf *learnFlags) add(cmd *cobra.Command) {
	lf.cmd = cmd
	f := cmd.Flags()
	f.BoolVar(&lf.on, "learn", false, "let the models learn online: POST /v1/models/NAME:learn with labelled images, snapshots, rollback (needs --token-file; docs/serving.md)")
	f.StringVar(&lf.tokenFile, "token-file", "", "file holding the bearer token that :learn and :rollback requests must present (mode 600: a file others can read is refused)")
	f.StringArrayVar(&lf.stats, "stats", nil, "statistics of a model's training images, NAME=FILE or FILE for a single model (default: the model file with extension .scnstats)")
	f.StringVar(&lf.versions, "versions", "", "folder of the snapshots, one folder per model in it (default: beside each model file, MODEL.versions)")
	floatVar(f, &lf.o.Forget, "forget", 1, 0, 1, false, "forgetting factor per image learnt (1: none; 0.999: an image weighs 1/e after 1000 more)")
	intVar(f, &lf.o.SnapshotImages, "snapshot-images", 100000, 1, 1<<30, "write a snapshot once this many images were learnt since the last one (or --snapshot-every passed)")
	durationVar(f, &lf.o.SnapshotEvery, "snapshot-every", time.Minute, time.Millisecond, 365*24*time.Hour, "or this long after the last one, if any image was learnt")
	intVar(f, &lf.o.Keep, "keep-versions", 10, 0, 1<<30, "snapshots kept, the newest (0: all); version 0, the files given, is never removed")
	f.BoolVar(&lf.o.AllowNewClasses, "allow-new-classes", false, "let a label that is no class of the model add a class (default: refused, 422)")
	floatVar(f, &lf.o.Rate, "learn-rate", 0, 0, 1e12, true, "most images per second a model learns (0: no limit); beyond it 429")
	intVar(f, &lf.o.Batch, "learn-batch", 1024, 1, 1<<20, "most images one learning pass takes from the requests waiting")
	durationVar(f, &lf.o.SolveEvery, "solve-every", 2*time.Second, 0, 24*time.Hour, "solve the output weights again this long after the first images the served model lacks (0: after every pass); a pass only adds its images' sums, and :learn?wait=true waits for the solve")
	intVar(f, &lf.o.Grow, "grow", 0, 0, 1<<20, "let the model grow by up to this many supervised nodes (scn, 2dscn), chosen on the residual of the images learnt since the last growth, on POST /v1/models/NAME:grow or every --grow-every images: needs its training images (--old-idx-images ..., as scn update --grow), and keeps every image learnt in a journal in the versions folder")
	intVar(f, &lf.o.GrowEvery, "grow-every", 0, 0, 1<<30, "with --grow: grow every this many images learnt (0: only on POST NAME:grow)")
	lf.old.prefix = "old-"
	lf.old.add(cmd, false)
	intVar(f, &lf.o.Workers, "learn-workers", 0, 0, 1<<16, "goroutines a model's learning runs its products on (0: GOMAXPROCS - 1, at least 1), on threads of a lower priority, so that predictions keep the other cores and take any core at once")
}

// enable turns learning on in s if --learn, after checking the flags.
func (lf *learnFlags) enable(s *serve.Server) error {
	if !lf.on {
		for _, name := range []string{"token-file", "stats", "versions", "forget", "snapshot-images", "snapshot-every", "keep-versions", "allow-new-classes", "learn-rate", "learn-batch", "solve-every", "learn-workers", "grow", "grow-every"} {
			if lf.changed(name) {
				return usageError{fmt.Errorf("--%s is an option of --learn", name)}
			}
		}
		if lf.old.given() || lf.old.mat.file != "" {
			return usageError{fmt.Errorf("the --old-* flags are the training images of --learn --grow")}
		}
		return nil
	}
	oldGiven := lf.old.given() || lf.old.mat.file != ""
	switch {
	case lf.o.Grow == 0 && oldGiven:
		return usageError{fmt.Errorf("the --old-* flags are the training images of --grow: learning without growing needs only the statistics")}
	case lf.o.Grow == 0 && lf.o.GrowEvery > 0:
		return usageError{fmt.Errorf("--grow-every needs --grow K, the nodes a growth adds")}
	case lf.o.Grow > 0 && !oldGiven:
		return usageError{fmt.Errorf("--grow needs the model's training images (--old-idx-images and --old-idx-labels, or another --old-* source), those its statistics were summed over: the new nodes' outputs on them enter the least squares (docs/serving.md)")}
	case lf.o.Grow > 0 && lf.o.Forget != 1:
		return usageError{fmt.Errorf("--grow with --forget %v: a growth sums the statistics of every image again, each with weight 1, which would undo the forgetting: grow without --forget, or forget without --grow", lf.o.Forget)}
	}
	if lf.tokenFile == "" {
		return usageError{fmt.Errorf("--learn needs --token-file: the bearer token that learning and rollback requests must present")}
	}
	tok, err := serve.ReadTokenFile(lf.tokenFile)
	if err != nil {
		return err
	}
	lf.o.Token = tok
	if lf.o.SolveEvery == 0 {
		lf.o.SolveEvery = -1 // after every pass
	}
	if lf.o.Keep == 0 {
		lf.o.Keep = -1 // all
	}
	lf.statsOf = map[string]string{}
	for _, a := range lf.stats {
		if n, p, ok := strings.Cut(a, "="); ok {
			lf.statsOf[n] = p
		} else {
			lf.statsOf[""] = a
		}
	}
	lf.procs = runtime.GOMAXPROCS(0)
	return s.EnableLearning(lf.o)
}

func (lf *learnFlags) changed(name string) bool { return lf.cmd.Flags().Changed(name) }

// load loads a model to serve, to learn if --learn.
func (lf *learnFlags) load(s *serve.Server, name, path string) error {
	if !lf.on {
		return s.Load(name, path)
	}
	stats, ok := lf.statsOf[name]
	if !ok {
		if stats, ok = lf.statsOf[""]; !ok {
			stats = strings.TrimSuffix(path, filepath.Ext(path)) + ".scnstats"
		}
	}
	versions := strings.TrimSuffix(path, filepath.Ext(path)) + ".versions"
	if lf.versions != "" {
		versions = filepath.Join(lf.versions, name)
	}
	train, err := lf.trainingImages(path)
	if err != nil {
		return err
	}
	if train == nil {
		err = s.LoadLearning(name, path, stats, versions)
	} else {
		err = s.LoadLearningImages(name, path, stats, versions, train)
	}
	if err != nil {
		return err
	}
	lf.learners++
	runtime.GOMAXPROCS(learnProcs(lf.procs, lf.o.Workers, lf.learners))
	return nil
}

// restoreProcs gives GOMAXPROCS back its value before learning raised it
// (for a command run within a test's process).
func (lf *learnFlags) restoreProcs() {
	if lf.learners > 0 {
		runtime.GOMAXPROCS(lf.procs)
	}
}

// learnProcs is the GOMAXPROCS of a server whose Go code had procs Ps
// before learners models were loaded to learn with workers goroutines
// each (0: procs - 1, at least 1). Learning runs on threads of a lower
// priority (par.Background), which the system preempts for a prediction's
// thread at once, but only if the prediction finds a P: a model's pass
// and its solve can each hold workers Ps, so the server gets that many
// more Ps than it had, at most three times as many again.
func learnProcs(procs, workers, learners int) int {
	if workers == 0 {
		workers = max(1, procs-1)
	}
	return procs + min(2*workers*learners, 3*procs)
}
