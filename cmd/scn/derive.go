package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/experiment"
	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/spf13/cobra"
)

// Terms of the sources the derived sets are made from, copied into their
// manifests and README files.
const (
	mnistTerms   = "MNIST (Yann LeCun, Corinna Cortes, Christopher J. C. Burges; http://yann.lecun.com/exdb/mnist/), usually cited under CC BY-SA 3.0"
	fashionTerms = "Fashion-MNIST (Zalando Research; https://github.com/zalandoresearch/fashion-mnist), MIT licence"
	orlTerms     = "ORL / AT&T Database of Faces (Olivetti Research Laboratory, Cambridge; 40 subjects x 10 images of 112 x 92), research use, credit Olivetti Research Laboratory"
)

// Default folder names of the derived sets (under the current folder).
const (
	rotatedName  = "rotated-mnist"
	facesName    = "orl-split"
	occludedName = "orl-occluded"
	hueName      = "hue-digits"
)

func newDerive() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "derive rotated|faces|occluded|hue|distorted",
		Short: "Write the paper's derived data sets as ordinary files",
		Long: `Build a data set of the paper's experiments from the original data and write
it to a folder as ordinary files: gzip IDX images, labels, float64 targets and
origin indices (what each image's index was in the source set), manifest.json
(seed, parameters, sources and their terms, SHA-256 of every file) and
README.md. The same data, --seed and parameters give the same files.

  rotated   E1: digits drawn at random from MNIST's training and test sets,
            each rotated about its centre by an angle uniform in [-45, 45]
            degrees; the target is the angle, the label the digit
  faces     E3/E4: ORL, per subject a random half for training, the rest for test
  occluded  E5: the faces split (same seed, same split), then --images training
            images get a randomly placed --block x --block square replaced by
            part of an unrelated natural image (a photograph without faces)
  hue       colour classes that differ in hue only: the built-in digits, each
            tinted with one of --hues hues of equal luma (the class); read
            with --grey every class of an image is the same bits
  distorted MNIST's training set and --copies K random elastic and affine
            distortions of each image, as IDX shards (part-00000 ... ), for
            streamed fits

Train and evaluate on the result with --derived OUT (train uses its train part,
eval its test part), or name the IDX files (--idx-images with --idx-labels or
--idx-targets).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("derive needs a data set: rotated, faces, occluded, hue or distorted")}
			}
			return usageError{fmt.Errorf("unknown derived set %q (want rotated, faces, occluded, hue or distorted)", args[0])}
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(newDeriveRotated(), newDeriveFaces(false), newDeriveFaces(true), newDeriveHue(), newDeriveDistorted())
	return cmd
}

// deriveFlags are the flags every derive command takes.
type deriveFlags struct {
	data, out string
	seed      uint64
}

func (f *deriveFlags) add(cmd *cobra.Command, what, defaultOut string) {
	cmd.Flags().StringVar(&f.data, "data", experiment.DefaultDataDir, "folder holding "+what+" (or that folder itself)")
	cmd.Flags().StringVarP(&f.out, "out", "o", defaultOut, "folder to write the set into")
	uint64Var(cmd.Flags(), &f.seed, "seed", 1, "seed of every random choice: the same seed gives the same files")
}

func newDeriveRotated() *cobra.Command {
	var (
		f             deriveFlags
		nTrain, nTest int
	)
	cmd := &cobra.Command{
		Use:   "rotated",
		Short: "E1: MNIST digits rotated by U[-45, 45] degrees, the angle as target",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDeriveOut(f.out); err != nil {
				return err
			}
			train, err := readDigits(f.data, "train")
			if err != nil {
				return err
			}
			test, err := readDigits(f.data, "t10k")
			if err != nil {
				return err
			}
			d, err := dataset.BuildRotated(train, test, nTrain, nTest, f.seed)
			if err != nil {
				return err
			}
			d.Manifest.Name = rotatedName
			return writeDerived(cmd.Context(), cmd.OutOrStdout(), d, f.out)
		},
	}
	f.add(cmd, "mnist/ (train- and t10k- IDX files)", rotatedName)
	intVar(cmd.Flags(), &nTrain, "train", 5000, 1, 1<<24, "images drawn from the training set")
	intVar(cmd.Flags(), &nTest, "test", 5000, 1, 1<<24, "images drawn from the test set")
	return cmd
}

// newDeriveFaces makes "derive faces" or, with occluded, "derive occluded".
func newDeriveFaces(occluded bool) *cobra.Command {
	var (
		f                       deriveFlags
		perSubject, nOcc, block int
	)
	cmd := &cobra.Command{
		Use:   "faces",
		Short: "E3/E4: ORL faces, per subject a random half for training and the rest for test",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDeriveOut(f.out); err != nil {
				return err
			}
			dir, err := orlFolder(f.data)
			if err != nil {
				return err
			}
			faces, err := dataset.ReadORL(dir)
			if err != nil {
				return err
			}
			faces.Source = orlTerms
			var d *dataset.Derived
			if occluded {
				d, err = dataset.BuildOccluded(faces, perSubject, nOcc, block, f.seed)
				if err == nil {
					d.Manifest.Name = occludedName
				}
			} else {
				d, err = dataset.BuildFaceSplit(faces, perSubject, f.seed)
				if err == nil {
					d.Manifest.Name = facesName
				}
			}
			if err != nil {
				return err
			}
			return writeDerived(cmd.Context(), cmd.OutOrStdout(), d, f.out)
		},
	}
	out := facesName
	if occluded {
		out = occludedName
		cmd.Use = "occluded"
		cmd.Short = "E5: the faces split with occluded training images"
		cmd.Long = "The faces split of the same seed (the same images for training and test), then\n" +
			"--images training images chosen at random each get a --block x --block square at\n" +
			"a random place replaced by the same rows and columns of an unrelated natural\n" +
			"image, scaled to cover the face. Test images are clean. manifest.json lists\n" +
			"every block. The image is built in:\n\n" + dataset.OccluderSource + "."
		intVar(cmd.Flags(), &nOcc, "images", 50, 0, 1<<24, "training images that get a block")
		intVar(cmd.Flags(), &block, "block", 40, 1, 1<<12, "side of the square block, pixels")
	}
	f.add(cmd, "orl_faces/ (s1 ... s40)", out)
	intVar(cmd.Flags(), &perSubject, "per-subject", 5, 1, 1<<12, "training images per subject (the rest are for test)")
	return cmd
}

func newDeriveHue() *cobra.Command {
	var (
		out, pngDir string
		seed        uint64
		hues        int
	)
	cmd := &cobra.Command{
		Use:   "hue",
		Short: "Colour classes that differ in hue only: the built-in digits tinted with one of --hues hues of equal luma",
		Long: `Tint each image of the built-in digits (3000 training, 1000 test images of
28 x 28) with one of --hues hues, dealt at random: the hue is the class, the
digit is not. A pixel of grey level v becomes an 8-bit colour of luma v/2
whose luma 0.299 R + 0.587 G + 0.114 B is exactly that of the grey, so that
read as grey (--grey) every class's version of an image is the same image,
bit for bit, and no learner can beat chance; read as colour the hue is plain.
The set tells whether a learner uses colour:

  scn derive hue -o hue-digits
  scn train --derived hue-digits -o hue.scn && scn eval hue.scn --derived hue-digits
  scn train --derived hue-digits --grey -o grey.scn    # near chance

