package drive

import "time"

// Step reports one added hidden node to a progress callback.
type Step struct {
	L     int     // hidden nodes after this step
	RMSE  float64 // training RMSE after this step: ||e||_F / sqrt(N*m)
	Scale float64 // lambda of the chosen node
	Ratio float64 // r at which the node was admissible (0 for random nodes)
	Tried int     // candidates scored for this node
	// Rejected counts admissible candidates refused as (nearly) dependent on
	// the chosen nodes. A random learner keeps such a node (Rejected = 1):
	// its output weights are then the minimum-norm solution pinv(H) T.
	Rejected int
}

// Profile splits a fit's time into its parts.
type Profile struct {
	Draw      time.Duration // drawing candidates and forming their weights
	Scoring   time.Duration // the candidates' hidden outputs: X W^T and g
	Selection time.Duration // E^T H_c, h^T h and the supervisory inequality
	Ortho     time.Duration // orthogonalising chosen columns, updating the residual
	Solve     time.Duration // the final solve for the output weights
	Products  int64         // candidate columns computed (each N x d multiply-adds)
	Batches   int64         // matrix products X W^T, each one pass over the images
}

// Summary describes a finished fit.
type Summary struct {
	Nodes     int        // hidden nodes L
	Samples   int        // training images N
	Stop      StopReason // why building stopped
	TrainRMSE float64    // final training RMSE of the least-squares residual
	Tried     int        // candidates scored in all
	Rejected  int        // candidates refused as dependent in all
	// Trace has one step per node. It is kept in memory, not in model files.
	Trace []Step
	// Duration is the fit's wall time, and Profile splits it. Neither is
	// saved, so that the same seed gives the same file.
	Duration time.Duration
	Profile  Profile
}
