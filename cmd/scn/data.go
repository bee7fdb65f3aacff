package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// dataFlags say where a data set comes from and how its images are
// prepared. With no source flag the built-in data set is used.
type dataFlags struct {
	prefix                           string // flag name prefix, e.g. "test-"
	idxImages, idxLabels, idxTargets string
	folder, csv, derived             string
	rows, cols                       int
	invert, resize, fit              string
	mnist, grey, deskew              bool
	numpy                            numpyFlags // --npy-*, --npz*: numpy.go
	mat                              matFlags   // --mat*: mat.go
}

// add registers the source flags and, with prep, the preprocessing flags
// (training only: evaluation re-applies what the model recorded).
func (d *dataFlags) add(cmd *cobra.Command, prep bool) {
	f := cmd.Flags()
	p, what := d.prefix, strings.TrimSuffix(d.prefix, "-")
	if what != "" {
		what += " "
	}
	f.StringVar(&d.idxImages, p+"idx-images", "", what+"IDX image file (plain or gzip), or several: a comma list or a quoted glob such as 'part-*-images*.gz'")
	f.StringVar(&d.idxLabels, p+"idx-labels", "", what+"IDX label file, for classification (as many as --"+p+"idx-images names, paired in sorted order)")
	f.StringVar(&d.idxTargets, p+"idx-targets", "", what+"IDX float target file, for regression")
	f.StringVar(&d.folder, p+"folder", "", what+"folder of class subfolders of images (root/<class>/*.png), or a tar archive of them, gzip or not, with the folder in it after a colon (digits.tar.gz:digits/train)")
	f.StringVar(&d.csv, p+"csv", "", what+"CSV file: label, then pixels (header optional)")
	intVar(f, &d.rows, p+"rows", 0, 0, maxSide, what+"image rows of a CSV file (0: square)")
	intVar(f, &d.cols, p+"cols", 0, 0, maxSide, what+"image columns of a CSV file (0: square)")
	f.StringVar(&d.derived, p+"derived", "", what+"folder written by scn derive: its train part for training, its test part for evaluation")

	d.numpy.add(f, p, what)
	d.mat.add(f, p, what)
	if !prep {
		return
	}
	f.StringVar(&d.invert, "invert", "", "invert grey levels: auto (each image with dark ink on a light background), yes or no (default: no, auto with --mnist-normalize)")
	f.StringVar(&d.resize, "resize", "", "resize images to RxC, e.g. 28x28 (aspect ratio as --fit says)")
	f.StringVar(&d.fit, "fit", "", "how --resize treats another aspect ratio: pad (keep it, centre on black), crop (keep it, cut the centre) or stretch (default: pad)")
	f.BoolVar(&d.mnist, "mnist-normalize", false, "bring digits to the MNIST convention (20x20 box, centred mass, 28x28)")
	f.BoolVar(&d.deskew, "deskew", false, "straighten slanted images (shear upright, centre the mass): for handwriting; recorded in the model, applied to new images")
	f.BoolVar(&d.grey, "grey", false, "read colour images as grey (luma); without it a folder with a colour image is colour (3 planes)")
}

// preprocess returns the preprocessing the flags ask for. Without
// --invert, Invert stays empty, which the dataset package reads as "no",
// or "auto" with the MNIST convention.
func (d *dataFlags) preprocess() (dataset.Preprocess, error) {
	p := dataset.Preprocess{Invert: d.invert, MNIST: d.mnist, Deskew: d.deskew}
	if d.grey {
		p.Channels = 1
	}
	switch d.invert {
	case "", "auto", "yes", "no":
	default:
		return p, usageError{fmt.Errorf("--invert %q: want auto, yes or no", d.invert)}
	}
	switch {
	case d.fit != "" && d.fit != "pad" && d.fit != "crop" && d.fit != "stretch":
		return p, usageError{fmt.Errorf("--fit %q: want pad, crop or stretch", d.fit)}
	case d.fit != "" && d.resize == "":
		return p, usageError{fmt.Errorf("--fit %s: says how --resize keeps the aspect ratio; there is no --resize", d.fit)}
	}
	if d.resize != "" {
		r, c, ok := strings.Cut(strings.ToLower(d.resize), "x")
		rows, err1 := strconv.Atoi(r)
		cols, err2 := strconv.Atoi(c)
		if !ok || err1 != nil || err2 != nil || rows < 1 || cols < 1 {
			return p, usageError{fmt.Errorf("--resize %q: want RxC, e.g. 28x28", d.resize)}
		}
		p.ResizeRows, p.ResizeCols = rows, cols
		p.Fit = d.fit
		if p.Fit == "" {
			p.Fit = "pad"
		}
	}
	if err := p.Validate(); err != nil {
		return p, usageError{fmt.Errorf("--resize %q: %w", d.resize, err)}
	}
	return p, nil
}

