package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Rotate turns an image about its centre by the given angle in degrees
// (counter-clockwise as displayed), with bilinear interpolation; pixels
// that come from outside the image are 0.
func Rotate(img []float32, rows, cols int, degrees float64) []float32 {
	out := make([]float32, len(img))
	if degrees == 0 {
		copy(out, img)
		return out
	}
	s, c := math.Sincos(degrees * math.Pi / 180)
	cy, cx := float64(rows-1)/2, float64(cols-1)/2
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			// The source of (x, y) is the point rotated back by the angle.
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := c*dx-s*dy+cx, s*dx+c*dy+cy
			out[y*cols+x] = bilinear(img, rows, cols, sy, sx)
		}
	}
	return out
}

// bilinear samples img at the real position (y, x), 0 outside.
func bilinear(img []float32, rows, cols int, y, x float64) float32 {
	y0, x0 := math.Floor(y), math.Floor(x)
	fy, fx := y-y0, x-x0
	at := func(r, c int) float64 {
		if r < 0 || c < 0 || r >= rows || c >= cols {
			return 0
		}
		return float64(img[r*cols+c])
	}
	r, c := int(y0), int(x0)
	v := (1-fy)*((1-fx)*at(r, c)+fx*at(r, c+1)) + fy*((1-fx)*at(r+1, c)+fx*at(r+1, c+1))
	return float32(v)
}

