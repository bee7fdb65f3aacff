package experiment

import "github.com/scn2d/scn/dataset"

// DataSet is a set of equally sized grey images with class labels
// (classification) or real targets (regression): package dataset's Set.
type DataSet = dataset.Set

func fromDataSet(d *DataSet) *set { return fromDataset(d) }