// load reads the data set and prepares its images with p; half picks the
// train or test part of the built-in set or of a --derived folder.
func (d *dataFlags) load(half string, p dataset.Preprocess) (*dataset.Set, error) {
	var err error
	if err := d.checkSources(); err != nil {
		return nil, err
	}
	var s *dataset.Set
	switch {
	case d.folder != "":
		if archive, dir, ok := tarFolder(d.folder); ok {
			s, err := dataset.ReadFolderTarGz(archive, dir, p)
			return s, withMemoryHint(err, p)
		}
		s, err := dataset.ReadFolder(d.folder, p) // the reader applies p
		return s, withMemoryHint(err, p)
	case d.csv != "":
		s, err = dataset.ReadCSV(d.csv, d.rows, d.cols)
	case d.idxImages != "":
		s, err = d.readIDX()
	case d.numpy.given():
		s, err = d.readNumPy()
	case d.mat.file != "":
		s, err = d.mat.read(d)
	case d.derived != "":
		s, err = readDerivedPart(d.derived, half)
	default:
		var train, test *dataset.Set
		if train, test, err = dataset.Default(); err == nil {
			s = train
			if half == "test" {
				s = test
			}
		}
	}
	if err != nil {
		return nil, withMemoryHint(err, p)
	}
	if p.KeepsImages(s) {
		return s, nil
	}
	s, err = dataset.Prepare(s, p)
	return s, withMemoryHint(err, p)
}

// peekShape returns the shape of the data set load(half, p) would read,
// with p applied, from what its files' headers say (dataset.PeekIDX,
// PeekNPY, PeekNPZ, PeekDerived, PeekFolder) without reading its images,
// so that work that cannot fit in memory is refused before they are
// read. ok is false where the shape cannot be told that way (a CSV file,
// the built-in set) or the headers are wrong: load then reads the set
// and says what is wrong, as it always did. The image count is exact; a
// folder's planes are those of its first image (a later colour image
// makes it colour, so the check after reading stays).
func (d *dataFlags) peekShape(half string, p dataset.Preprocess) (sh dataset.Shape, ok bool) {
	if d.checkSources() != nil {
		return sh, false
	}
	var err error
	switch {
	case d.folder != "":
		if _, _, tar := tarFolder(d.folder); tar {
			return sh, false // an archive's files are listed by reading it
		}
		sh, err = dataset.PeekFolder(d.folder, p)
	case d.idxImages != "":
		sh, err = d.peekIDX()
	case d.numpy.given():
		sh, err = numpyCall(d, dataset.PeekNPY, dataset.PeekNPZ)
	case d.derived != "":
		sh, err = dataset.PeekDerived(d.derived, half)
	default:
		return sh, false
	}
	if err != nil || sh.N < 1 {
		return sh, false
	}
	return p.PrepareShape(sh), true
}

// checkSources refuses data flags that do not name one data source
// completely.
func (d *dataFlags) checkSources() error {
	if err := d.checkNumPyFlags(); err != nil {
		return err
	}
	if err := d.mat.check(d.prefix); err != nil {
		return err
	}
	sources := 0
	for _, s := range []string{d.idxImages, d.folder, d.csv, d.derived, d.numpy.images + d.numpy.npz, d.mat.file} {
		if s != "" {
			sources++
		}
	}
	if (d.rows == 0) != (d.cols == 0) {
		return usageError{fmt.Errorf("--%srows and --%scols: give both, or neither for square images", d.prefix, d.prefix)}
	}
	if sources > 1 {
		return usageError{fmt.Errorf("give one data source: --%sidx-images, --%sfolder, --%scsv, --%sderived, --%snpy-images, --%snpz or --%smat", d.prefix, d.prefix, d.prefix, d.prefix, d.prefix, d.prefix, d.prefix)}
	}
	if (d.idxLabels != "" || d.idxTargets != "") && d.idxImages == "" {
		return usageError{fmt.Errorf("--%sidx-labels and --%sidx-targets need --%sidx-images", d.prefix, d.prefix, d.prefix)}
	}
	if (d.rows != 0 || d.cols != 0) && d.csv == "" && !d.numpy.given() && d.mat.file == "" {
		return usageError{fmt.Errorf("--%srows and --%scols give the image shape of a CSV file, a NumPy array or a MAT-file's N x d array; there is no --%scsv, --%snpy-images, --%snpz or --%smat", d.prefix, d.prefix, d.prefix, d.prefix, d.prefix, d.prefix)}
	}
	return nil
}

