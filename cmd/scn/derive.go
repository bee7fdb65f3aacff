package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/experiment"
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
)

func newDerive() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "derive rotated|faces|occluded",
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

Train and evaluate on the result with --derived OUT (train uses its train part,
eval its test part), or name the IDX files (--idx-images with --idx-labels or
--idx-targets).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("derive needs a data set: rotated, faces or occluded")}
			}
			return usageError{fmt.Errorf("unknown derived set %q (want rotated, faces or occluded)", args[0])}
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(newDeriveRotated(), newDeriveFaces(false), newDeriveFaces(true))
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
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of every random choice: the same seed gives the same files")
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
			if nTrain < 1 || nTest < 1 {
				return usageError{fmt.Errorf("--train %d --test %d: want at least 1 image each", nTrain, nTest)}
			}
			dir, terms, err := digitFolder(f.data)
			if err != nil {
				return err
			}
			train, err := dataset.ReadIDX(filepath.Join(dir, "train-images-idx3-ubyte.gz"), filepath.Join(dir, "train-labels-idx1-ubyte.gz"))
			if err != nil {
				return err
			}
			test, err := dataset.ReadIDX(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
			if err != nil {
				return err
			}
			// No local paths: the same data give the same manifest anywhere.
			train.Source = terms + ", training set"
			test.Source = terms + ", test set"
			d, err := dataset.BuildRotated(train, test, nTrain, nTest, f.seed)
			if err != nil {
				return err
			}
			d.Manifest.Name = rotatedName
			return writeDerived(cmd.OutOrStdout(), d, f.out)
		},
	}
	f.add(cmd, "mnist/ (train- and t10k- IDX files)", rotatedName)
	cmd.Flags().IntVar(&nTrain, "train", 5000, "images drawn from the training set")
	cmd.Flags().IntVar(&nTest, "test", 5000, "images drawn from the test set")
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
			if perSubject < 1 {
				return usageError{fmt.Errorf("--per-subject %d: want at least 1", perSubject)}
			}
			if occluded && (nOcc < 0 || block < 1) {
				return usageError{fmt.Errorf("--images %d --block %d: want 0 or more images and a block of at least 1 pixel", nOcc, block)}
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
			return writeDerived(cmd.OutOrStdout(), d, f.out)
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
		cmd.Flags().IntVar(&nOcc, "images", 50, "training images that get a block")
		cmd.Flags().IntVar(&block, "block", 40, "side of the square block, pixels")
	}
	f.add(cmd, "orl_faces/ (s1 ... s40)", out)
	cmd.Flags().IntVar(&perSubject, "per-subject", 5, "training images per subject (the rest are for test)")
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

// writeDerived writes d into out, removes the files of a set written there
// before that the new one does not have, and says what it wrote and how to
// use it.
func writeDerived(w io.Writer, d *dataset.Derived, out string) error {
	stale := oldFiles(out)
	if err := d.Write(out); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range d.Manifest.Parts {
		for _, f := range p.Files {
			keep[f.Name] = true
		}
	}
	for _, name := range stale {
		if !keep[name] {
			if err := os.Remove(filepath.Join(out, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	m := d.Manifest
	fmt.Fprintf(w, "%s: %s, seed %d\n", out, m.Name, m.Seed)
	for _, p := range m.Parts {
		names := make([]string, len(p.Files))
		for i, f := range p.Files {
			names[i] = f.Name
		}
		fmt.Fprintf(w, "  %-5s %d images of %d x %d: %s\n", p.Name, p.Count, p.Rows, p.Cols, strings.Join(names, ", "))
	}
	if len(m.Occlusions) > 0 {
		fmt.Fprintf(w, "  %d training images occluded (manifest.json lists the blocks)\n", len(m.Occlusions))
	}
	model := "faces.scn"
	if m.Parts[0].TargetDim > 0 {
		model = "angle.scn"
	}
	fmt.Fprintf(w, "next: scn train --derived %s -o %s && scn eval %s --derived %s\n", out, model, model, out)
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
