// Package budgetflow runs scn's time budgets (scn.Budget): the workflows
// that go from a training set and a clock to a fitted model and its record
// (Fit: the global plan, with the grey images' probe of local against
// global nodes, fit.go and grey.go; FitLocal: a plan of local nodes on
// photos or grey images, its rate probe, the clock between blocks of
// filters and before the ridge choice, local.go; ChoosePhotos: the photo
// budget's probe of filter and image sizes, photo.go). They run behind a
// small interface the root package implements (Job, Prober over its
// configurations C and models M: a configuration's settings and memory,
// the probe fits, the fit with its checkpoint or stage callbacks, the
// record written into the model), so that the control flow (probe, plan,
// memory cap, stop, checkpoint, record) is here and the root keeps the
// public methods and a short adapter.
//
// The arithmetic the workflows read is the packages' below: the plan, the
// record and a fit under way internal/budget's; the plan of local nodes,
// its probes' settings and rules internal/localplan's; the time model and
// the timed factor internal/timing's.
//
// It may import the standard library, internal/budget, internal/cfgerr
// (the configuration error), internal/kind, internal/localnet,
// internal/localplan and internal/timing only; never the root package scn
// or any package above it.
package budgetflow
