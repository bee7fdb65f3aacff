package dataset

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/npy"
)

// Shape is the size of a data set without its pixels (scn.Shape: N, rows,
// cols, channels, labels, classes, targets, origins; Dim, Bytes and
// Outputs): the one shape type of the library, which its memory estimates
// (scn.Config.Estimate, EstimateStream) take. Set.Shape gives it for a set
// in memory, a Stream's Shape for a set read shard by shard; the Peek
// functions read it from the files' headers (or a derived set's manifest,
// or a folder's listing and first image) before the images are read, so
// that a caller can refuse work that would not fit in memory without
// first reading gigabytes. A peeked shape is that of the set as read,
// before preprocessing: Preprocess.PrepareShape gives what Prepare (or
// ReadFolder) makes of it.
type Shape = scn.Shape

// Shape returns the shape of s.
func (s *Set) Shape() Shape {
	sh := Shape{N: s.Len(), Rows: s.Rows, Cols: s.Cols, Channels: s.Chans(), Labels: s.Labels != nil,
		Classes: len(s.Classes), Origin: s.Origin != nil}
	if s.Targets != nil {
		sh.TargetDim = max(s.TargetDim, 1)
	}
	return sh
}

// labelledShape is the shape of a stream of n labelled images of
// rows x cols x chans in the given classes.
func labelledShape(n, rows, cols, chans int, classes []string) Shape {
	return Shape{N: n, Rows: rows, Cols: cols, Channels: chans, Labels: true, Classes: len(classes)}
}

// PrepareShape returns the shape Prepare makes of a set of shape sh: p's
// planes and image size.
func (p Preprocess) PrepareShape(sh Shape) Shape {
	sh.Rows, sh.Cols = p.outShape(sh.Rows, sh.Cols)
	sh.Channels = p.wantChannels(max(sh.Channels, 1))
	return sh
}

// PeekIDX returns the shape of the images of IDX files (summed over the
// files, which must all hold images of one size) with, unless nil, their
// label files (one per image file, read whole: a byte per image) or,
// unless empty, a file of regression targets (its header only).
func PeekIDX(images, labels []string, targets string) (Shape, error) {
	if labels != nil && len(labels) != len(images) {
		return Shape{}, fmt.Errorf("dataset: %d image files and %d label files", len(images), len(labels))
	}
	var sh Shape
	most := 0
	for i, name := range images {
		kind, dims, err := idxFileHead(name)
		if err != nil {
			return Shape{}, err
		}
		if kind != idxUbyte || len(dims) != 3 && len(dims) != 4 {
			return Shape{}, fmt.Errorf("dataset: %s: %w: images must be unsigned bytes of N x rows x cols (or N x C x rows x cols)", name, ErrFormat)
		}
		c := 1
		if len(dims) == 4 {
			c = dims[1]
		}
		r, k := dims[len(dims)-2], dims[len(dims)-1]
		if i > 0 && (r != sh.Rows || k != sh.Cols || c != sh.Channels) {
			return Shape{}, fmt.Errorf("dataset: %s: %w: images of %d x %d x %d, those of %s are %d x %d x %d", name, ErrFormat, c, r, k, images[0], sh.Channels, sh.Rows, sh.Cols)
		}
		sh.Rows, sh.Cols, sh.Channels = r, k, c
		sh.N += dims[0]
		if labels == nil {
			continue
		}
		lab, err := readIDXFile(labels[i])
		if err != nil {
			return Shape{}, err
		}
		if lab.kind != idxUbyte || len(lab.dims) != 1 || lab.dims[0] != dims[0] {
			return Shape{}, fmt.Errorf("dataset: %s: %w: want %d labels of unsigned bytes", labels[i], ErrFormat, dims[0])
		}
		for _, v := range lab.data {
			most = max(most, int(v))
		}
	}
	if labels != nil {
		sh.Labels, sh.Classes = true, max(most+1, 2)
	}
	if targets != "" {
		kind, dims, err := idxFileHead(targets)
		if err != nil {
			return Shape{}, err
		}
		if kind != idxFloat32 && kind != idxFloat64 || len(dims) > 2 || dims[0] != sh.N {
			return Shape{}, fmt.Errorf("dataset: %s: %w: want %d float32 or float64 targets (N or N x dim)", targets, ErrFormat, sh.N)
		}
		sh.TargetDim = 1
		if len(dims) == 2 {
			sh.TargetDim = dims[1]
		}
	}
	return sh, nil
}

