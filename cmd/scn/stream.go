package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// Streamed fits (docs/stats.md): scn train reads labelled images shard by
// shard instead of all at once (IDX files, a NumPy array, a folder of
// class subfolders or a CSV file: a dataset.Stream) when the images and
// the fit would not fit in the memory limit, or when --stream asks for it.

// trainStream is a training set scn train streams (a dataset.Stream, which
// is an scn.Source with what is known of the set before reading it), with the
// preprocessing it applies and what it is, for the note.
type trainStream struct {
	dataset.Stream
	Prep dataset.Preprocess
	what string // "3 files", "x.npy", "the folder digits", ...
	// cfg and sel are the fit's configuration and selection, once the
	// presets' photo choice has seen the stream's shape.
	cfg scn.Config
	sel *scn.Selection
}

// idxLists reports whether the IDX flags name several files (a comma list
// or a glob pattern).
func (d *dataFlags) idxLists() bool {
	return strings.ContainsAny(d.idxImages+d.idxLabels, ",*?[")
}

// idxSource opens the IDX files of the flags as a stream of shards.
func (d *dataFlags) idxSource(p dataset.Preprocess) (*dataset.IDXSource, error) {
	if d.idxLabels == "" {
		return nil, usageError{fmt.Errorf("--%sidx-images with several files or a stream needs --%sidx-labels (regression targets are read whole)", d.prefix, d.prefix)}
	}
	images, err := dataset.ExpandFiles(d.idxImages)
	if err != nil {
		return nil, err
	}
	labels, err := dataset.ExpandFiles(d.idxLabels)
	if err != nil {
		return nil, err
	}
	if len(images) != len(labels) {
		return nil, usageError{fmt.Errorf("--%sidx-images names %d files and --%sidx-labels %d: give one label file per image file (paired in sorted order)", d.prefix, len(images), d.prefix, len(labels))}
	}
	return dataset.OpenIDXSource(images, labels, p)
}

// streamable says why the flags' training set cannot be streamed ("" if
// it can): labelled images from IDX files, a NumPy array, a folder or a
// CSV file, one source.
func (d *dataFlags) streamable() string {
	n := &d.numpy
	switch {
	case d.idxTargets != "" || n.targets != "" || n.npzTargets != "":
		return "regression targets are read whole"
	case d.derived != "":
		return "a --derived folder is read whole"
	case d.mat.file != "":
		return "a MAT-file is read whole"
	case d.idxImages == "" && d.folder == "" && d.csv == "" && !n.given():
		return "the built-in set is read whole"
	case d.idxImages != "" && d.idxLabels == "":
		return "--idx-images needs --idx-labels"
	case n.images != "" && n.labels == "":
		return "--npy-images needs --npy-labels"
	}
	if d.checkNumPyFlags() != nil || (d.rows == 0) != (d.cols == 0) {
		return "the data flags are inconsistent"
	}
	sources := 0
	for _, s := range []string{d.idxImages, d.folder, d.csv, n.images, n.npz} {
		if s != "" {
			sources++
		}
	}
	if sources > 1 {
		return "give one data source"
	}
	return ""
}

