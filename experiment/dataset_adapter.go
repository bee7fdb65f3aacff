package experiment

// DataSet is a set of equally sized grey images with class labels
// (classification) or real targets (regression). Its fields are those of
// dataset.Set, so that a *dataset.Set's fields convert one to one.
type DataSet struct {
	Rows, Cols int
	Pix        []float32 // N*Rows*Cols values in [0, 1], row-major, image after image
	Labels     []int     // classification: one label per image, in [0, len(Classes))
	Classes    []string  // classification: class names
	Targets    []float64 // regression: N x TargetDim, row-major (nil for classification)
	TargetDim  int
	Source     string // provenance
}

func fromDataSet(d *DataSet) *set {
	return &set{Rows: d.Rows, Cols: d.Cols, Pix: d.Pix, Labels: d.Labels, Classes: d.Classes, Targets: d.Targets, TargetDim: d.TargetDim, Source: d.Source}
}
