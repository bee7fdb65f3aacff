package experiment

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/report"
)

// E3/E5 protocol: per subject, half the images train and half test.
var (
	faceLPaper = []int{200, 400, 600, 800, 1000}
	faceLQuick = []int{200, 400}
)

const (
	faceTrialsPaper, faceTrialsQuick = 50, 2
	faceTrainPerSubject              = 5
	orlSubjects                      = 40

	indLPaper, indLQuick           = 600, 100
	indTrialsPaper, indTrialsQuick = 50, 3

	occludedImages = 50 // E5: training images that get a block
	occludeBlock   = 40 // E5: side of the square block, pixels
)

// faceExtraCheckpoints are evaluated besides the paper's L list: with 200
// training images the hidden-output matrix has rank at most 200, so the
// curve below L = 200 is where the models differ.
var faceExtraCheckpoints = []int{25, 50, 100, 150}

func faceProtocol(o Options, r *Result, ls []int, trials int) {
	r.protocol("ORL: 40 subjects x 10 images of 112 x 92 (vector learners: d = 10304), pixels in [0, 1]")
	r.protocol("per subject a random half (5 images) for training and the rest for testing, anew every trial: 200 training and 200 test images (dataset.BuildFaceSplit; trial t's split is the one `scn derive faces --seed %d+t` writes)", o.Seed)
	r.protocol("L = %v (one fit to the largest L per trial, smaller L by Model.Prefix); %d trials (trial t: seed %d+t for the split and the learners)", ls, trials, o.Seed)
	r.protocol("paper preset: T_max = 5, Upsilon = %v, R = {1-10^-j, j=2..7}; RVFL and 2DRVFL lambda = 1", scn.PaperScales())
	if len(ls) > 1 {
		r.protocol("also evaluated at L = %v (not in the paper) to show the curve below the number of training images", faceExtraCheckpoints)
	}
	r.note("%s", faceRankNote)
}

// faceGrid returns the L grid and the trial count of an ORL experiment
// (quick's under o.Quick, with the trial count of o.trials), and records
// the trial count and the ORL protocol in r.
func faceGrid(o Options, r *Result, paperLs, quickLs []int, paperTrials, quickTrials int) ([]int, int) {
	ls := paperLs
	if o.Quick {
		ls = quickLs
	}
	trials := o.trials(paperTrials, quickTrials)
	r.Trials = trials
	faceProtocol(o, r, ls, trials)
	return ls, trials
}

// faceRankNote explains what happens around L = N = 200 on ORL.
const faceRankNote = "With 200 training images the hidden-output matrix H (200 x L) has rank at most 200, " +
	"and at L = N = 200 the least-squares fit interpolates the training set (train accuracy 100%); past it the training residual is zero but for rounding. " +
	"Every learner goes on to the largest L, as the authors' code does: the output weights are then the minimum-norm least-squares solution pinv(H) T (by SVD, with MATLAB's tolerance). " +
	"The random learners (RVFL, 2DRVFL) keep every node drawn; the supervised learners (SCN, 2DSCN) keep choosing nodes by the supervisory inequality, " +
	"now evaluated on a residual of rounding size (fresh at every node, from the SVD), so the choice among candidates carries little information past N. " +
	"At L = N the interpolating fit has huge output weights and test accuracy collapses towards chance: the peak of a double-descent curve; " +
	"past it the minimum-norm solution recovers."

// faceCurveNote states, per learner, the best mean test accuracy over the
// checkpoints and the mean test accuracy at L = 200 (= N) and at the
// largest L, so that the double-descent shape is visible in words.
func faceCurveNote(r *Result, what string, kinds []scn.Kind, outs [][]trialOutcome) {
	cps := outs[0][0].Checkpoints
	atN := -1
	for ci, l := range cps {
		if l == orlSubjects*faceTrainPerSubject { // N = 200
			atN = ci
		}
	}
	if len(cps) < 2 || atN < 0 {
		return
	}
	var parts []string
	for ki, k := range kinds {
		best, bestL := -1.0, 0
		mean := func(ci int) float64 { return statOf(collect(outs[ki], ci, mTestAcc.f)).Mean }
		for ci, l := range cps {
			if m := mean(ci); m > best {
				best, bestL = m, l
			}
		}
		s := fmt.Sprintf("%s best %.1f%% at L = %d, %.1f%% at L = %d", k.Title(), 100*best, bestL, 100*mean(atN), cps[atN])
		if last := len(cps) - 1; last != atN {
			s += fmt.Sprintf(", %.1f%% at L = %d", 100*mean(last), cps[last])
		}
		parts = append(parts, s)
		r.value(fmt.Sprintf("%s/%s/test_acc_at_N/mean", strings.ToLower(what), k), mean(atN))
		r.value(fmt.Sprintf("%s/%s/test_acc_best/mean", strings.ToLower(what), k), best)
	}
	r.note("%s, mean test accuracy in this run: %s.", what, strings.Join(parts, "; "))
}