// idxFileHead reads the header of an IDX file, gzip-compressed or not
// (only the first bytes are decompressed).
func idxFileHead(path string) (byte, []int, error) {
	f, err := openFile(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	r, err := openMaybeGzip(f)
	if err != nil {
		return 0, nil, fmt.Errorf("dataset: %s: %w: gzip: %v", path, ErrFormat, err)
	}
	kind, dims, _, err := readIDXHead(r)
	if err != nil {
		return 0, nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return kind, dims, nil
}

// PeekNPY returns the shape of the images of a .npy file, from its header
// only, with their labels (read whole, to count the classes) or targets
// (their header only), as ReadNPY would read them.
func PeekNPY(imagesPath, labelsPath, targetsPath string, rows, cols int, channelsFirst bool) (Shape, error) {
	h, err := npy.ReadFileHeader(imagesPath)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %w", err)
	}
	sh, err := numpyHeaderShape(h, rows, cols, channelsFirst)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %s: %w", imagesPath, err)
	}
	switch {
	case labelsPath != "":
		y, err := npy.ReadFile(labelsPath)
		if err != nil {
			return Shape{}, fmt.Errorf("dataset: %w", err)
		}
		err = shapeLabels(&sh, y)
		if err != nil {
			return Shape{}, fmt.Errorf("dataset: %s: %w", labelsPath, err)
		}
	case targetsPath != "":
		y, err := npy.ReadFileHeader(targetsPath)
		if err != nil {
			return Shape{}, fmt.Errorf("dataset: %w", err)
		}
		if err := shapeTargets(&sh, y.Shape); err != nil {
			return Shape{}, fmt.Errorf("dataset: %s: %w", targetsPath, err)
		}
	}
	return sh, nil
}

// PeekNPZ returns the shape of the images of a .npz file, as ReadNPZ would
// read them, from the header of their array (only its start is
// decompressed), with their labels (read whole) or targets (their header).
func PeekNPZ(path, xName, yName string, targets bool, rows, cols int, channelsFirst bool) (Shape, error) {
	z, err := npy.OpenNPZ(path)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %w", err)
	}
	defer z.Close()
	h, err := z.Header(xName)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %w", err)
	}
	sh, err := numpyHeaderShape(h, rows, cols, channelsFirst)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %s, array %q: %w", path, xName, err)
	}
	switch {
	case yName == "":
	case targets:
		y, err := z.Header(yName)
		if err != nil {
			return Shape{}, fmt.Errorf("dataset: %w", err)
		}
		if err := shapeTargets(&sh, y.Shape); err != nil {
			return Shape{}, fmt.Errorf("dataset: %s, array %q: %w", path, yName, err)
		}
	default:
		y, err := z.Array(yName)
		if err != nil {
			return Shape{}, fmt.Errorf("dataset: %w", err)
		}
		if err := shapeLabels(&sh, y); err != nil {
			return Shape{}, fmt.Errorf("dataset: %s, array %q: %w", path, yName, err)
		}
	}
	return sh, nil
}

// numpyHeaderShape returns the shape of the images of an array with header
// h, as numpyImages reads them.
func numpyHeaderShape(h npy.Header, rows, cols int, channelsFirst bool) (Shape, error) {
	switch strings.TrimLeft(h.DType, "<>|=") {
	case "u1", "f4", "f8":
	default:
		return Shape{}, fmt.Errorf("%w: images of type %s: want uint8 or float32/float64", ErrFormat, h.DType)
	}
	n, r, k, c, _, err := numpyShape(h.Shape, rows, cols, channelsFirst)
	if err != nil {
		return Shape{}, err
	}
	return Shape{N: n, Rows: r, Cols: k, Channels: c}, nil
}

