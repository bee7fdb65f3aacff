package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// loadRecipe reads the hidden nodes a statistics file is to be of: a model
// file, or the recipe of a statistics file.
func loadRecipe(path string) (*scn.Model, error) {
	m, err := scn.Load(path)
	if err == nil {
		return m, nil
	}
	s, serr := scn.OpenStats(path)
	if serr == nil {
		return s.Recipe, nil
	}
	if errors.Is(serr, scn.ErrStats) && !strings.Contains(serr.Error(), "not a statistics file") {
		return nil, serr
	}
	return nil, err
}

// buildStats sums the statistics of the data flags' set for the recipe's
// nodes, read with the recipe's preprocessing.
func buildStats(m *scn.Model, d *dataFlags, half string) (*scn.Stats, error) {
	prob, err := recipeProblem(m, d, half)
	if err != nil {
		return nil, err
	}
	return m.Stats(prob)
}

// recipeProblem reads the data flags' set with the recipe's preprocessing
// and checks its image size.
func recipeProblem(m *scn.Model, d *dataFlags, half string) (scn.Problem, error) {
	p, err := dataset.RecordedPreprocess(m)
	if err != nil {
		return scn.Problem{}, err
	}
	s, err := d.load(half, p)
	if err != nil {
		return scn.Problem{}, err
	}
	if err := checkShape(m, s); err != nil {
		return scn.Problem{}, err
	}
	return s.Problem()
}

// checkShape refuses images of another size than the recipe's.
func checkShape(m *scn.Model, s *dataset.Set) error {
	if s.Rows != m.Rows || s.Cols != m.Cols {
		return fmt.Errorf("the data's images are %d x %d, the model's nodes take %d x %d (--resize %dx%d)", s.Rows, s.Cols, m.Rows, m.Cols, m.Rows, m.Cols)
	}
	return nil
}

func newStats() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats build|merge",
		Short: "Sufficient statistics of the output layer: build them for a data set, merge them",
		Long: `The output weights of a model follow from three sums over the training
images, G = H^T H, H^T T and T^T T (with the image and class counts), for
its hidden nodes: a statistics file (.scnstats) holds them with the nodes
(docs/stats.md). "stats build" sums a data set for the nodes of a model or
statistics file (what each machine of a cluster computes for its shard);
"stats merge" adds the sums of several files of the same nodes; "scn solve"
turns them into a model and "scn update" adds new images to a model.`,
	}
	cmd.AddCommand(newStatsBuild(), newStatsMerge())
	return cmd
}

func newStatsBuild() *cobra.Command {
	var (
		d      dataFlags
		recipe string
		out    string
	)
	cmd := &cobra.Command{
		Use:   "build --recipe MODEL_OR_STATS <data flags> -o FILE",
		Short: "Sum the statistics of a data set for the nodes of a model",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if recipe == "" {
				return usageError{fmt.Errorf("--recipe: give the model (or statistics file) whose nodes to sum for")}
			}
			if err := checkOutput("-o", out); err != nil {
				return err
			}
			m, err := loadRecipe(recipe)
			if err != nil {
				return err
			}
			s, err := buildStats(m, &d, "train")
			if err != nil {
				return err
			}
			if err := s.Save(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "statistics of %d images%s for %d nodes: saved %s\n", s.Images(), copiesNote(s.N, s.Images()), s.Nodes(), out)
			return nil
		},
	}
	d.add(cmd, false)
	cmd.Flags().StringVar(&recipe, "recipe", "", "model file (or statistics file) whose hidden nodes to sum for")
	cmd.Flags().StringVarP(&out, "out", "o", "stats.scnstats", "statistics file to write")
	return cmd
}

func newStatsMerge() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge A B ... -o FILE",
		Short: "Add the statistics of several data sets for the same nodes",
		Args:  minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput("-o", out); err != nil {
				return err
			}
			var sum *scn.Stats
			for _, path := range args {
				s, err := scn.LoadStats(path)
				if err != nil {
					return err
				}
				if sum == nil {
					sum = s
					continue
				}
				if sum, err = sum.Merge(s); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			if err := sum.Save(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "statistics of %d images%s for %d nodes: saved %s\n", sum.Images(), copiesNote(sum.N, sum.Images()), sum.Nodes(), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "merged.scnstats", "statistics file to write")
	return cmd
}