// openStream opens the flags' training set as a stream (streamable says
// whether it can be).
func (d *dataFlags) openStream(p dataset.Preprocess) (*trainStream, error) {
	n := &d.numpy
	var src dataset.Stream
	var what string
	var err error
	switch {
	case d.idxImages != "":
		var s *dataset.IDXSource
		if s, err = d.idxSource(p); err == nil {
			src, what = s, fmt.Sprintf("%d files", len(s.Images))
			if len(s.Images) == 1 {
				what = s.Images[0]
			}
		}
	case n.images != "":
		src, err = dataset.OpenNPYSource(n.images, n.labels, d.rows, d.cols, n.channelsFirst, p)
		what = n.images
	case n.npz != "":
		x, y := n.x, n.y
		if x == "" {
			x = "x"
		}
		if y == "" {
			y = "y"
		}
		src, err = dataset.OpenNPZSource(n.npz, x, y, d.rows, d.cols, n.channelsFirst, p)
		what = n.npz
	case d.folder != "":
		if archive, dir, tar := tarFolder(d.folder); tar {
			src, err = dataset.OpenFolderTarSource(archive, dir, p)
			what = "the archive " + d.folder
			break
		}
		src, err = dataset.OpenFolderSource(d.folder, p)
		what = "the folder " + d.folder
	case d.csv != "":
		src, err = dataset.OpenCSVSource(d.csv, d.rows, d.cols, p)
		what = d.csv
	}
	if err != nil {
		return nil, err
	}
	return &trainStream{Stream: src, Prep: p, what: what}, nil
}

// inMemory returns the bytes reading src whole and fitting cfg on it take.
func inMemory(cfg scn.Config, src dataset.Stream) int64 {
	sh := src.Shape()
	n, d := int64(sh.N), int64(sh.Dim())
	return n*(src.StoredBytes()+4*d) + cfg.Estimate(sh, nil).FitBytes()
}

// smallCSV is the share of the memory limit under which a CSV file is not
// considered for streaming without --stream: a whole read holds at most
// 12 bytes per pixel (its float64 values and float32 pixels) and a pixel
// takes at least 2 bytes of text, so its images take under 6/16 of the
// limit (and opening the stream would parse the file once more).
const smallCSV = 16

// streamPlan decides whether scn train streams its data: it returns the
// opened source when it does (nil otherwise), with a note for stderr.
// force is --stream; without it the fit streams when the images and the
// fit in memory would exceed the memory limit, the configuration can be
// streamed (with a hold-out selection, the default preset's, too) and the
// streamed fit fits in the limit (else the fit in memory is refused with
// its own advice).
//
// choose, when not nil, is the presets' photo choice: given the stream's
// shape it returns the configuration and selection to stream, and a note
// when they changed.
func (d *dataFlags) streamPlan(cfg scn.Config, sel *scn.Selection, force bool, statsOut string, choose func(dataset.Shape) (scn.Config, *scn.Selection, string)) (*trainStream, string, error) {
	b := currentMemCap()
	why := d.streamable()
	if !force {
		// Only a fit that can stream, on a source that can, is considered;
		// anything else goes the way it always went (read whole, checked
		// against the limit, with its own errors).
		if why != "" || cfg.StreamFits() != nil || (sel != nil && (sel.StreamFits() != nil || cfg.Local != nil)) || statsOut != "" || b.bytes <= 0 {
			return nil, "", nil
		}
		if d.csv != "" {
			if st, err := os.Stat(d.csv); err != nil || st.Size() < b.bytes/smallCSV {
				return nil, "", nil
			}
		}
	} else if why != "" {
		return nil, "", usageError{fmt.Errorf("--stream reads labelled images from IDX files (--idx-images and --idx-labels, several as a comma list or a glob), a NumPy array (--npy-images and --npy-labels, or --npz), a folder of class subfolders (--folder) or a CSV file (--csv): %s", why)}
	}
	p, err := d.preprocess()
	if err != nil {
		return nil, "", err
	}
	src, err := d.openStream(p)
	if err != nil {
		if !force {
			return nil, "", nil // the reader says what is wrong, as without streaming
		}
		return nil, "", err
	}
	whole := inMemory(cfg, src)
	if !force && whole <= b.bytes {
		return nil, "", nil
	}
	if f, ok := src.Stream.(*dataset.FolderSource); ok && !f.Resolved() {
		// Its planes were counted as 3: decide them (a scan of the images).
		if err := f.Resolve(context.Background()); err != nil {
			if !force {
				return nil, "", nil // read whole, the reader says what is wrong
			}
			return nil, "", err
		}
		if whole = inMemory(cfg, src); !force && whole <= b.bytes {
			return nil, "", nil
		}
	}
	sh := src.Shape()
	n, rows, cols, c := sh.N, sh.Rows, sh.Cols, sh.Channels
	if !force {
		why = fmt.Sprintf("in memory the %d images and the fit would take about %s, more than the limit of %s (%s)", n, formatBytes(whole), formatBytes(b.bytes), b.from)
	} else {
		why = "--stream"
	}
	var chosen string
	if choose != nil {
		if cfg, sel, chosen = choose(src.Shape()); chosen != "" && sel != nil {
			if !force {
				return nil, "", nil // selected in memory, checked against the limit there
			}
			return nil, "", usageError{fmt.Errorf("--stream on photos fits the preset's local nodes without model selection: drop --validation/--folds/--ridges, or drop --stream")}
		}
	}
	src.cfg, src.sel = cfg, sel
	if err := cfg.StreamFits(); err != nil {
		return nil, "", fmt.Errorf("--stream: %w", err)
	}
	switch {
	case sel != nil && sel.StreamFits() != nil:
		return nil, "", fmt.Errorf("--stream: %w: select with a hold-out (--validation), or drop --stream", sel.StreamFits())
	case sel != nil && cfg.Local != nil:
		return nil, "", usageError{fmt.Errorf("--stream with local nodes fits without model selection: drop --validation/--ridges (and give --ridge), or drop --stream")}
	case statsOut != "":
		return nil, "", fmt.Errorf("--stream: a streamed fit does not write --stats-out: sum the statistics with scn stats build per shard and scn stats merge")
	}
	need := streamNeed(cfg, sel, src)
	if !force && need > b.bytes {
		// Streamed it would not fit either: the fit in memory is refused
		// with its own advice (--block, --resize, ...), before the images
		// are read.
		return nil, "", nil
	}
	if err := b.check(need, fmt.Sprintf("streaming %s with --nodes %d over %d images of %d x %d x %d", cfg.Kind.Title(), cfg.MaxNodes, n, c, rows, cols), "lower --nodes"); err != nil {
		return nil, "", err
	}
	note := chosen + fmt.Sprintf("scn: note: streaming %d images from %s (%s): %s, about %s in memory; %s\n",
		n, src.what, why, streamPassesText(cfg, sel), formatBytes(need), streamProgressText(cfg))
	return src, note, nil
}

