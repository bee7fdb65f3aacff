package scn

// The ridge term of a budget's fit on a large set (BudgetPlan.FitWeights).
//
// The checkpoints are scored at the fit's own ridge term while the fit
// goes; at the end, each further ridge term of the plan's grid is scored at
// every checkpoint too, from one Cholesky factor of G + alpha I of all the
// fit's nodes (G the engine's H^T H of the training part: the leading block
// of the factor is the factor of each prefix's; lsq.Gram.RidgePrefixes), and the best (L, ridge)
// pair wins. With the fit's own ridge the model keeps the fit's weights; with
// another, the prefix's weights at that ridge, solved on the same training
// part. Each further ridge term costs a factor of L^3/3 and one L x L
// buffer (the plan counts both: BudgetPlan.FinishSeconds with
// timing.ExtraRidgeSeconds, memoryCap), and is what
// keeps a budget that fitted many nodes from having to choose a short
// prefix because the fixed ridge overfits past it (natural-images, issue
// 31: held-out accuracy fell past 2000 of 12500 nodes at ridge 1).

// The further ridge terms of a large set's budget, as multiples of the
// fit's, are internal/budget's RidgeSteps.