func newSolve() *cobra.Command {
	var (
		out   string
		ridge float64
	)
	cmd := &cobra.Command{
		Use:   "solve STATS -o MODEL",
		Short: "The model a statistics file gives: its nodes, output weights from the sums",
		Args:  minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("solve takes one statistics file (merge several with scn stats merge)")}
			}
			if err := checkOutput("-o", out); err != nil {
				return err
			}
			s, err := scn.LoadStats(args[0])
			if err != nil {
				return err
			}
			r := ridge
			if !cmd.Flags().Changed("ridge") {
				r = s.Recipe.Config.Ridge
			}
			m, err := s.Solve(r)
			if err != nil {
				return err
			}
			if err := m.Save(out); err != nil {
				return err
			}
			summary(cmd.OutOrStdout(), m)
			fmt.Fprintf(cmd.OutOrStdout(), "solved from %d images with ridge %g: saved %s\n", s.Images(), r, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "model.scn", "model file to write")
	floatVar(cmd.Flags(), &ridge, "ridge", 0, 0, 1e12, true, "ridge term (default: the recipe model's)")
	return cmd
}

func newUpdate() *cobra.Command {
	var (
		d                  dataFlags
		statsIn, out, sOut string
		grow               int
		old                = dataFlags{prefix: "old-"}
	)
	cmd := &cobra.Command{
		Use:   "update MODEL --stats OLD.scnstats <data flags> -o NEW",
		Short: "Add labelled images to a model: its statistics plus the new images', solved",
		Long: `Add new labelled images to a model without its old images: the new images'
statistics for the model's nodes are added to those of its training images
(--stats, written by scn train --stats-out or scn stats build) and the output
weights solved again, with the model's ridge term. Classes are matched by
name; a class the old images did not have is added (the old images count as
no example of it). The nodes stay the model's: for a random learner the
result is the model a fit from scratch on the old and new images with the
same nodes gives; for a supervised one, its nodes were chosen on the old
images only, unless --grow K adds K supervised nodes chosen on the residual
the model leaves on the new images; the least squares of all L + K nodes
then needs the new nodes' outputs on the old images, which no statistics
hold: --grow needs the old training images too (--old-idx-images and
--old-idx-labels, or another --old-* source; their count and class counts
are checked against --stats), and sums both sets anew (docs/stats.md).
--stats-out writes the merged statistics for the next update. Without
--grow the output weights are solved by conjugate gradients preconditioned
with the Cholesky factor of the old statistics (no Gram product of the new
images): those of "scn stats merge" and "scn solve" to about 1e-10
relative (docs/stats.md); --stats-out costs that product all the same.
The factor is read from --stats when scn train --stats-out stored it (the
old G is then not even read), else formed; --stats-out carries a stored
factor on (a factor of the old G: it still preconditions the next update).`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if statsIn == "" {
				return usageError{fmt.Errorf("--stats: give the statistics of the model's training images (scn train --stats-out)")}
			}
			if err := checkOutput("-o", out); err != nil {
				return err
			}
			m, err := scn.Load(args[0])
			if err != nil {
				return err
			}
			// G is read only if the update needs it (no factor of it
			// stored, --stats-out, --grow).
			oldStats, err := scn.OpenStats(statsIn)
			if err != nil {
				return err
			}
			if grow > 0 || old.given() {
				return growUpdate(cmd, m, oldStats, &d, &old, grow, out, sOut)
			}
			prob, err := recipeProblem(m, &d, "train")
			if err != nil {
				return err
			}
			nm, merged, err := m.Update(oldStats, prob, sOut != "")
			if err != nil {
				if errors.Is(err, scn.ErrStats) {
					return fmt.Errorf("--stats %s: %w", statsIn, err)
				}
				return err
			}
			if err := saveUpdate(cmd.OutOrStdout(), nm, merged, out, sOut); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "updated with %d new images (%d in all): saved %s\n", prob.X.Len(), nm.Summary.Samples, out)
			calibUpdateNote(cmd.ErrOrStderr(), nm)
			return nil
		},
	}
	d.add(cmd, false)
	cmd.Flags().StringVar(&statsIn, "stats", "", "statistics of the model's training images (.scnstats)")
	cmd.Flags().StringVarP(&out, "out", "o", "updated.scn", "model file to write")
	cmd.Flags().StringVar(&sOut, "stats-out", "", "also write the merged statistics here")
	intVar(cmd.Flags(), &grow, "grow", 0, 0, 1<<20, "add this many supervised nodes chosen on the new images' residual (scn, 2dscn; needs the old images: --old-idx-images ...)")
	old.add(cmd, false)
	return cmd
}

// saveUpdate saves an updated model to out (and the merged statistics to
// sOut, if given) and prints its summary.
func saveUpdate(w io.Writer, nm *scn.Model, merged *scn.Stats, out, sOut string) error {
	if err := nm.Save(out); err != nil {
		return err
	}
	if sOut != "" {
		if err := merged.Save(sOut); err != nil {
			return err
		}
	}
	summary(w, nm)
	return nil
}
