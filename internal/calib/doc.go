// Package calib is the calibration math of the scn models: maps from a
// classifier's output scores to class probabilities, the scores of those
// probabilities, and split-conformal intervals of a regression model.
//
// It owns:
//
//   - Calibration, the map softmax(A s + b) (a temperature T is A = I / T,
//     b = 0), its logits and probabilities (calib.go), and Fit, which fits
//     a temperature by bisection and a multinomial logistic read-out by
//     L-BFGS (lbfgs.go) and keeps the one of lower cross-fitted log-loss;
//   - Softmax, LogLoss and the scores of probabilities: the Brier score,
//     the expected calibration error with its reliability bins, per-class
//     precision/recall/F1, the accuracy/coverage curve and the coverage
//     and width of intervals (metrics.go); the ECE a calibrated model
//     would show on the same images, the estimator's noise (noise.go);
//   - Interval, split-conformal radii: the rank of the conformal quantile
//     and the radius it picks (interval.go);
//   - the checks of a calibration fit's data (CheckFit) and the fit of
//     intervals with the checks of theirs (FitInterval, check.go), their
//     messages the root package's (it wraps them in scn.ErrData);
//   - the model file header's calibration fields: a map and intervals to
//     and from them (ToFile, FromFile, file.go).
//
// Its functions take validated inputs: the root package scn checks the
// data (and wraps its errors in scn.ErrData) before it calls them, and
// keeps the public names (type aliases and thin wrappers). Every
// expression is kept as the root package had it: calibration maps are
// written to model files, whose bytes are pinned.
//
// It may import the standard library and internal/modelfile only; never
// the root package scn or any package above it.
package calib