// readDerivedPart reads the part called half of a folder written by scn
// derive (dataset.Derived.Write), checked against its manifest.
func readDerivedPart(dir, half string) (*dataset.Set, error) {
	d, err := dataset.ReadDerived(dir)
	if err != nil {
		return nil, err
	}
	s := d.Part(half)
	if s == nil {
		var names []string
		for _, p := range d.Parts {
			names = append(names, p.Name)
		}
		return nil, fmt.Errorf("%s has no %s part (it has %s)", dir, half, strings.Join(names, ", "))
	}
	s.Source = fmt.Sprintf("%s, %s part (%s, seed %d): %s", dir, half, d.Manifest.Name, d.Manifest.Seed, s.Source)
	return s, nil
}

// readIDX reads an IDX image file with its labels or targets.
func (d *dataFlags) readIDX() (*dataset.Set, error) {
	if d.idxLists() && d.idxTargets == "" {
		return d.readIDXList()
	}
	switch {
	case d.idxLabels != "" && d.idxTargets != "":
		return nil, usageError{fmt.Errorf("give --idx-labels or --idx-targets, not both")}
	case d.idxTargets != "":
		s, err := dataset.ReadIDX(d.idxImages, "")
		if err != nil {
			return nil, err
		}
		t, dim, err := dataset.ReadIDXTargets(d.idxTargets)
		if err != nil {
			return nil, err
		}
		if len(t) != s.Len()*dim {
			return nil, fmt.Errorf("%s holds %d targets of dimension %d for %d images in %s", d.idxTargets, len(t)/max(dim, 1), dim, s.Len(), d.idxImages)
		}
		s.Targets, s.TargetDim = t, dim
		return s, nil
	case d.idxLabels != "":
		return dataset.ReadIDX(d.idxImages, d.idxLabels)
	}
	return nil, usageError{fmt.Errorf("--idx-images needs --idx-labels (classification) or --idx-targets (regression)")}
}

// peekIDX returns the shape of the IDX files the flags name, as readIDX
// would read them.
func (d *dataFlags) peekIDX() (dataset.Shape, error) {
	switch {
	case d.idxLists() && d.idxTargets == "":
		images, err := dataset.ExpandFiles(d.idxImages)
		if err != nil {
			return dataset.Shape{}, err
		}
		labels, err := dataset.ExpandFiles(d.idxLabels)
		if err != nil {
			return dataset.Shape{}, err
		}
		return dataset.PeekIDX(images, labels, "")
	case d.idxLabels != "" && d.idxTargets != "":
		return dataset.Shape{}, usageError{fmt.Errorf("give --idx-labels or --idx-targets, not both")}
	case d.idxTargets != "":
		return dataset.PeekIDX([]string{d.idxImages}, nil, d.idxTargets)
	case d.idxLabels != "":
		return dataset.PeekIDX([]string{d.idxImages}, []string{d.idxLabels}, "")
	}
	return dataset.Shape{}, usageError{fmt.Errorf("--idx-images needs --idx-labels (classification) or --idx-targets (regression)")}
}

// polarityNote says, in one line on w, when most images of a training set
// look like dark ink on a light background and the flags neither invert
// them nor say not to (--invert no): learners trained on MNIST-like data
// expect bright ink on dark.
func polarityNote(w io.Writer, s *dataset.Set, d *dataFlags) {
	if d.invert != "" || d.mnist {
		return
	}
	if n := s.DarkInkCount(); 2*n > s.Len() {
		fmt.Fprintf(w, "scn: note: %d of %d training images look like dark ink on a light background (bright border); they are used as they are (--invert auto inverts them, --invert no silences this note)\n", n, s.Len())
	}
}

// Keys of the metadata a model file records for the command line (the
// preprocessing has its own field, Model.Preprocessing).
const (
	metaSource   = "source"
	metaInverted = "inverted_images" // how many training images preprocessing inverted
)

// recordData stores the preprocessing, with the planes of s (dataset's
// Preprocess.Record), and the source in the model.
func recordData(m *scn.Model, s *dataset.Set, p dataset.Preprocess) {
	m.Preprocessing = p.Record(s)
	if m.Meta == nil {
		m.Meta = map[string]string{}
	}
	m.Meta[metaSource] = s.Source
	m.Meta[metaInverted] = fmt.Sprintf("%d of %d", s.Inverted, s.Len())
}

// tarFolder splits a --folder value that names a tar archive (a file, not
// a folder; gzip-compressed or not), with the folder of class subfolders
// inside it after a colon ("digits.tar.gz:digits/train"; without one, the
// archive's root). ok is false for a folder.
func tarFolder(spec string) (archive, dir string, ok bool) {
	if st, err := os.Stat(spec); err == nil {
		return spec, ".", st.Mode().IsRegular()
	}
	if i := strings.LastIndex(spec, ":"); i > 0 {
		if st, err := os.Stat(spec[:i]); err == nil && st.Mode().IsRegular() {
			return spec[:i], spec[i+1:], true
		}
	}
	return "", "", false
}
