package node

// Classes returns the class of each of n one-hot (or score) target rows t
// (n x m, row-major): the first output of the largest value, as a
// difference node's source reads the classes of a classification set.
func Classes(t []float64, n, m int) []int {
	class := make([]int, n)
	for i := range class {
		row := t[i*m : (i+1)*m]
		for q, v := range row {
			if v > row[class[i]] {
				class[i] = q
			}
		}
	}
	return class
}