// faceTable tabulates test accuracy per L and model.
func faceTable(name, title string, outs [][]trialOutcome) Table {
	t := curveTable(name, title, scn.Kinds(), outs, mTestAcc)
	return t
}

// faceSets builds the sets of one face trial with seed: the per-subject
// split (E3, E4) or, with occ, the same split with occluded training images
// (E5), exactly as "scn derive faces" and "scn derive occluded" write them.
func faceSets(faces *dataset.Set, seed uint64, occ bool) (*dataset.Derived, error) {
	if occ {
		return dataset.BuildOccluded(faces, faceTrainPerSubject, occludedImages, occludeBlock, seed)
	}
	return dataset.BuildFaceSplit(faces, faceTrainPerSubject, seed)
}

// faceSelection is the model selection of the "what a user gets" rows of E3
// and E5: scn train's default but for the share held out, one image of the
// five per subject (20%), since 10% of five rounds to one anyway.
var faceSelection = scn.Selection{Validation: 0.2}

func runFaceTrials(ctx context.Context, o Options, label string, ls []int, trials int, occ bool, indicator bool) ([][]trialOutcome, error) {
	return faceTrials(ctx, o, label, ls, trials, occ, indicator, nil, !indicator)
}

// robustTable tabulates, per L and model, the test accuracy with robust
// output weights (scn.Config.Robust) and its paired difference from the
// plain weights of the same nodes, mean ± std over the trials.
func robustTable(name, title string, outs [][]trialOutcome) Table {
	t := Table{Name: name, Title: title, Header: []string{"L"}}
	for _, k := range scn.Kinds() {
		t.Header = append(t.Header, k.Title()+" robust", k.Title()+" robust - plain")
	}
	for ci, l := range outs[0][0].Checkpoints {
		row := []string{fmt.Sprint(l)}
		for ki := range scn.Kinds() {
			var acc, diff []float64
			for _, to := range outs[ki] {
				if ci >= len(to.RobustTest) {
					continue
				}
				acc = append(acc, 100*to.RobustTest[ci].Acc)
				diff = append(diff, 100*(to.RobustTest[ci].Acc-to.Test[ci].Acc))
			}
			row = append(row, fmtStat(statOf(acc), 2), fmtStat(statOf(diff), 2))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = "Robust output weights: least squares reweighted by the kernel density of each training image's residual (scn.Config.Robust, after Wang and Li's robust SCN, Information Sciences 2017), on the very nodes of the plain fit of the table above, so each difference is paired within a trial."
	return t
}

// selectedTable runs the trials again with model selection up to the
// largest L and tabulates the chosen models beside the paper's protocol.
func selectedTable(ctx context.Context, o Options, r *Result, name, label string, ls []int, trials int, occ bool) error {
	sel := faceSelection
	outs, err := faceTrials(ctx, o, label+" selected", ls[len(ls)-1:], trials, occ, false, &sel, false)
	if err != nil {
		return err
	}
	t := Table{Name: name, Title: fmt.Sprintf("scn train's default (scn.Default: difference nodes in blocks of 100) with model selection: L <= %d and the ridge term chosen on one held-out image per subject, mean ± std over %d trials", ls[len(ls)-1], trials),
		Header: []string{"model", "test accuracy (%)", "chosen L", "chosen ridge (median)"}}
	for ki, k := range scn.Kinds() {
		var nodes, ridges []float64
		for _, to := range outs[ki] {
			nodes = append(nodes, float64(to.Nodes))
			ridges = append(ridges, to.Ridge)
		}
		sort.Float64s(ridges)
		t.Rows = append(t.Rows, []string{k.Title(), fmtStat(statOf(scaled(collect(outs[ki], -1, mTestAcc.f), mTestAcc.scale)), 2),
			fmtStat(statOf(nodes), 0), fmt.Sprintf("%g", ridges[len(ridges)/2])})
	}
	t.Caption = "The same splits as the table above. Each fit holds out one training image per subject, grows to the largest L, scores every prefix and ridge term on the held-out images, and re-solves the chosen model's output weights on all training images (scn.Config.Select)."
	r.Tables = append(r.Tables, t)
	return nil
}

func faceTrials(ctx context.Context, o Options, label string, ls []int, trials int, occ bool, indicator bool, sel *scn.Selection, robust bool) ([][]trialOutcome, error) {
	faces, err := loadORL(o.DataDir)
	if err != nil {
		return nil, err
	}
	maxL := 0
	for _, l := range ls {
		maxL = max(maxL, l)
	}
	cps := ls
	if len(ls) > 1 {
		cps = append(append([]int(nil), faceExtraCheckpoints...), ls...)
	}
	// The selected rows are what scn train gives by default: scn.Default's
	// nodes with selection; the others are the paper's protocol.
	var cfg func(scn.Kind) scn.Config
	if sel != nil {
		cfg = scn.Default
	}
	return runTrials(ctx, trialSpec{
		Kinds: scn.Kinds(), Trials: trials, Seed: o.Seed, MaxNodes: maxL, Checkpoints: cps, Config: cfg,
		Log: o.Log, Label: label, Indicator: indicator, Select: sel, Robust: robust,
		Cache: o.trialCache(), Fresh: o.Fresh, DataID: o.dataID(), Jobs: o.jobs(),
		Data: func(t int) (*dataset.Set, *dataset.Set, error) {
			d, err := faceSets(faces, o.Seed+uint64(t), occ)
			if err != nil {
				return nil, nil, err
			}
			return d.Part("train"), d.Part("test"), nil
		},
	})
}

func orlProvenance(o Options, r *Result) {
	r.Provenance = append(r.Provenance, "ORL / AT&T Database of Faces (Olivetti Research Laboratory), "+o.DataDir+"/orl_faces")
}

func runFaces(ctx context.Context, o Options, r *Result) error {
	ls, trials := faceGrid(o, r, faceLPaper, faceLQuick, faceTrialsPaper, faceTrialsQuick)
	outs, err := runFaceTrials(ctx, o, "E3", ls, trials, false, false)
	if err != nil {
		return err
	}
	orlProvenance(o, r)
	if err := faceResults(r, outs, ls[len(ls)-1], "E3", "e3", "faces",
		fmt.Sprintf("ORL test accuracy (%%) per L, mean ± std over %d trials", trials), "E3 ORL", "ORL training accuracy (%) per L"); err != nil {
		return err
	}
	r.Tables = append(r.Tables, robustTable("faces_robust", fmt.Sprintf("Clean ORL with robust output weights: test accuracy (%%) per L and its difference from the plain weights, mean ± std over %d trials", trials), outs))
	return selectedTable(ctx, o, r, "faces_selected", "E3", ls, trials, false)
}

// faceResults adds E3's or E5's results: the test accuracy table, the
// curves over L (whose tables repeat it and are dropped), the training
// accuracy table and the notes on the fits.
func faceResults(r *Result, outs [][]trialOutcome, maxL int, id, prefix, name, testTitle, curveTitle, trainTitle string) error {
	r.Tables = append(r.Tables, faceTable(name, testTitle, outs))
	if err := addCurves(r, prefix, curveTitle, scn.Kinds(), outs, mTestAcc, mTrainAcc); err != nil {
		return err
	}
	r.Tables = r.Tables[:len(r.Tables)-2] // keep the summary table; the curve tables repeat it
	r.Tables = append(r.Tables, curveTable(name+"_train", trainTitle, scn.Kinds(), outs, mTrainAcc))
	fitNotes(r, id, scn.Kinds(), outs, maxL)
	faceCurveNote(r, id, scn.Kinds(), outs)
	return nil
}

func runRobustness(ctx context.Context, o Options, r *Result) error {
	ls, trials := faceGrid(o, r, faceLPaper, faceLQuick, faceTrialsPaper, faceTrialsQuick)
	r.protocol("%d of the 200 training images, chosen at random each trial, get a randomly placed %d x %d block replaced by the same rows and columns of an unrelated natural image "+
		"(a photograph of a plush Go gopher, no human face, in grey, scaled to cover the 112 x 92 face); test images are clean (dataset.BuildOccluded; trial t's sets are the ones `scn derive occluded --seed %d+t` writes, same split as E3)",
		occludedImages, occludeBlock, occludeBlock, o.Seed)
	outs, err := runFaceTrials(ctx, o, "E5", ls, trials, true, false)
	if err != nil {
		return err
	}
	orlProvenance(o, r)
	r.Provenance = append(r.Provenance, "E5 "+dataset.OccluderSource)
	if err := faceResults(r, outs, ls[len(ls)-1], "E5", "e5", "robustness",
		fmt.Sprintf("ORL with %d occluded training images: test accuracy (%%) per L, mean ± std over %d trials", occludedImages, trials),
		"E5 occluded ORL", "ORL with occluded training images: training accuracy (%) per L"); err != nil {
		return err
	}
	r.Tables = append(r.Tables, robustTable("robustness_robust", fmt.Sprintf("ORL with %d occluded training images, robust output weights: test accuracy (%%) per L and its difference from the plain weights, mean ± std over %d trials", occludedImages, trials), outs))
	if err := selectedTable(ctx, o, r, "robustness_selected", "E5", ls, trials, true); err != nil {
		return err
	}
	return occlusionFigures(o, r)
}

// occlusionFigures shows an occluded training image of the first trial
// and the natural image the blocks come from, as it covers a face.
func occlusionFigures(o Options, r *Result) error {
	faces, err := loadORL(o.DataDir)
	if err != nil {
		return err
	}
	d, err := faceSets(faces, o.Seed, true)
	if err != nil {
		return err
	}
	train, blocks := d.Part("train"), d.Manifest.Occlusions
	if len(blocks) == 0 {
		return fmt.Errorf("experiment: E5 occluded no image")
	}
	b := blocks[0]
	orig := train.Origin[b.Image] // ORL is read subject by subject, 10 images each
	svg, err := report.HeatMap("An occluded training face (grey, 2v - 1)", train.Rows, train.Cols, signed(train.Image(b.Image)))
	caption := fmt.Sprintf("First trial (seed %d): subject %s, image %d.pgm, with the %d x %d block at row %d, column %d (from the top left, counted from 0) taken from the same place of the unrelated image.",
		o.Seed, train.Classes[train.Labels[b.Image]], orig%10+1, b.Size, b.Size, b.Row, b.Col)
	if err := r.addFigure("e5_example", "Example of an occluded face", caption, svg, err); err != nil {
		return err
	}
	occ, rows, cols, err := dataset.Occluder()
	if err != nil {
		return err
	}
	cover := dataset.CoverResize(occ, rows, cols, train.Rows, train.Cols)
	svg, err = report.HeatMap("The occluder (grey, 2v - 1)", train.Rows, train.Cols, signed(cover))
	return r.addFigure("e5_occluder", "The unrelated natural image the blocks come from",
		fmt.Sprintf("Scaled from %d x %d (rows x columns) to cover %d x %d (aspect ratio kept, centred, the overhang cropped). %s.", rows, cols, train.Rows, train.Cols, dataset.OccluderSource), svg, err)
}

// signed maps grey levels in [0, 1] to [-1, 1] for a heat map.
func signed(pix []float32) []float64 {
	v := make([]float64, len(pix))
	for i, p := range pix {
		v[i] = 2*float64(p) - 1
	}
	return v
}

func runIndicator(ctx context.Context, o Options, r *Result) error {
	ls, trials := faceGrid(o, r, []int{indLPaper}, []int{indLQuick}, indTrialsPaper, indTrialsQuick)
	l := ls[0]
	r.protocol("Theta_raw = ||H o (1-H) o W||_F ||beta||_F on the training images (the paper's generalization indicator, its bound on the test error); Theta = Theta_raw / max over all %d models", trials*len(scn.Kinds()))
	outs, err := runFaceTrials(ctx, o, "E4", []int{l}, trials, false, true)
	if err != nil {
		return err
	}
	orlProvenance(o, r)
	var maxRaw float64
	for _, ks := range outs {
		for _, t := range ks {
			maxRaw = math.Max(maxRaw, t.Theta)
		}
	}
	tab := Table{Name: "indicator", Title: fmt.Sprintf("Generalization indicator and test accuracy at L = %d, %d trials", l, trials),
		Header: []string{"model", "Theta (mean ± std)", "log10 Theta (mean ± std)", "Theta_raw (mean)", "test accuracy (%)", "train accuracy (%)"}}
	var pts []report.Points
	bestTheta, bestLog, bestAcc := -1, -1, -1
	var thetaMeans, logMeans, accMeans []float64
	for ki, k := range scn.Kinds() {
		var th, lth, raw []float64
		for _, t := range outs[ki] {
			raw = append(raw, t.Theta)
			th = append(th, t.Theta/maxRaw)
			lth = append(lth, math.Log10(t.Theta/maxRaw))
		}
		acc := collect(outs[ki], -1, mTestAcc.f)
		tacc := collect(outs[ki], -1, mTrainAcc.f)
		ts, ls, as := statOf(th), statOf(lth), statOf(acc)
		thetaMeans = append(thetaMeans, ts.Mean)
		logMeans = append(logMeans, ls.Mean)
		accMeans = append(accMeans, as.Mean)
		if bestTheta < 0 || ts.Mean < thetaMeans[bestTheta] {
			bestTheta = ki
		}
		if bestLog < 0 || ls.Mean < logMeans[bestLog] {
			bestLog = ki
		}
		if bestAcc < 0 || as.Mean > accMeans[bestAcc] {
			bestAcc = ki
		}
		tab.Rows = append(tab.Rows, []string{k.Title(), fmt.Sprintf("%.3g ± %.3g", ts.Mean, ts.Std), fmtStat(ls, 2),
			fmt.Sprintf("%.4g", statOf(raw).Mean), as.pct(), statOf(tacc).pct()})
		pts = append(pts, report.Points{Name: k.Title(), X: th, Y: scaled(acc, 100)})
		r.value(fmt.Sprintf("e4/%s/theta/mean", k), ts.Mean)
		r.value(fmt.Sprintf("e4/%s/log10_theta/mean", k), ls.Mean)
		r.value(fmt.Sprintf("e4/%s/test_acc/mean", k), as.Mean)
	}
	r.Tables = append(r.Tables, tab)
	minRaw := maxRaw
	for _, ks := range outs {
		for _, t := range ks {
			minRaw = math.Min(minRaw, t.Theta)
		}
	}
	r.note("Theta_raw ranges from %.3g to %.3g over the %d models: ||beta||_F is huge when H is nearly rank-deficient (plain least squares, no ridge), so the normalisation by the maximum leaves most Theta near 0; compare the Theta_raw column (log scale matters).", minRaw, maxRaw, trials*len(scn.Kinds()))
	if bestTheta == bestAcc {
		r.note("The claim holds in this run: %s has both the lowest mean Theta (%.3g) and the best mean test accuracy (%.2f%%).", scn.Kinds()[bestTheta].Title(), thetaMeans[bestTheta], 100*accMeans[bestAcc])
	} else {
		r.note("The claim does not hold in this run: %s has the lowest mean Theta (%.3g) but %s has the best mean test accuracy (%.2f%% against %.2f%%).",
			scn.Kinds()[bestTheta].Title(), thetaMeans[bestTheta], scn.Kinds()[bestAcc].Title(), 100*accMeans[bestAcc], 100*accMeans[bestTheta])
	}
	if bestLog != bestTheta {
		verdict := "holds"
		if bestLog != bestAcc {
			verdict = "does not hold"
		}
		r.note("Judged by the mean of log10 Theta instead (less sensitive to the single largest model), %s has the lowest Theta and the claim %s.", scn.Kinds()[bestLog].Title(), verdict)
	}
	fitNotes(r, "E4", scn.Kinds(), outs, l)
	svg, err := report.ScatterLogX(fmt.Sprintf("E4: Theta vs test accuracy, ORL, L = %d", l), "Theta = Theta_raw / max (log scale)", "test accuracy (%)", pts)
	return r.addFigure("e4_theta_vs_accuracy", "Generalization indicator Theta against test accuracy, one point per trained model",
		"Each point is one trained model (one trial); colour and marker give the learner. Theta spans orders of magnitude, hence the log scale. The claim: the learner with the lowest Theta has the best test accuracy (points to the left are higher).", svg, err)
}
