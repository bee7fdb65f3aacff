// Package localplan owns the policy of scn's local (convolutional) nodes
// on photos and grey images, as plain numbers: the presets' photo choice
// (PhotoImages, Filters, the work model Cost; photo.go), a time budget's
// plan of local nodes (budget.go: Seconds, the modelled time of a fit of F
// filters; MostFilters, the most filters the time and memory pay for;
// ProbeRates, the rate and fixed seconds of two timed probe fits; Plan:
// the plan's description and prediction, the pace, the ridge choice's
// go-ahead and its further terms, the rules that stop a fit between
// blocks of filters, growing or not; Stopped, how a fit ended), the grey
// budget's probe (its settings, GreyGeometry, GreyProbeWork; the skip
// rule, the decision and the record, GreyProbe.Decide) and the photo
// budget's probe (PairedWin, the one-standard-error rule; ProbeFilters,
// the filters a candidate's share of the plan affords; PhotoClock, its
// clock; PhotoRecord) (probe.go, decide.go).
//
// internal/budgetflow runs the workflow (the probe fits and the clock's
// readings, the plans, the records) and the root package scn the
// configurations and the fits; they pass the geometry (localnet.Geometry,
// scn.Local), the shapes, rates and seconds down, and callbacks for what
// only they can compute (a fit's memory).
//
// It may import the standard library, internal/local (the poolings'
// names) and internal/localnet (the geometry, the ridge choice's work)
// only; never the root package scn or any package above it.
package localplan
