package scn

// Sufficient statistics of models of local nodes (Config.Local): the
// pooled, standardised filter outputs summed as global nodes' outputs, an
// augmented model's copies of each image too (internal/modelrec's
// ForCopies says how).

// augmentRows returns the rows per image of m's statistics: 1, or 1 +
// the copies of an augmented local model.
func (m *Model) augmentRows() int { return m.rec().AugmentRows() }

// forStatsRows calls f with the hidden outputs (the first lh nodes, as
// forHidden does) of every row of m's statistics over x: the images, then
// an augmented local model's copies of images first ... first+N-1 of a
// set (modelrec.ForCopies; first 0: x is the set).
func (m *Model) forStatsRows(lh int, x Images, first int, f func(lo, rows int, hb []float32)) error {
	if err := m.checkStatsRows(x); err != nil {
		return err
	}
	forHidden(m, lh, x, f)
	return m.rec().ForCopies(x.Pix, x.Len(), x.Rows, x.Cols, x.Chans(), first, f)
}

// checkStatsRows reports why m's statistics rows cannot be formed on x
// (whose shape checkInput accepted), if they cannot (modelrec.CheckCopies).
func (m *Model) checkStatsRows(x Images) error {
	return m.rec().CheckCopies(x.Rows, x.Cols, forImages)
}

// Images returns the images the statistics were summed over: N, or for an
// augmented local recipe N over the rows per image (each image and its
// copies).
func (s *Stats) Images() int { return s.N / s.Recipe.augmentRows() }