// streamPassesText says how many times a streamed fit of cfg reads the
// data.
func streamPassesText(cfg scn.Config, sel *scn.Selection) string {
	var s string
	if cfg.Local != nil {
		s = fmt.Sprintf("%d passes over the data (the planes' moments, ", cfg.StreamPasses())
		if cfg.Local.Whiten {
			s += "the patches' whitening, "
		}
		if cfg.Local.Second != nil {
			s += "the second layer's planes' moments, "
		}
		if cfg.Local.Standardize {
			s += "the pooled outputs' means and deviations, "
		}
		s += "the Gram sums)"
	} else if cfg.Kind.Choice != scn.Supervised {
		s = "two passes over the data"
	} else {
		per := "one per block"
		if cfg.Pairs && cfg.Standardize {
			per = "two per block (the pair candidates' spreads, then the block)"
		}
		s = fmt.Sprintf("%d passes over the data (%s of %d nodes, and two more)", cfg.StreamPasses(), per, max(cfg.BlockSize, 1))
	}
	if sel != nil {
		s += fmt.Sprintf(", and two for the selection on a %g hold-out (the labels, the held-out images)", sel.Validation)
	}
	return s
}

// streamProgressText says when a streamed fit of cfg reports progress.
func streamProgressText(cfg scn.Config) string {
	if cfg.Local != nil {
		return "no progress until the last pass ends"
	}
	if cfg.Kind.Choice != scn.Supervised {
		return "no progress until the second pass ends"
	}
	return "a block's nodes are reported when the next pass has measured their residual"
}

