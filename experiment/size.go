package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/report"
)

var (
	sizeLPaper = []int{100, 500, 1000}
	sizeLQuick = []int{50, 100, 200}
)

const sizeNPaper, sizeNQuick = 2000, 500

// sizeRow is one saved model of E7.
type sizeRow struct {
	Kind     string `json:"kind"`
	L        int    `json:"L"`
	Bytes    int64  `json:"bytes"`    // measured file size
	Header   int64  `json:"header"`   // JSON header length read from the file
	Expected int64  `json:"expected"` // 16 + header + payload + 4
	Params   int    `json:"params"`   // Model.ParamCount
	Formula  int    `json:"formula"`  // L*(d1+d2+1+m) or L*(d1*d2+1+m)
}

// modelFileSize saves m to dir and measures the file; it returns the size,
// the JSON header length (read by scn.LoadInfo) and the size expected from
// the format (16-byte preamble, header, float32 hidden parameters and
// biases, float64 output weights, 4-byte checksum), computed here from the
// model rather than taken from the header, so that E7 checks the format.
func modelFileSize(m *scn.Model, dir, name string) (size, header, expected int64, err error) {
	p := filepath.Join(dir, name)
	if err := m.Save(p); err != nil {
		return 0, 0, 0, err
	}
	defer os.Remove(p)
	st, err := os.Stat(p)
	if err != nil {
		return 0, 0, 0, err
	}
	info, err := scn.LoadInfo(p)
	if err != nil {
		return 0, 0, 0, err
	}
	header = int64(info.HeaderBytes)
	l, np := int64(m.Nodes()), int64(m.ParamsPerNode())
	payload := l*np*4 + l*4 + l*int64(m.M)*8
	return st.Size(), header, 16 + header + payload + 4, nil
}

// sizeData returns E7's training set: an MNIST subset when the data folder
// has it, else (quick runs only) random 28 x 28 images with 10 classes,
// since only the sizes matter.
func sizeData(o Options, n int) (*dataset.Set, error) {
	tr, _, err := loadMNIST(o.DataDir)
	if err == nil {
		rng := rand.New(rand.NewPCG(o.Seed, 0xe7))
		return tr.Subset(sample(tr.Len(), n, rng)), nil
	}
	if !o.Quick {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xe7))
	s := &dataset.Set{Rows: 28, Cols: 28, Classes: digitClasses, Source: "synthetic: random 28 x 28 images with random labels (MNIST not found; only sizes matter)"}
	s.Pix = make([]float32, n*784)
	for i := range s.Pix {
		s.Pix[i] = float32(rng.Float64())
	}
	for i := 0; i < n; i++ {
		s.Labels = append(s.Labels, i%10)
	}
	return s, nil
}

// measureSizes fits every kind at every L on s and measures the saved files.
func measureSizes(ctx context.Context, s *dataset.Set, ls []int, seed uint64, log func(string, ...any)) ([]sizeRow, error) {
	p, err := s.Problem()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "scn-e7-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var rows []sizeRow
	d1, d2, m := s.Rows, s.Cols, len(s.Classes)
	for _, l := range ls {
		for _, k := range scn.Kinds() {
			cfg := scn.Paper(k)
			cfg.MaxNodes = l
			cfg.Seed = seed
			mod, err := cfg.Fit(ctx, p, nil)
			if err != nil {
				return nil, err
			}
			size, hdr, exp, err := modelFileSize(mod, dir, fmt.Sprintf("%s-%d.scn", k, l))
			if err != nil {
				return nil, err
			}
			nl := mod.Nodes()
			formula := nl * (d1*d2 + 1 + m)
			if k.Input == scn.Matrix {
				formula = nl * (d1 + d2 + 1 + m)
			}
			rows = append(rows, sizeRow{Kind: k.Title(), L: nl, Bytes: size, Header: hdr, Expected: exp, Params: mod.ParamCount(), Formula: formula})
			log("E7 %-6s L=%-5d %9d bytes (expected %d), %d parameters (formula %d)", k.Title(), nl, size, exp, mod.ParamCount(), formula)
		}
	}
	return rows, nil
}