// rng returns the package's random stream for a seed.
func rng(seed uint64, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// RotatedDigits builds the rotation-regression sets of the paper's E1:
// nTrain images drawn at random from train and nTest from test, each
// rotated about its centre by an angle uniform in [-45, 45] degrees. The
// angle is the target (TargetDim 1); the digit labels are kept.
func RotatedDigits(train, test *Set, nTrain, nTest int, seed uint64) (tr, te *Set, err error) {
	r := rng(seed, 0xe1)
	if tr, err = rotated(train, nTrain, r, seed); err != nil {
		return nil, nil, err
	}
	if te, err = rotated(test, nTest, r, seed); err != nil {
		return nil, nil, err
	}
	return tr, te, nil
}

func rotated(s *Set, n int, r *rand.Rand, seed uint64) (*Set, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || n > s.Len() {
		return nil, fmt.Errorf("dataset: %d rotated images asked of a set of %d", n, s.Len())
	}
	out := s.Subset(r.Perm(s.Len())[:n])
	out.Targets, out.TargetDim = make([]float64, n), 1
	out.Source = fmt.Sprintf("%s; %d images drawn at random and rotated about their centre by U[-45, 45] degrees, bilinear (seed %d)", s.Source, n, seed)
	for i := 0; i < n; i++ {
		a := 90*r.Float64() - 45
		out.Targets[i] = a
		copy(out.Image(i), Rotate(out.Image(i), s.Rows, s.Cols, a))
	}
	return out, nil
}

// SplitPerClass splits s at random, per class: perClass images of each
// class go to train, the rest to test (the faces protocol: half of each
// subject's images).
func SplitPerClass(s *Set, perClass int, seed uint64) (train, test *Set, err error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if s.Labels == nil {
		return nil, nil, fmt.Errorf("dataset: a per-class split needs labels")
	}
	if perClass < 1 {
		return nil, nil, fmt.Errorf("dataset: %d training images per class", perClass)
	}
	byClass := make([][]int, len(s.Classes))
	for i, l := range s.Labels {
		byClass[l] = append(byClass[l], i)
	}
	r := rng(seed, 0x5b)
	var tr, te []int
	for c, idx := range byClass {
		if len(idx) < perClass {
			return nil, nil, fmt.Errorf("dataset: class %s has %d images, fewer than %d", s.Classes[c], len(idx), perClass)
		}
		r.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		tr = append(tr, idx[:perClass]...)
		te = append(te, idx[perClass:]...)
	}
	train, test = s.Subset(tr), s.Subset(te)
	train.Source = fmt.Sprintf("%s; per class a random %d images for training (seed %d)", s.Source, perClass, seed)
	test.Source = fmt.Sprintf("%s; per class the images not drawn for training (seed %d)", s.Source, seed)
	return train, test, nil
}

// sources lists the distinct sources of sets, in order, with extra ones.
func sources(sets []*Set, extra ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range sets {
		if !seen[s.Source] {
			seen[s.Source] = true
			out = append(out, s.Source)
		}
	}
	return append(out, extra...)
}

// trainTest returns the derived set m describes, of the parts train (tr)
// and test (te) with pixels rounded to bytes as the files hold them.
func trainTest(m Manifest, tr, te *Set) *Derived {
	Quantize(tr)
	Quantize(te)
	return &Derived{Manifest: m, Parts: []Part{{"train", tr}, {"test", te}}}
}

// BuildRotated builds the data set of experiment E1 (see RotatedDigits)
// from a digit set's training and test parts, with pixels rounded to bytes
// as the files hold them. The sources' Source fields should say where they
// come from and under what terms; the manifest copies them.
func BuildRotated(train, test *Set, nTrain, nTest int, seed uint64) (*Derived, error) {
	tr, te, err := RotatedDigits(train, test, nTrain, nTest, seed)
	if err != nil {
		return nil, err
	}
	return trainTest(Manifest{
		Name: "rotated-digits",
		Description: fmt.Sprintf("Rotation regression (the paper's E1): %d training digits drawn from the source's training set and %d test digits from its test set, "+
			"each rotated about its centre by an angle uniform in [-45, 45] degrees (counter-clockwise positive, as displayed), bilinear interpolation, outside pixels black. "+
			"The target is the angle in degrees; the labels keep each image's digit class; origin gives its index in the source set.", nTrain, nTest),
		Generator: generator("BuildRotated"),
		Seed:      seed,
		Params:    map[string]string{"train": fmt.Sprint(nTrain), "test": fmt.Sprint(nTest), "angle": "U[-45, 45] degrees"},
		Sources:   sources([]*Set{train, test}),
	}, tr, te), nil
}

// BuildFaceSplit builds the split of experiments E3 and E4: per subject
// (class), a random perClass images for training and the rest for test.
func BuildFaceSplit(faces *Set, perClass int, seed uint64) (*Derived, error) {
	tr, te, err := SplitPerClass(faces, perClass, seed)
	if err != nil {
		return nil, err
	}
	return trainTest(Manifest{
		Name:        "face-split",
		Description: fmt.Sprintf("Per-subject random split (the paper's E3): for each subject, %d images chosen at random for training and the others for test. origin gives each image's index in the source set.", perClass),
		Generator:   generator("BuildFaceSplit"),
		Seed:        seed,
		Params:      map[string]string{"train_per_subject": fmt.Sprint(perClass)},
		Sources:     sources([]*Set{faces}),
	}, tr, te), nil
}

// BuildOccluded builds the data set of experiment E5: the split of
// BuildFaceSplit (same seed, same split), then k of the training images,
// chosen at random, get a block x block square at a random place replaced
// by the matching part of the built-in natural image (Occlude). Test
// images are clean. The manifest lists the blocks.
func BuildOccluded(faces *Set, perClass, k, block int, seed uint64) (*Derived, error) {
	d, err := BuildFaceSplit(faces, perClass, seed)
	if err != nil {
		return nil, err
	}
	tr, places, err := Occlude(d.Parts[0].Set, k, block, seed)
	if err != nil {
		return nil, err
	}
	Quantize(tr)
	d.Parts[0].Set = tr
	m := &d.Manifest
	m.Name = "occluded-faces"
	m.Description = fmt.Sprintf("Occluded faces (the paper's E5): the per-subject split (%d training images per subject, the rest for test), "+
		"then %d training images chosen at random each get a randomly placed %d x %d block replaced by the same rows and columns of an unrelated natural image "+
		"(scaled to cover the face, aspect ratio kept, centred). Test images are clean. origin gives each image's index in the source set.", perClass, k, block, block)
	m.Generator = generator("BuildOccluded")
	m.Params["occluded"] = fmt.Sprint(k)
	m.Params["block"] = fmt.Sprint(block)
	m.Sources = append(m.Sources, OccluderSource)
	m.Occlusions = places
	return d, nil
}
