// Package suffstats owns the arithmetic of the sufficient statistics of a
// least-squares output layer and of the online learner built on them,
// over plain slices: the sums G = H^T H, H^T T and T^T T of L hidden
// columns and m outputs (Sums), their classes' reordering and merge, the
// direct and pseudo-inverse solves, the training RMSE from the sums, the
// Cholesky factor kept with them (Factor: by row panels as statistics
// files hold it, or whole with F^T mirrored above the diagonal), the
// preconditioned conjugate gradient solve of an update (SolveNear), the
// rows' chunked products (AddRows, NewSums) and their sum over batches
// (BatchSum), the statistics file's mapping of the sums to
// internal/statsfile's sections (Write, Read, Check), the checks of
// images against the counts summed (CheckImages, ImagesMismatchError),
// the residual a grown model's new nodes are chosen on (Residual), the
// statistics' memory (Bytes), and the online learner's state (Learner:
// forgetting, accumulate, refactor, the conjugate gradient solve, frozen
// copies, commit and release, the reuse of large buffers) with the model
// of its weights (Online, Frozen: scn.Online's and scn.FrozenSolve's
// bodies, the models made by a Host the root implements).
//
// It knows nothing of a model: package scn produces the hidden rows (its
// Model), compares recipes, builds models from solved weights, and keeps
// the public types (Stats, Online, FrozenSolve; Factor is an alias of this
// package's). It imports the standard library, internal/lsq (the solves
// and products), internal/bigmem (large buffers), internal/memest (a
// saturating sum), internal/score (class labels), internal/statsfile
// (ErrStats), internal/cfgerr (DataError) and gonum, never package scn (the
// compiler refuses the cycle).
package suffstats
