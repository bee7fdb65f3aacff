package scnbeam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// Shard is one unit of work of the pipeline: a data file (with its labels
// or targets file), or a range of its images. Index numbers the shards
// from 0 in the order of the input: the combine adds them in that order.
type Shard struct {
	Index int
	// Format is "idx", "npy", "npz", "csv" or "derived" (a folder written
	// by scn derive: its Part).
	Format  string
	Images  string // the data file (or folder)
	Labels  string // labels file (idx, npy), or ""
	Targets string // targets file (idx, npy), or ""
	Part    string // part of a derived folder
	// Rows and Cols give the image shape of CSV and NumPy files (0: square).
	Rows, Cols int
	// Lo and Hi select the images [Lo, Hi) of the file; Hi = 0 takes all.
	Lo, Hi int
	// First is the place of the shard's first image in the whole input
	// (the shards before it, in order): an augmented recipe's copies of
	// its images are those of their places (scn.Model.StatsFrom). Places
	// sets it; 0 otherwise.
	First int
}

// Name says which images the shard is, for errors.
func (s Shard) Name() string {
	if s.Hi > 0 {
		return fmt.Sprintf("%s [%d, %d)", s.Images, s.Lo, s.Hi)
	}
	return s.Images
}

// MatchOptions say how Match turns globs into shards.
type MatchOptions struct {
	// Rows and Cols: image shape of CSV and NumPy files (0: square).
	Rows, Cols int
	// Part of derived folders to read (default "train").
	Part string
	// ShardImages > 0 cuts each file into ranges of that many images
	// (each range read from the whole file: files are counted here).
	ShardImages int
}

// Match returns the shards of the files the globs match, in the globs'
// order and, within a glob, sorted by name. A file of images is paired
// with its labels (or targets) by name: the last "images" of its base name
// replaced by "labels" (or "targets"), and "idx3" by "idx1" (MNIST's
// train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz); files whose
// base name holds "labels" or "targets" are partners, not shards. .npz and
// .csv files and folders written by scn derive hold their labels.
func Match(globs []string, o MatchOptions) ([]Shard, error) {
	var out []Shard
	seen := map[string]bool{}
	for _, g := range globs {
		paths, err := filepath.Glob(g)
		if err != nil {
			return nil, fmt.Errorf("scnbeam: --input %q: %w", g, err)
		}
		n := len(out)
		for _, p := range paths {
			if seen[p] {
				return nil, fmt.Errorf("scnbeam: %s is matched twice (--input %q): it would be summed twice", p, g)
			}
			seen[p] = true
			sh, ok, err := shardOf(p, o)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, sh)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("scnbeam: --input %q matches no data file", g)
		}
	}
	if o.ShardImages > 0 {
		return cut(out, o.ShardImages)
	}
	for i := range out {
		out[i].Index = i
	}
	return out, nil
}

