package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/budget"
	"github.com/scn2d/scn/internal/modelfile"
)

// The budget record's mapping to the header (internal/budget; the format:
// internal/modelfile).

// toFileBudget returns the header field of a budget record (nil for nil).
func toFileBudget(r *BudgetRecord) *modelfile.Budget { return budget.Encode(r) }

// budgetOf checks a header's budget field and returns its record (nil for
// nil).
func budgetOf(f *modelfile.Budget) (*BudgetRecord, error) {
	r, err := budget.Decode(f, maxNodes, maxLocalFilters)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return r, nil
}
