// Package localplan owns the policy of scn's local (convolutional) nodes
// on photos and grey images, as plain numbers: the presets' photo choice
// (PhotoImages, Filters, the work model Cost), a time budget's plan of
// local nodes (Seconds: the modelled time of a fit of F filters;
// MostFilters: the most filters the time and memory pay for; ProbeRates:
// the rate and fixed seconds of two timed probe fits; Work: the pace, the
// ridge choice's go-ahead and the rules that stop a fit between blocks of
// filters, growing or not), the grey budget's probe (GreyProbeWork, its
// settings) and the photo budget's probe (PairedWin: the one-standard-error
// rule; ProbeFilters: the filters a candidate's share of the plan
// affords).
//
// The root package scn keeps the workflow: the configurations, the probe
// fits and their clock, the models and the records; it passes the
// geometry (localnet.Geometry, scn.Local), the shapes, rates and seconds
// down, and callbacks for what only it can compute (a fit's memory).
//
// It may import the standard library and internal/localnet (the geometry,
// the ridge choice's work) only; never the root package scn or any
// package above it.
package localplan