// shardOf returns the shard of path, or ok = false for a partner file.
func shardOf(path string, o MatchOptions) (Shard, bool, error) {
	sh := Shard{Images: path, Rows: o.Rows, Cols: o.Cols}
	info, err := os.Stat(path)
	if err != nil {
		return sh, false, fmt.Errorf("scnbeam: %w", err)
	}
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	switch {
	case info.IsDir():
		sh.Format, sh.Part = "derived", o.Part
		if sh.Part == "" {
			sh.Part = "train"
		}
		return sh, true, nil
	case strings.HasSuffix(lower, ".npz"):
		sh.Format = "npz"
		return sh, true, nil
	case strings.HasSuffix(lower, ".csv"):
		sh.Format = "csv"
		return sh, true, nil
	case strings.Contains(lower, "labels") || strings.Contains(lower, "targets"):
		return sh, false, nil
	}
	sh.Format = "idx"
	if strings.HasSuffix(lower, ".npy") {
		sh.Format = "npy"
	}
	i := strings.LastIndex(base, "images")
	if i < 0 {
		return sh, false, fmt.Errorf("scnbeam: %s: cannot find its labels: the name of an image file must hold \"images\" (its labels file: the same name with \"labels\", or \"targets\")", path)
	}
	partner := func(word string) string {
		name := base[:i] + word + base[i+len("images"):]
		if sh.Format == "idx" {
			name = strings.Replace(name, "idx3", "idx1", 1)
		}
		return filepath.Join(filepath.Dir(path), name)
	}
	if p := partner("labels"); exists(p) {
		sh.Labels = p
	} else if p := partner("targets"); exists(p) {
		sh.Targets = p
	} else {
		return sh, false, fmt.Errorf("scnbeam: %s: neither %s nor %s exists", path, partner("labels"), partner("targets"))
	}
	return sh, true, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Places sets each shard's First: the images of the shards before it, in
// order, counted from the files' headers (NumPy, IDX, derived folders)
// or, for CSV files, by reading them. Only an augmented recipe's
// statistics depend on it (scn.Model.StatsFrom): without it each shard's
// copies would be drawn as if it were the whole set, and the result would
// depend on where the shards break.
func Places(shards []Shard) error {
	first := 0
	for i := range shards {
		n, err := shardLen(shards[i])
		if err != nil {
			return err
		}
		shards[i].First = first
		first += n
	}
	return nil
}

// shardLen returns the images of a shard.
func shardLen(sh Shard) (int, error) {
	if sh.Hi > 0 {
		return sh.Hi - sh.Lo, nil
	}
	var (
		shape dataset.Shape
		err   error
	)
	switch sh.Format {
	case "idx":
		shape, err = dataset.PeekIDX([]string{sh.Images}, []string{sh.Labels}, sh.Targets)
	case "npy":
		shape, err = dataset.PeekNPY(sh.Images, sh.Labels, sh.Targets, sh.Rows, sh.Cols, false)
	case "npz":
		shape, err = dataset.PeekNPZ(sh.Images, "x", "y", false, sh.Rows, sh.Cols, false)
	case "derived":
		shape, err = dataset.PeekDerived(sh.Images, sh.Part)
	default:
		s, rerr := readRaw(sh)
		if rerr != nil {
			return 0, rerr
		}
		return s.Len(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("scnbeam: shard %d: %s: %w", sh.Index, sh.Images, err)
	}
	return shape.N, nil
}

// cut splits each shard into ranges of size images, numbering them.
func cut(shards []Shard, size int) ([]Shard, error) {
	var out []Shard
	for _, sh := range shards {
		s, err := readRaw(sh)
		if err != nil {
			return nil, err
		}
		for lo := 0; lo < s.Len(); lo += size {
			r := sh
			r.Lo, r.Hi, r.Index = lo, min(s.Len(), lo+size), len(out)
			out = append(out, r)
		}
	}
	return out, nil
}

// Read returns the shard's images, prepared with the recipe's recorded
// preprocessing and checked against the recipe's image size.
func Read(sh Shard, recipe *scn.Model) (*dataset.Set, error) {
	p, err := dataset.RecordedPreprocess(recipe)
	if err != nil {
		return nil, err
	}
	s, err := readRaw(sh)
	if err != nil {
		return nil, err
	}
	if sh.Hi > 0 {
		if sh.Lo < 0 || sh.Hi > s.Len() || sh.Lo >= sh.Hi {
			return nil, fmt.Errorf("scnbeam: %s: the file holds %d images", sh.Name(), s.Len())
		}
		idx := make([]int, sh.Hi-sh.Lo)
		for i := range idx {
			idx[i] = sh.Lo + i
		}
		s = s.Subset(idx)
	}
	if (p.Invert != "" && p.Invert != "no") || p.MNIST || p.ResizeRows > 0 || p.ResizeCols > 0 {
		if s, err = dataset.Prepare(s, p); err != nil {
			return nil, fmt.Errorf("scnbeam: %s: %w", sh.Name(), err)
		}
	}
	if s.Rows != recipe.Rows || s.Cols != recipe.Cols {
		return nil, fmt.Errorf("scnbeam: %s: images of %d x %d, the recipe's nodes take %d x %d", sh.Name(), s.Rows, s.Cols, recipe.Rows, recipe.Cols)
	}
	return s, nil
}

// readRaw reads the whole file of a shard with the dataset package.
func readRaw(sh Shard) (*dataset.Set, error) {
	var (
		s   *dataset.Set
		err error
	)
	switch sh.Format {
	case "idx":
		s, err = readIDX(sh)
	case "npy":
		s, err = dataset.ReadNPY(sh.Images, sh.Labels, sh.Targets, sh.Rows, sh.Cols, false)
	case "npz":
		s, err = dataset.ReadNPZ(sh.Images, "x", "y", false, sh.Rows, sh.Cols, false)
	case "csv":
		s, err = dataset.ReadCSV(sh.Images, sh.Rows, sh.Cols)
	case "derived":
		s, err = readDerived(sh)
	default:
		err = fmt.Errorf("unknown format %q", sh.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("scnbeam: shard %d: %s: %w", sh.Index, sh.Images, err)
	}
	if s.Len() == 0 {
		return nil, fmt.Errorf("scnbeam: shard %d: %s: no images", sh.Index, sh.Images)
	}
	return s, nil
}

func readIDX(sh Shard) (*dataset.Set, error) {
	if sh.Labels != "" {
		return dataset.ReadIDX(sh.Images, sh.Labels)
	}
	s, err := dataset.ReadIDX(sh.Images, "")
	if err != nil {
		return nil, err
	}
	t, dim, err := dataset.ReadIDXTargets(sh.Targets)
	if err != nil {
		return nil, err
	}
	if len(t) != s.Len()*dim {
		return nil, fmt.Errorf("%s holds %d targets of dimension %d for %d images", sh.Targets, len(t)/max(dim, 1), dim, s.Len())
	}
	s.Targets, s.TargetDim = t, dim
	return s, nil
}

func readDerived(sh Shard) (*dataset.Set, error) {
	d, err := dataset.ReadDerived(sh.Images)
	if err != nil {
		return nil, err
	}
	s := d.Part(sh.Part)
	if s == nil {
		return nil, errors.New("no part " + sh.Part)
	}
	return s, nil
}