// streamNeed is the memory a streamed fit of cfg on src takes: the fit's
// sums and factor, and the buffers of a shard (as stored, decoded and
// prepared).
func streamNeed(cfg scn.Config, sel *scn.Selection, src *trainStream) int64 {
	sh := src.Shape()
	return cfg.EstimateStream(sh, sel).Total() + int64(dataset.DefaultChunk)*(src.StoredBytes()+3*4*int64(sh.Dim()))
}

// printStreamPlan prints what --dry-run prints for a streamed fit.
func printStreamPlan(w io.Writer, cfg scn.Config, sel *scn.Selection, src *trainStream) {
	sh := src.Shape()
	rows, cols := sh.Rows, sh.Cols
	if c := cfg.ForImages(rows, cols); c.FieldMax != cfg.FieldMax {
		cfg = c
	}
	fmt.Fprintf(w, "learner     %s, %d nodes at most\n", cfg.Kind.Title(), cfg.MaxNodes)
	fmt.Fprintf(w, "data        %d images of %d x %d x %d, %d outputs, streamed from %s in shards of %d images\n",
		src.Len(), rows, cols, src.Chans(), len(src.Classes()), src.what, dataset.DefaultChunk)
	if cfg.FieldMax > 0 {
		fmt.Fprintf(w, "fields      %d to %d pixels\n", cfg.FieldMin, cfg.FieldMax)
	}
	if sel != nil {
		fmt.Fprintf(w, "selection   L and the ridge term on a %g hold-out of the stream (streamed: no k-fold)\n", sel.Validation)
	}
	need := streamNeed(cfg, sel, src)
	fmt.Fprintf(w, "memory      %s in all, %d bytes (streamed: %s)\n", formatBytes(need), need, streamPassesText(cfg, sel))
	fmt.Fprintf(w, "limit       %s (%s)\n", formatBytes(memory.bytes), memory.from)
}

// trainStreamed fits cfg on the stream and saves the model; it saves
// nothing when interrupted (no node is complete before the pass ends).
func trainStreamed(cmd *cobra.Command, cfg scn.Config, sel *scn.Selection, src *trainStream, p dataset.Preprocess, out string, quiet bool) error {
	sh := src.Shape()
	rows, cols := sh.Rows, sh.Cols
	if c := cfg.ForImages(rows, cols); c.FieldMax != cfg.FieldMax {
		fmt.Fprintf(cmd.ErrOrStderr(), "scn: note: receptive fields of %d to %d pixels (the fast preset's 5 to 27 for 28 x 28, scaled to %d x %d); --field sets them\n", c.FieldMin, c.FieldMax, rows, cols)
		cfg = c
	}
	// As for a fit in memory: keep the collector's slack small beside the
	// factor and the shard buffers the streamed fit holds.
	setGCSlack(cfg.EstimateStream(sh, nil).Stream)
	bar := newProgress(cfg.MaxNodes, cfg.Kind.Title(), quiet)
	var m *scn.Model
	var err error
	if sel != nil {
		if sel.Grow {
			sel.Afford = func(next scn.Config) error {
				return currentMemCap().check(streamNeed(next, sel, src), fmt.Sprintf("streaming %s with %d nodes", next.Kind.Title(), next.MaxNodes), "growth stops here")
			}
			sel.Growing = func(next int) { bar.grow(cmd.ErrOrStderr(), next) }
		}
		m, err = cfg.SelectStream(cmd.Context(), src, *sel, bar.step)
	} else {
		m, err = cfg.FitStream(cmd.Context(), src, bar.step)
	}
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			if cfg.Kind.Choice == scn.Supervised {
				return interruptHint{err, "nothing saved (an interrupted streamed fit returns no model)"}
			}
			return interruptHint{err, "nothing saved (a streamed fit has no node before its pass ends)"}
		}
		return err
	}
	// What recordData records of the set a whole read gives.
	set := &dataset.Set{Channels: src.Chans()}
	m.Preprocessing = p.Record(set)
	if m.Meta == nil {
		m.Meta = map[string]string{}
	}
	m.Meta[metaSource] = src.Describe()
	m.Meta[metaInverted] = fmt.Sprintf("%d of %d", src.Inverted(), src.Len())
	if err := m.Save(out); err != nil {
		return err
	}
	summary(cmd.OutOrStdout(), m)
	if m.Selection != nil {
		fmt.Fprintln(cmd.OutOrStdout(), selectionLine(m.Selection))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "saved %s\n", out)
	return nil
}

