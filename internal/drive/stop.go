package drive

import "fmt"

// StopReason says why building stopped.
type StopReason int

const (
	// ReachedMaxNodes: L_max nodes were added.
	ReachedMaxNodes StopReason = iota
	// ReachedTolerance: the training RMSE fell to the tolerance.
	ReachedTolerance
	// NoAdmissible: no candidate at any (lambda, r) met the supervisory
	// inequality (or every admissible one was dependent on the chosen nodes).
	NoAdmissible
	// Cancelled: the context was cancelled; the model holds the nodes so far.
	Cancelled
	// NoValidationGain: model selection's Patience ran out, the held-out
	// score having stopped improving.
	NoValidationGain
	// BudgetSpent: a Budget's clock stopped growth, the next block and the
	// finishing work no longer fitting in the time left.
	BudgetSpent
)

// StopNames are the reasons' descriptions, by StopReason (as model files record them).
var StopNames = []string{"reached L_max", "reached tolerance", "no admissible candidate", "cancelled", "no validation gain", "budget spent"}

// String describes the reason in a few words.
func (s StopReason) String() string {
	if s < 0 || int(s) >= len(StopNames) {
		return fmt.Sprintf("stop(%d)", int(s))
	}
	return StopNames[s]
}
