package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"

	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// distortedName is the default folder of scn derive distorted.
const distortedName = "distorted-mnist"

func newDeriveDistorted() *cobra.Command {
	var (
		f      deriveFlags
		copies int
		p      = dataset.DefaultDistortion()
	)
	cmd := &cobra.Command{
		Use:   "distorted",
		Short: "MNIST (or any IDX set) with K random elastic and affine distortions of each training image, as IDX shards",
		Long: `Write the training set of an IDX folder (MNIST by default) and --copies K
randomly distorted copies of it, as shards of gzip IDX files: part-00000 holds
the original training images, part-0000k (k = 1..K) the k-th distorted copy
of every image, in the original order, with the original labels. K = 20 gives
21 x 60000 = 1.26M images of MNIST (about 1 GB of bytes, 0.2 GB compressed).

Each distortion (Simard, Steinkraus & Platt, ICDAR 2003) is an affine map
about the image centre (rotation uniform in +-rotate degrees, scale uniform
in [scale-min, scale-max], horizontal shear uniform in +-shear, translation
uniform in +-shift pixels per axis) followed by an elastic displacement:
fields of independent uniform values in [-1, 1] per pixel, smoothed by a
Gaussian of --sigma and scaled by --alpha; pixels are sampled bilinearly (0
outside the image) and rounded to bytes when written. Every image of every
copy has its own random stream (PCG seeded by --seed, the copy and the
image's index), so the files do not depend on the number of cores.

Train on it streamed with --idx-images 'OUT/part-*-images-idx3-ubyte.gz'
--idx-labels 'OUT/part-*-labels-idx1-ubyte.gz' (docs/stats.md); evaluate on
the original test set.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := p.Validate(); err != nil {
				return usageError{err}
			}
			if err := checkDeriveOut(f.out); err != nil {
				return err
			}
			train, err := readDigits(f.data, "train")
			if err != nil {
				return err
			}
			m := dataset.Manifest{
				Name: distortedName,
				Description: fmt.Sprintf("The training set and %d random elastic and affine distortions of each of its images (Simard et al. 2003): part-00000 the originals, part-k the k-th distorted copy, in the original order with the original labels.",
					copies),
				Generator: "scn derive distorted",
				Seed:      f.seed,
				Params: map[string]string{
					"copies": fmt.Sprint(copies), "sigma": fmt.Sprint(p.Sigma), "alpha": fmt.Sprint(p.Alpha),
					"rotate_degrees": fmt.Sprint(p.Rotate), "scale_min": fmt.Sprint(p.ScaleMin), "scale_max": fmt.Sprint(p.ScaleMax),
					"shear": fmt.Sprint(p.Shear), "shift_pixels": fmt.Sprint(p.Shift),
				},
				Sources: []string{train.Source},
			}
			_, err = writeDerivedBy(cmd.Context(), cmd.OutOrStdout(), f.out, func(tmp string) (dataset.Manifest, error) {
				return writeDistorted(cmd.Context(), tmp, train, p, f.seed, copies, m)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "next: scn train --model rvfl --preset fast --idx-images '%s' --idx-labels '%s' -o distorted.scn\n",
				filepath.Join(f.out, "part-*-images-idx3-ubyte.gz"), filepath.Join(f.out, "part-*-labels-idx1-ubyte.gz"))
			return nil
		},
	}
	f.add(cmd, "mnist/ (train- IDX files)", distortedName)
	intVar(cmd.Flags(), &copies, "copies", 20, 1, 9999, "distorted copies of each training image")
	fl := cmd.Flags()
	floatVar(fl, &p.Sigma, "sigma", p.Sigma, 0.5, 50, true, "standard deviation (pixels) of the Gaussian smoothing the displacement fields")
	floatVar(fl, &p.Alpha, "alpha", p.Alpha, 0, 1000, true, "scale of the smoothed displacement fields (0: no elastic distortion)")
	floatVar(fl, &p.Rotate, "rotate", p.Rotate, 0, 180, true, "largest rotation in degrees")
	floatVar(fl, &p.ScaleMin, "scale-min", p.ScaleMin, 0.01, 10, true, "smallest scale factor")
	floatVar(fl, &p.ScaleMax, "scale-max", p.ScaleMax, 0.01, 10, true, "largest scale factor")
	floatVar(fl, &p.Shear, "shear", p.Shear, 0, 2, true, "largest horizontal shear factor")
	floatVar(fl, &p.Shift, "shift", p.Shift, 0, 1000, true, "largest translation in pixels along each axis")
	return cmd
}

// writeDistorted writes the originals and the copies into dir, one part at
// a time (one copy of the training set in memory), then the manifest.
func writeDistorted(ctx context.Context, dir string, train *dataset.Set, p dataset.Distortion, seed uint64, copies int, m dataset.Manifest) (dataset.Manifest, error) {
	for k := 0; k <= copies; k++ {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		part := train
		if k > 0 {
			var err error
			if part, err = dataset.DistortedCopy(train, p, seed, k); err != nil {
				return m, err
			}
		}
		info, err := dataset.WritePart(dir, dataset.Part{Name: fmt.Sprintf("part-%05d", k), Set: part})
		if err != nil {
			return m, err
		}
		m.Parts = append(m.Parts, info)
		debug.FreeOSMemory()
	}
	return m, dataset.WriteManifest(dir, m)
}
