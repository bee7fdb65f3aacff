package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/dataset"
)

// rotData is E1's data: the paper's own MATLAB digits when the data folder
// has them, rotated MNIST otherwise.
type rotData struct {
	sets   func(t int) (*dataset.Set, *dataset.Set, error)
	label  string // the trial records' label (a folder of its own per data)
	id     string // added to the records' fingerprint
	what   string // the data, for the table title
	seeded string // what trial t's seed draws
	digits bool   // the test images carry digit labels (per-digit plots)
}

// matlabDigits is the folder of the paper's E1 data under the data folder.
const matlabDigits = "matlab-digits"

// rotationData reads E1's data and states it in r: the paper's data,
// MATLAB's synthetic rotated digits (matlab-digits/DigitsDataTrain.mat and
// DigitsDataTest.mat: XTrain 28 x 28 x 1 x 5000 in [0, 1], anglesTrain),
// the same 5000 + 5000 images in every trial (the quick protocol draws
// ntr and nte of them), or without them the same task built from MNIST.
func rotationData(o Options, r *Result, ntr, nte int) (*rotData, error) {
	dir := filepath.Join(o.DataDir, matlabDigits)
	trp, tep := filepath.Join(dir, "DigitsDataTrain.mat"), filepath.Join(dir, "DigitsDataTest.mat")
	_, err1 := os.Stat(trp)
	_, err2 := os.Stat(tep)
	if err1 != nil || err2 != nil {
		return rotatedMNIST(o, r, ntr, nte)
	}
	tr, err := dataset.ReadMAT(trp, "XTrain", "anglesTrain", true, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	te, err := dataset.ReadMAT(tep, "XTest", "anglesTest", true, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if tr.Rows != 28 || tr.Cols != 28 || te.Rows != 28 || te.Cols != 28 {
		return nil, errors.New("experiment: matlab-digits: images are not 28 x 28")
	}
	r.Provenance = append(r.Provenance,
		"MATLAB Deep Learning Toolbox synthetic rotated digits (digitTrain4DArrayData), the paper's E1 data, "+trp+" (XTrain, anglesTrain)",
		"MATLAB Deep Learning Toolbox synthetic rotated digits (digitTest4DArrayData), "+tep+" (XTest, anglesTest)")
	r.note("The paper's own data: MATLAB's synthetic handwritten digits rotated by -45..45 degrees (%s, read from its MAT-files by dataset.ReadMAT); the target is the angle in degrees.", dir)
	d := &rotData{label: "E1-matlab", id: " data matlab-digits", what: "MATLAB's rotated digits (the paper's data)", seeded: "the learners"}
	full := ntr >= tr.Len() && nte >= te.Len()
	if full {
		r.protocol("all %d training and %d test images of the MAT-files, the same in every trial (as in the paper); the trials differ in the learners' random draws", tr.Len(), te.Len())
		d.sets = func(int) (*dataset.Set, *dataset.Set, error) { return tr, te, nil }
		return d, nil
	}
	r.protocol("%d training and %d test images drawn from the MAT-files' %d and %d, new draws every trial", ntr, nte, tr.Len(), te.Len())
	d.seeded = "the draws and the learners"
	d.sets = func(t int) (*dataset.Set, *dataset.Set, error) {
		rng := rand.New(rand.NewPCG(o.Seed+uint64(t), 0xe1))
		return tr.Subset(sample(tr.Len(), ntr, rng)), te.Subset(sample(te.Len(), nte, rng)), nil
	}
	return d, nil
}

// rotatedMNIST is E1's stand-in: MNIST digits rotated by random angles.
func rotatedMNIST(o Options, r *Result, ntr, nte int) (*rotData, error) {
	mtr, mte, err := loadMNIST(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("%w (E1 reads %s/DigitsDataTrain.mat and DigitsDataTest.mat, the paper's data, or MNIST to build the same task)", err, filepath.Join(o.DataDir, matlabDigits))
	}
	r.Provenance = append(r.Provenance, mtr.Source, mte.Source)
	r.note("Substitute data: the paper used the synthetic rotated-digit set shipped with a commercial toolbox (put its MAT-files in %s to use them); this run builds the same task from MNIST: each image is rotated about its centre by an angle drawn uniformly from [-45, 45] degrees (bilinear interpolation), and the target is that angle in degrees (positive = counter-clockwise).", filepath.Join(o.DataDir, matlabDigits))
	r.protocol("%d training images drawn from the MNIST training set and %d test images from the MNIST test set, new draws and angles every trial (dataset.BuildRotated; trial t's sets are the ones `scn derive rotated --train %d --test %d --seed %d+t` writes)", ntr, nte, ntr, nte, o.Seed)
	return &rotData{
		label: "E1", what: "rotated MNIST (a substitute for the paper's data)", seeded: "images, angles and learners", digits: true,
		sets: func(t int) (*dataset.Set, *dataset.Set, error) {
			d, err := dataset.BuildRotated(mtr, mte, ntr, nte, o.Seed+uint64(t))
			if err != nil {
				return nil, nil, err
			}
			return d.Part("train"), d.Part("test"), nil
		},
	}, nil
}
