package holdout

// Schedule is when a fit under Patience is scored: at the prefix lengths
// of its Grid (increasing), each once, as the fit passes them.
type Schedule struct {
	Grid []int
	next int
}

// Due reports whether a fit of l nodes has reached the next prefix length
// of the grid not yet scored, and marks every length up to l scored.
func (s *Schedule) Due(l int) bool {
	if s.next >= len(s.Grid) || l < s.Grid[s.next] {
		return false
	}
	for s.next < len(s.Grid) && s.Grid[s.next] <= l {
		s.next++
	}
	return true
}

// Upto returns the prefix lengths of grid that are at most l, in order.
func Upto(grid []int, l int) []int {
	var out []int
	for _, g := range grid {
		if g <= l {
			out = append(out, g)
		}
	}
	return out
}
