package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

// evaluation is what eval reports.
type evaluation struct {
	Model     string             `json:"model"`
	Images    int                `json:"images"`
	Accuracy  *float64           `json:"accuracy,omitempty"`
	PerClass  map[string]float64 `json:"per_class_accuracy,omitempty"`
	Confusion [][]int            `json:"confusion,omitempty"` // [true][predicted]
	Classes   []string           `json:"classes,omitempty"`
	RMSE      *float64           `json:"rmse,omitempty"`
	PPA       map[string]float64 `json:"ppa,omitempty"` // threshold -> share within it
	calibEval
}

func newEval() *cobra.Command {
	var (
		d      dataFlags
		asJSON bool
		ppa    string
		// reportPath: --report, an HTML page of the evaluation.
		reportPath string
	)
	cmd := &cobra.Command{
		Use:   "eval MODEL",
		Short: "Score a saved model on a data set",
		Long: `Score a saved model on a data set (default: the built-in test set; with
--derived, the test part of a folder written by scn derive) with the
preprocessing recorded in the model: accuracy, per-class accuracy and the
confusion matrix for classification, with per-class precision and recall,
balanced accuracy and macro-F1, and the probabilities' log-loss, Brier score,
expected calibration error (15 bins), reliability bins and accuracy/coverage
curve (calibrated ones for a calibrated model: scn train with model selection, the default, or --calibrate; beside the plain
softmax of the raw scores); RMSE and PPA (share of predictions within each
threshold) for regression, with the empirical coverage and mean width of the
conformal intervals of a model trained with --coverage.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, p, err := loadModel(args[0])
			if err != nil {
				return err
			}
			thresholds, err := ppaRange.parseList(ppa)
			if err != nil {
				return err
			}
			if sh, ok := d.peekShape("test", p); ok {
				// Refused before the images are read.
				if err := currentMemCap().checkPredict(m, sh.N, sh.Bytes()); err != nil {
					return err
				}
			}
			s, err := d.load("test", p)
			if err != nil {
				return err
			}
			if m.IsClassifier() {
				if err := matchClasses(m.Classes, s, "the data set"); err != nil {
					return err
				}
			}
			if err := currentMemCap().checkPredict(m, s.Len(), setBytes(s)); err != nil {
				return err
			}
			ev, err := evaluate(m, s, thresholds)
			if err != nil {
				return err
			}
			if reportPath != "" {
				if err := ev.writeReport(reportPath, args[0], s.Len()); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(ev)
			}
			return ev.print(cmd.OutOrStdout())
		},
	}
	d.add(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&ppa, "ppa", "15,25", "PPA thresholds for regression, comma-separated, each finite and > 0")
	cmd.Flags().StringVar(&reportPath, "report", "", "also write an HTML report: the tables, and for a classifier the reliability diagram and the accuracy/coverage curve (SVG)")
	return cmd
}

// loadModel reads a model file and the preprocessing it records, with
// which new images are to be prepared.
func loadModel(path string) (*scn.Model, dataset.Preprocess, error) {
	m, err := scn.Load(path)
	if err != nil {
		return nil, dataset.Preprocess{}, err
	}
	p, err := dataset.RecordedPreprocess(m)
	return m, p, err
}

// evaluate scores m on s.
func evaluate(m *scn.Model, s *dataset.Set, thresholds []float64) (*evaluation, error) {
	x := s.Images()
	ev := &evaluation{Model: m.Kind.Title(), Images: s.Len()}
	if m.IsClassifier() {
		if s.Labels == nil {
			return nil, fmt.Errorf("the model classifies but the data set has no labels")
		}
		y, err := m.Predict(x)
		if err != nil {
			return nil, err
		}
		pred := m.ClassesOf(y) // a calibrated model's class: its probabilities' arg-max
		k := m.M
		ev.Classes = m.Classes
		ev.Confusion = make([][]int, k)
		for i := range ev.Confusion {
			ev.Confusion[i] = make([]int, k)
		}
		for i, l := range s.Labels {
			if l < 0 || l >= k {
				return nil, fmt.Errorf("label %d of image %d is outside the model's %d classes", l, i, k)
			}
			ev.Confusion[l][pred[i]]++
		}
		acc := scn.Accuracy(pred, s.Labels)
		ev.Accuracy = &acc
		ev.PerClass = map[string]float64{}
		for c, row := range ev.Confusion {
			total := 0
			for _, v := range row {
				total += v
			}
			if total > 0 {
				ev.PerClass[m.Classes[c]] = float64(row[c]) / float64(total)
			}
		}
		ev.addClassifier(m, y, pred, s.Labels)
		return ev, nil
	}
	if s.Targets == nil || s.TargetDim != m.M {
		return nil, fmt.Errorf("the model has %d real outputs; the data set needs targets of that dimension", m.M)
	}
	y, err := m.Predict(x)
	if err != nil {
		return nil, err
	}
	r := scn.RMSE(y, s.Targets)
	ev.RMSE = &r
	ev.PPA = map[string]float64{}
	for _, th := range thresholds {
		ev.PPA[strconv.FormatFloat(th, 'g', -1, 64)] = scn.PPA(y, s.Targets, th)
	}
	ev.addRegression(m, y, s.Targets)
	return ev, nil
}

// print writes the evaluation as text.
func (ev *evaluation) print(w io.Writer) error {
	fmt.Fprintf(w, "%s on %d images\n", ev.Model, ev.Images)
	if ev.RMSE != nil {
		fmt.Fprintf(w, "RMSE %.5g\n", *ev.RMSE)
		for _, k := range sortedKeys(ev.PPA) {
			fmt.Fprintf(w, "PPA(%s) %.2f%%\n", k, 100*ev.PPA[k])
		}
		return ev.printCalib(w)
	}
	fmt.Fprintf(w, "accuracy %.2f%%\n\nper class:\n", 100**ev.Accuracy)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, c := range ev.Classes {
		if v, ok := ev.PerClass[c]; ok {
			fmt.Fprintf(tw, "%s\t%.2f%%\t\n", c, 100*v)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\nconfusion matrix (rows: true class, columns: predicted):\n")
	tw = tabwriter.NewWriter(w, 0, 4, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t\n", strings.Join(ev.Classes, "\t"))
	for i, row := range ev.Confusion {
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = strconv.Itoa(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", ev.Classes[i], strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ev.printCalib(w)
}
