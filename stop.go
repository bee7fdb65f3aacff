package scn

import "github.com/scn2d/scn/internal/drive"

// StopReason says why building stopped (drive.StopReason).
type StopReason = drive.StopReason

const (
	// ReachedMaxNodes: L_max nodes were added.
	ReachedMaxNodes = drive.ReachedMaxNodes
	// ReachedTolerance: the training RMSE fell to the tolerance.
	ReachedTolerance = drive.ReachedTolerance
	// NoAdmissible: no candidate at any (lambda, r) met the supervisory
	// inequality (or every admissible one was dependent on the chosen nodes).
	NoAdmissible = drive.NoAdmissible
	// Cancelled: the context was cancelled; the model holds the nodes so far.
	Cancelled = drive.Cancelled
	// NoValidationGain: model selection's Patience ran out, the held-out
	// score having stopped improving.
	NoValidationGain = drive.NoValidationGain
	// BudgetSpent: a Budget's clock stopped growth, the next block and the
	// finishing work no longer fitting in the time left.
	BudgetSpent = drive.BudgetSpent
)
