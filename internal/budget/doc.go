// Package budget is the plain part of scn's time budgets (scn.Budget): the
// records a budgeted fit keeps (Rates, the machine's costs; Plan, what the
// budget chose before fitting; Checkpoint and Record, what happened, saved
// in the model file; Probe, a probe's measure of one problem), the plan's
// arithmetic over shapes and rates (Plan.Size: the nodes the time left pays
// for, the cap a fit running ahead may grow to, the memory bound's search
// MemoryCap; Plan.FinishSeconds and Plan.Run, the time model a fit under
// way is watched by; Measured, the rates of a timed probe fit; the
// probe's sample and sizes, probe.go), a fit under way (Clock, Fit: its
// checkpoints, the watch or the stages, how it stopped; run.go), and the
// record's encoding in the model file's header (Encode, Decode).
//
// internal/budgetflow runs the budget's workflow (the learner's choice,
// the probes, the plans, the fits under the clock) over these, and the
// root package its fits with model selection and Replay; its Rates,
// BudgetPlan, Checkpoint, BudgetRecord and Probe are this package's types
// (aliases).
//
// It may import the standard library, internal/kind (the learner a plan
// records), internal/timing (the time model), internal/holdout (the grid
// selection scores) and internal/modelfile (the header's record) only;
// never the root package scn or any package above it.
package budget