--png DIR also writes the images as PNG files, DIR/train/<hue>/*.png and
DIR/test/<hue>/*.png, for --folder.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDeriveOut(out); err != nil {
				return err
			}
			train, test, err := dataset.Default()
			if err != nil {
				return err
			}
			train.Source = dataset.DefaultSource + ", train; " + mnistTerms
			test.Source = dataset.DefaultSource + ", test; " + mnistTerms
			d, err := dataset.BuildHue(train, test, hues, seed)
			if err != nil {
				return err
			}
			d.Manifest.Name = hueName
			if err := writeDerived(cmd.Context(), cmd.OutOrStdout(), d, out); err != nil {
				return err
			}
			if pngDir == "" {
				return nil
			}
			for _, p := range d.Parts {
				if err := dataset.WritePNGFolder(filepath.Join(pngDir, p.Name), p.Set); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: the same images as PNG files (train/, test/): scn train --folder %s --test-folder %s\n",
				pngDir, filepath.Join(pngDir, "train"), filepath.Join(pngDir, "test"))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", hueName, "folder to write the set into")
	cmd.Flags().StringVar(&pngDir, "png", "", "also write the images as PNG files below this folder (train/<hue>/, test/<hue>/)")
	uint64Var(cmd.Flags(), &seed, "seed", 1, "seed of the hue each image gets: the same seed gives the same files")
	intVar(cmd.Flags(), &hues, "hues", 3, 2, 64, "hues, the classes")
	return cmd
}

// digitFolder finds the MNIST-layout folder: data/mnist, or data itself
// when it holds the IDX files. It returns the folder and the terms of the
// set it holds.
func digitFolder(data string) (dir, terms string, err error) {
	const probe = "train-images-idx3-ubyte.gz"
	dir = filepath.Join(data, "mnist")
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		if _, err2 := os.Stat(filepath.Join(data, probe)); err2 != nil {
			return "", "", fmt.Errorf("no MNIST files in %s or %s (give --data, the folder holding mnist/): %w", data, dir, err)
		}
		dir = data
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	switch strings.ToLower(filepath.Base(abs)) {
	case "mnist":
		terms = mnistTerms
	case "fashion-mnist":
		terms = fashionTerms
	default:
		terms = "IDX files of " + abs + " (check their terms before sharing the derived set)"
	}
	return dir, terms, nil
}

// orlFolder finds the ORL folder: data/orl_faces, or data itself when it
// holds s1/.
func orlFolder(data string) (string, error) {
	dir := filepath.Join(data, "orl_faces")
	if _, err := os.Stat(filepath.Join(dir, "s1")); err != nil {
		if _, err2 := os.Stat(filepath.Join(data, "s1")); err2 != nil {
			return "", fmt.Errorf("no ORL faces in %s or %s (give --data, the folder holding orl_faces/): %w", data, dir, err)
		}
		dir = data
	}
	return dir, nil
}

// writeDerived writes d into the folder out, and says what it wrote and how
// to use it. The set is written into a new folder beside out and put in
// its place only when complete (over a set written there before, in one
// step where the system allows it), so that a failed or interrupted derive
// leaves what out held as it was. out must be new, empty, or hold a
// derived set and nothing else.
func writeDerived(ctx context.Context, w io.Writer, d *dataset.Derived, out string) error {
	m, err := writeDerivedBy(ctx, w, out, func(tmp string) (dataset.Manifest, error) {
		err := d.Write(tmp)
		return d.Manifest, err
	})
	if err != nil {
		return err
	}
	model := "faces.scn"
	switch {
	case m.Parts[0].TargetDim > 0:
		model = "angle.scn"
	case m.Name == hueName:
		model = "hue.scn"
	}
	fmt.Fprintf(w, "next: scn train --derived %s -o %s && scn eval %s --derived %s\n", out, model, model, out)
	return nil
}

// writeDerivedBy is writeDerived with the files written by write into the
// new folder it is given; it returns write's manifest.
func writeDerivedBy(ctx context.Context, w io.Writer, out string, write func(tmp string) (dataset.Manifest, error)) (dataset.Manifest, error) {
	if err := checkDeriveOut(out); err != nil {
		return dataset.Manifest{}, err
	}
	out = filepath.Clean(out)
	var m dataset.Manifest
	var werr error
	err := atomicfile.WriteFolder(out, func(tmp string) error {
		if m, werr = write(tmp); werr != nil {
			return werr
		}
		if err := ctx.Err(); err != nil {
			m, werr = dataset.Manifest{}, interruptHint{err, out + " left as it was"}
		}
		return werr
	})
	if werr != nil {
		return m, werr
	}
	if err != nil {
		return dataset.Manifest{}, fmt.Errorf("--out %s: %w", out, err)
	}
	fmt.Fprintf(w, "%s: %s, seed %d\n", out, m.Name, m.Seed)
	for _, p := range m.Parts {
		names := make([]string, len(p.Files))
		for i, f := range p.Files {
			names[i] = f.Name
		}
		planes := ""
		if p.Channels > 1 {
			planes = fmt.Sprintf(" x %d planes", p.Channels)
		}
		fmt.Fprintf(w, "  %-5s %d images of %d x %d%s: %s\n", p.Name, p.Count, p.Rows, p.Cols, planes, strings.Join(names, ", "))
	}
	if len(m.Occlusions) > 0 {
		fmt.Fprintf(w, "  %d training images occluded (manifest.json lists the blocks)\n", len(m.Occlusions))
	}
	return m, nil
}

// checkDeriveOut checks the folder a derived set is to replace, before
// any work: a name, not the current folder or one holding it, and new,
// empty, or holding a derived set and nothing else.
func checkDeriveOut(out string) error {
	if out == "" {
		return usageError{fmt.Errorf("--out: empty folder name")}
	}
	out = filepath.Clean(out)
	if abs, err := filepath.Abs(out); err == nil {
		if wd, err := os.Getwd(); err == nil && (wd == abs || strings.HasPrefix(wd, abs+string(filepath.Separator)) || abs == filepath.Dir(abs)) {
			return usageError{fmt.Errorf("--out %s is the current folder or holds it: the set replaces the whole folder; give a folder of its own", out)}
		}
	}
	st, err := os.Stat(out)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("--out %s: not a folder", out)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--out %s: %w", out, unwrapPathErr(err))
	case err == nil:
		return onlyDerivedFiles(out)
	}
	return nil
}

// onlyDerivedFiles refuses a folder that holds anything but a derived set
// (its manifest, README and the files the manifest lists), which replacing
// the folder would lose.
func onlyDerivedFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, unwrapPathErr(err))
	}
	known := map[string]bool{"manifest.json": true, "README.md": true}
	for _, name := range oldFiles(dir) {
		known[name] = true
	}
	var other []string
	for _, e := range entries {
		if !known[e.Name()] {
			other = append(other, e.Name())
		}
	}
	if len(other) > 0 {
		return fmt.Errorf("--out %s holds files that are not part of a derived set (%s); the set replaces the whole folder: give a new or empty folder", dir, nameList(other))
	}
	return nil
}

// oldFiles lists the files a derived set already in dir has, per its
// manifest; none if there is none.
func oldFiles(dir string) []string {
	js, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil
	}
	var m dataset.Manifest
	if json.Unmarshal(js, &m) != nil {
		return nil
	}
	var names []string
	for _, p := range m.Parts {
		for _, f := range p.Files {
			if f.Name != "" && filepath.Base(f.Name) == f.Name {
				names = append(names, f.Name)
			}
		}
	}
	return names
}

// readDigits reads MNIST's training ("train") or test ("t10k") IDX pair
// from the digits folder of --data, its source named by the data's terms
// (no local paths: the same data give the same manifest anywhere).
func readDigits(data, part string) (*dataset.Set, error) {
	dir, terms, err := digitFolder(data)
	if err != nil {
		return nil, err
	}
	s, err := dataset.ReadIDX(filepath.Join(dir, part+"-images-idx3-ubyte.gz"), filepath.Join(dir, part+"-labels-idx1-ubyte.gz"))
	if err != nil {
		return nil, err
	}
	s.Source = terms + ", training set"
	if part == "t10k" {
		s.Source = terms + ", test set"
	}
	return s, nil
}
