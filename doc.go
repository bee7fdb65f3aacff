// Package scn implements two-dimensional stochastic configuration networks
// (2DSCN) and their baselines SCN, RVFL and 2DRVFL: single-hidden-layer
// networks f(X) = sum_j beta_j g(a_j(X)) whose hidden parameters are random
// and fixed once chosen and whose output weights are found by least squares.
//
// The four learners are a 2 x 2 grid, and the code follows it: a Kind pairs
// an InputMap (Vector: a_j(x) = w_j^T x + b_j on the flattened image; Matrix:
// a_j(X) = u_j^T X v_j + b_j on the image itself) with a NodeChoice (Random:
// all nodes drawn uniformly on [-lambda, lambda], as RVFL; Supervised: nodes
// added one at a time, each the best of T_max random candidates that meets
// the supervisory inequality of stochastic configuration). One builder serves
// all four cells.
//
// Usage follows the estimator pattern: hyper-parameters live in a Config
// (Paper gives the published settings), Config.Fit returns a fitted *Model,
// and the model predicts, classifies, scores, saves and loads:
//
//	p, _ := scn.Classification(images, labels, classNames)
//	cfg := scn.Paper(scn.SCN2D)
//	cfg.MaxNodes = 300
//	model, err := cfg.Fit(ctx, p, nil)
//	acc, _ := model.Accuracy(testImages, testLabels)
//	err = model.Save("digits.scn")
//
// # Data, scores and files
//
// The learners take Images (N images of Rows x Cols, one float32 slice) and
// a Problem (Classification or Regression builds one); package dataset reads
// files into its Set, whose Images and Problem methods give these views.
// Accuracy, RMSE and PPA are the scores of the paper's experiments, each
// defined once here. A model file (Model.Save, Load, Read; format in
// docs/formats.md and internal/modelfile) holds the weights, the configuration, the
// training summary, the preprocessing of the training images
// (Model.Preprocessing) and free-form metadata; ReadInfo and LoadInfo read
// its header alone, as image.DecodeConfig does for images.
//
// # How a fit works
//
// Candidate nodes are scored in batches: the hidden outputs of all T_max
// candidates drawn at one scale are one matrix product X W^T (float32, the
// image data as stored), and their statistics e_q^T h and h^T h are summed in
// float64. For each scale lambda the candidates are drawn once and reused for
// every r of the list, as the authors' SCN code does. The output weights are
// the least-squares solution kept by a thin QR factorisation grown by
// classical Gram-Schmidt with one re-orthogonalisation (float64): adding node
// L costs O(N*L), the residual is updated in O(N*m), and beta is solved once
// at the end. A candidate whose column is (nearly) dependent on the chosen
// ones is refused and counted in the trace.
//
// # Thousands of nodes
//
// Config.BlockSize > 1 (and the options FieldMin/FieldMax, Standardize,
// Differences, Float32Gram, BF16Gram and Pairs) selects the block path: each step adds a block of
// nodes (supervised: the best of Candidates x BlockSize candidates by the
// supervisory inequality against the regularised residual), and the least
// squares is a Gram matrix H^T H with a Cholesky factor grown by whole
// blocks, H kept in float32 in row shards whose sums are reduced in one
// place. A random learner's block fit with a ridge keeps no H: it draws
// every node first and forms all of G in one pass over the row shards
// (the same model file, with memory for G instead of G and H).
// Fast(kind) bundles the settings with the best accuracy per second
// measured (difference nodes on receptive fields, blocks of 500, 5000
// nodes, bfloat16 Gram products where the CPU has AVX512-BF16; 98.55% on
// MNIST in about 11 s on two cores with RVFL):
//
//	cfg := scn.Fast(scn.RVFL)
//	model, err := cfg.Fit(ctx, p, nil)
//
// Default(kind) is scn train's default: the same difference nodes over the
// whole image in blocks of 100, meant for model selection
// (Config.Select), which chooses L and the ridge term on held-out data:
//
//	model, err := scn.Default(scn.SCN2D).Select(ctx, p, scn.Selection{Validation: 0.1}, nil)
//
// Every random draw comes from one PCG stream seeded by Config.Seed, and
// every parallel sum uses fixed chunks (internal/par, the project's one
// goroutine pool), so the same seed gives the same model, bit for bit,
// whatever GOMAXPROCS is.
//
// The dense kernels live in internal/linalg: pure Go (gonum) by default, or
// OpenBLAS with the build tag "openblas". The hot loops (candidate scoring,
// the Gram-Schmidt passes over Q, the residual statistics) run the
// project's own AVX2/FMA and AVX-512 kernels in both builds, so supervised
// fits give the same bits with either.
//
// # Layout
//
// This package keeps the public API: the hyper-parameters (Config, the
// presets, Kind), the data (Images, Problem, Source), the fits (Fit,
// FitStream, Select, Budget), the fitted model (Model, Path, Predictor,
// Stats, Online) and its files. Its files come in layers (base, node,
// result, driver, workflow); a file calls only its own layer and those
// below, which layers_test.go checks. The work is done in packages under
// internal/, each of one job, that never import this one (the compiler
// refuses the cycle): internal/lsq (the least-squares engines and every
// solve), internal/node and internal/local (global and local nodes'
// maps and outputs), internal/drive (the fits' loops), internal/selection
// and internal/holdout (model selection), internal/budget and
// internal/budgetflow (time budgets), internal/modelfile and
// internal/modelrec (the model file), internal/suffstats and
// internal/statsfile (sufficient statistics), and more. docs/design.md
// lists every file and package and draws the flow of a fit through them.
package scn