// shapeLabels sets the labels and classes of sh as NumPySet would from y.
func shapeLabels(sh *Shape, y *npy.Array) error {
	if len(y.Shape) == 0 || y.Shape[0] != sh.N || len(y.Shape) > 2 || len(y.Shape) == 2 && y.Shape[1] != 1 {
		return fmt.Errorf("%w: %d images, but the labels have shape %v", ErrFormat, sh.N, y.Shape)
	}
	var s Set
	if err := s.numpyLabels(y); err != nil {
		return err
	}
	sh.Labels, sh.Classes = true, len(s.Classes)
	return nil
}

// shapeTargets sets the target dimension of sh from the shape of the
// targets, as NumPySet would.
func shapeTargets(sh *Shape, shape []int) error {
	if len(shape) == 0 || shape[0] != sh.N || len(shape) > 2 || len(shape) == 2 && shape[1] < 1 {
		return fmt.Errorf("%w: %d images, but the targets have shape %v", ErrFormat, sh.N, shape)
	}
	sh.TargetDim = 1
	if len(shape) == 2 {
		sh.TargetDim = shape[1]
	}
	return nil
}

// PeekDerived returns the shape of the part called half of a derived set
// in dir, as its manifest gives it (ReadDerived checks the files against
// it).
func PeekDerived(dir, half string) (Shape, error) {
	m, err := readManifest(dir)
	if err != nil {
		return Shape{}, err
	}
	for _, p := range m.Parts {
		if p.Name != half {
			continue
		}
		if p.Count < 1 || p.Rows < 1 || p.Cols < 1 || p.Channels < 0 || p.Channels > MaxChannels || p.TargetDim < 0 {
			return Shape{}, fmt.Errorf("dataset: %s: %w: part %s of %d images of %d x %d x %d", filepath.Join(dir, manifestFile), ErrFormat, half, p.Count, p.Channels, p.Rows, p.Cols)
		}
		sh := Shape{N: p.Count, Rows: p.Rows, Cols: p.Cols, Channels: max(p.Channels, 1), TargetDim: p.TargetDim}
		for _, f := range p.Files {
			switch f.Role {
			case "labels":
				sh.Labels, sh.Classes = true, len(p.Classes)
			case "origin":
				sh.Origin = true
			}
		}
		return sh, nil
	}
	return Shape{}, fmt.Errorf("dataset: %s has no %s part", dir, half)
}

// PeekFolder returns the shape of a folder of class subfolders as
// ReadFolder with p would read it, before p's preprocessing: the images
// counted, the size and planes those of the first image (decoded: whether
// an image is colour depends on its pixels). A later image of another
// size makes ReadFolder refuse the folder; a later colour image makes the
// set colour (unless p says grey), so the planes are then a lower bound.
func PeekFolder(root string, p Preprocess) (Shape, error) {
	fsys := os.DirFS(root)
	show := func(name string) string { return filepath.Join(root, filepath.FromSlash(name)) }
	classes, total, err := listFolder(fsys, ".", show)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %w", err)
	}
	first := path.Join(classes[0].dir, classes[0].images[0])
	f, err := fsys.Open(first)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %s: %w", show(first), unwrapPath(err))
	}
	defer f.Close()
	raw, err := decodeRaw(f)
	if err != nil {
		return Shape{}, fmt.Errorf("dataset: %s: %w", show(first), err)
	}
	r, k := raw.size()
	c := 1
	if p.decodeChannels() != 1 && raw.colour() {
		c = 3
	}
	return Shape{N: total, Rows: r, Cols: k, Channels: c, Labels: true, Classes: len(classes)}, nil
}