func runSize(ctx context.Context, o Options, r *Result) error {
	ls, n := sizeLPaper, sizeNPaper
	if o.Quick {
		ls, n = sizeLQuick, sizeNQuick
	}
	s, err := sizeData(o, n)
	if err != nil {
		return err
	}
	r.Trials = 1
	r.Provenance = append(r.Provenance, s.Source)
	r.protocol("%d training images of %d x %d, %d classes; L in %v; one fit per model and L (seed %d)", s.Len(), s.Rows, s.Cols, len(s.Classes), ls, o.Seed)
	r.protocol("each model saved with Model.Save and its file measured; expected size = 16-byte preamble + JSON header + L x (params per node) float32 + L float32 biases + L x m float64 output weights + 4-byte CRC")
	rows, err := measureSizes(ctx, s, ls, o.Seed, o.logf)
	if err != nil {
		return err
	}
	tab := Table{Name: "size", Title: "Model size: measured files and parameter counts",
		Header: []string{"model", "L", "file bytes", "expected bytes", "header bytes", "parameters", "formula", "match"}}
	for _, row := range rows {
		ok := "yes"
		if row.Bytes != row.Expected || row.Params != row.Formula {
			ok = "NO"
		}
		tab.Rows = append(tab.Rows, []string{row.Kind, fmt.Sprint(row.L), fmt.Sprint(row.Bytes), fmt.Sprint(row.Expected), fmt.Sprint(row.Header), fmt.Sprint(row.Params), fmt.Sprint(row.Formula), ok})
	}
	r.Tables = append(r.Tables, tab)
	// Ratios 1D / 2D per L.
	ratio := Table{Name: "size_ratio", Title: "1D / 2D file size ratio", Header: []string{"L", "SCN / 2DSCN", "RVFL / 2DRVFL", "formula (1D / 2D)"}}
	cats := []string{}
	bars := make([]report.BarSeries, len(scn.Kinds()))
	for i, k := range scn.Kinds() {
		bars[i].Name = k.Title()
	}
	m := len(s.Classes)
	for li, l := range ls {
		get := func(k scn.Kind) sizeRow { return rows[li*len(scn.Kinds())+kindIndex(k)] }
		a := float64(get(scn.SCN).Bytes) / float64(get(scn.SCN2D).Bytes)
		b := float64(get(scn.RVFL).Bytes) / float64(get(scn.RVFL2D).Bytes)
		f := float64(s.Rows*s.Cols+1+m) / float64(s.Rows+s.Cols+1+m)
		ratio.Rows = append(ratio.Rows, []string{fmt.Sprint(l), fmt.Sprintf("%.2f", a), fmt.Sprintf("%.2f", b), fmt.Sprintf("%.2f", f)})
		r.value(fmt.Sprintf("e7/L=%d/ratio_scn", l), a)
		r.value(fmt.Sprintf("e7/L=%d/ratio_rvfl", l), b)
		cats = append(cats, fmt.Sprintf("L = %d", l))
		for i, k := range scn.Kinds() {
			bars[i].Values = append(bars[i].Values, float64(get(k).Bytes)/1024)
		}
	}
	r.Tables = append(r.Tables, ratio)
	r.note("Parameters per node: 2D learners d1+d2+1+m = %d, 1D learners d1*d2+1+m = %d. File sizes differ from 4 bytes x parameters because output weights are float64 and each file carries a JSON header.", s.Rows+s.Cols+1+m, s.Rows*s.Cols+1+m)
	svg, err := report.Bars("E7: saved model size", "file size (KiB)", cats, bars)
	return r.addFigure("e7_size", "Saved model file size per model and L", "", svg, err)
}

func kindIndex(k scn.Kind) int {
	for i, x := range scn.Kinds() {
		if x == k {
			return i
		}
	}
	return -1
}
