//go:build ignore

// gen_derived writes the paper's derived data sets as ordinary files (gzip
// IDX, manifest.json, README.md), each reproducible from its seed:
//
//	out/rotated-mnist   E1: 5000 + 5000 MNIST digits rotated by U[-45, 45] degrees
//	out/orl-split       E3: per subject 5 training and 5 test images
//	out/orl-occluded    E5: the same split, 50 training images with a 40 x 40 block
//
// Run from this folder:
//
//	go run gen_derived.go -data ../../shared/data -out /tmp/scn-derived -seed 1
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/dataset"
)

func main() {
	data := flag.String("data", "../../shared/data", "folder with mnist/ and orl_faces/")
	out := flag.String("out", "derived", "folder to write the sets into")
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	flag.Parse()
	if err := run(*data, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(data, out string, seed uint64) error {
	mnist := filepath.Join(data, "mnist")
	train, err := dataset.ReadIDX(filepath.Join(mnist, "train-images-idx3-ubyte.gz"), filepath.Join(mnist, "train-labels-idx1-ubyte.gz"))
	if err != nil {
		return err
	}
	test, err := dataset.ReadIDX(filepath.Join(mnist, "t10k-images-idx3-ubyte.gz"), filepath.Join(mnist, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		return err
	}
	const mnistTerms = "MNIST (Yann LeCun, Corinna Cortes, Christopher J. C. Burges; http://yann.lecun.com/exdb/mnist/), usually cited under CC BY-SA 3.0"
	train.Source = mnistTerms + ", training set"
	test.Source = mnistTerms + ", test set"
	rot, err := dataset.BuildRotated(train, test, 5000, 5000, seed)
	if err != nil {
		return err
	}
	rot.Manifest.Name = "rotated-mnist"

	faces, err := dataset.ReadORL(filepath.Join(data, "orl_faces"))
	if err != nil {
		return err
	}
	faces.Source = "ORL / AT&T Database of Faces (Olivetti Research Laboratory, Cambridge; 40 subjects x 10 images of 112 x 92), research use, credit Olivetti Research Laboratory"
	split, err := dataset.BuildFaceSplit(faces, 5, seed)
	if err != nil {
		return err
	}
	split.Manifest.Name = "orl-split"
	occ, err := dataset.BuildOccluded(faces, 5, 50, 40, seed)
	if err != nil {
		return err
	}
	occ.Manifest.Name = "orl-occluded"

	for _, d := range []*dataset.Derived{rot, split, occ} {
		dir := filepath.Join(out, d.Manifest.Name)
		if err := d.Write(dir); err != nil {
			return err
		}
		fmt.Printf("%s: %d + %d images\n", dir, d.Parts[0].Set.Len(), d.Parts[1].Set.Len())
	}
	return nil
}
