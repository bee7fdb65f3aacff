package main

import (
	"fmt"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

func newPredict() *cobra.Command {
	var (
		top    int
		reject float64
	)
	cmd := &cobra.Command{
		Use:   "predict MODEL IMAGE...",
		Short: "Predict the class (or outputs) of image files",
		Long: `Predict the class of each image file (PNG, JPEG, GIF, BMP, PGM/PPM) with a
saved model, after the preprocessing recorded in the model, and print the top
scores (a calibrated model, trained with model selection or --calibrate: the top class
probabilities, and "unsure" under --reject-below); for a regression model,
print its outputs (and their conformal interval [lower, upper] when the model
records one, trained with --coverage). The image gets the model's
planes: a colour image given to a model trained on grey images becomes grey
(luma), a grey image given to a colour model three equal planes.`,
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, p, err := loadModel(args[0])
			if err != nil {
				return err
			}
			if err := currentMemCap().checkPredict(m, 1, 0); err != nil {
				return err
			}
			if err := checkReject(cmd, m, reject); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, path := range args[1:] {
				x, err := loadPicture(path, p, m)
				if err != nil {
					return err
				}
				y, err := m.Predict(x)
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				fmt.Fprintf(w, "%s\t%s\n", path, describeCalib(m, y, top, reject))
			}
			return nil
		},
	}
	intVar(cmd.Flags(), &top, "top", 3, 0, 1<<20, "scores to show per image")
	addReject(cmd, &reject)
	return cmd
}

// loadPicture reads an image file prepared as the model records (p from
// RecordedPreprocess: its planes too, so that a colour image given to a
// grey model is made grey and a grey one given to a colour model three
// equal planes) and checks its shape against the model's.
func loadPicture(path string, p dataset.Preprocess, m *scn.Model) (scn.Images, error) {
	pic, err := dataset.LoadPicture(path, p)
	if err != nil {
		return scn.Images{}, err
	}
	if pic.Rows != m.Rows || pic.Cols != m.Cols {
		return scn.Images{}, fmt.Errorf("%s: image is %d x %d after preprocessing (%s), the model takes %d x %d", path, pic.Rows, pic.Cols, p, m.Rows, m.Cols)
	}
	x := scn.Images{Rows: pic.Rows, Cols: pic.Cols, Pix: pic.Pix}
	if pic.Channels > 1 {
		x.Channels = pic.Channels
	}
	return x, nil
}

// describe renders one prediction: the class and its top scores, or the
// regression outputs.
func describe(m *scn.Model, y []float64, top int) string {
	if !m.IsClassifier() {
		parts := make([]string, len(y))
		for i, v := range y {
			parts[i] = fmt.Sprintf("%.6g", v)
		}
		return strings.Join(parts, " ")
	}
	idx := scn.TopK(y, len(y))
	parts := []string{m.Classes[idx[0]]}
	for _, i := range idx[:min(top, len(idx))] {
		parts = append(parts, fmt.Sprintf("%s=%.3f", m.Classes[i], y[i]))
	}
	return strings.Join(parts, "\t")
}
