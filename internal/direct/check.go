package direct

import "fmt"

// Check reports whether the links agree with a model's shapes: a pooling
// side of 1 to the images' smaller side (rows x cols), and dim x m
// weights (dim features, m outputs).
func (l *Link) Check(rows, cols, dim, m int) error {
	switch {
	case l.Pool < 1 || l.Pool > min(rows, cols):
		return fmt.Errorf("scn: direct links pooled by %d on %d x %d images", l.Pool, rows, cols)
	case len(l.Beta) != dim*m:
		return fmt.Errorf("scn: %d direct-link weights for %d features and %d outputs", len(l.Beta), dim, m)
	}
	return nil
}