// readIDXList reads several IDX files (a comma list or glob of images and
// of labels, paired in order) into one set.
func (d *dataFlags) readIDXList() (*dataset.Set, error) {
	src, err := d.idxSource(dataset.Preprocess{})
	if err != nil {
		return nil, err
	}
	return dataset.ReadIDXSource(src)
}

// growUpdate is scn update --grow: k supervised nodes chosen on the
// residual m leaves on the new images, then the least squares of all the
// nodes over the old images (old, checked against the statistics they
// were summed into) and the new ones.
func growUpdate(cmd *cobra.Command, m *scn.Model, oldStats *scn.Stats, d, old *dataFlags, k int, out, sOut string) error {
	switch {
	case k == 0:
		return usageError{fmt.Errorf("the --old-* flags are for --grow: a plain update needs only the statistics of the old images")}
	case !old.given():
		return usageError{fmt.Errorf("--grow needs the old training images (--old-idx-images and --old-idx-labels, or another --old-* source): the new nodes' outputs on them enter the least squares, and the statistics of the old images hold only the old nodes' sums (docs/stats.md)")}
	case m.Kind.Choice != scn.Supervised:
		return usageError{fmt.Errorf("--grow adds supervised nodes (scn, 2dscn); %s draws its nodes at random: refit with more --nodes", m.Kind)}
	case m.Local != nil:
		return usageError{fmt.Errorf("--grow adds global nodes on the residual; a model of local nodes is updated without it (its output weights only)")}
	}
	p, err := dataset.RecordedPreprocess(m)
	if err != nil {
		return err
	}
	load := func(f *dataFlags) (*dataset.Set, scn.Problem, error) {
		s, err := f.load("train", p)
		if err != nil {
			return nil, scn.Problem{}, err
		}
		if err := checkShape(m, s); err != nil {
			return nil, scn.Problem{}, err
		}
		prob, err := s.Problem()
		return s, prob, err
	}
	_, oldProb, err := load(old)
	if err != nil {
		return err
	}
	if err := oldImagesError(oldStats.CheckImages(oldProb)); err != nil {
		return err
	}
	newSet, newProb, err := load(d)
	if err != nil {
		return err
	}
	nm, merged, err := m.GrowUpdate(cmd.Context(), oldStats, oldProb, newProb, k)
	if err != nil {
		return oldImagesError(err)
	}
	if err := saveUpdate(cmd.OutOrStdout(), nm, merged, out, sOut); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "grown by %d nodes on the residual of %d new images, solved over %d images: saved %s\n", nm.Nodes()-m.Nodes(), newSet.Len(), merged.N, out)
	return nil
}

// oldImagesError says in the command's words (its flags) that the --old-*
// images are not those the statistics were summed over
// (scn.ImagesMismatchError); other errors pass as they are.
func oldImagesError(err error) error {
	var e *scn.ImagesMismatchError
	switch {
	case !errors.As(err, &e):
		return err
	case e.Class == "":
		return fmt.Errorf("the --old-* images are %d, the statistics (--stats) were summed over %d: give the model's training images", e.Images, e.Summed)
	}
	return fmt.Errorf("the --old-* images have other class counts than the statistics (--stats) for class %q: give the model's training images", e.Class)
}
