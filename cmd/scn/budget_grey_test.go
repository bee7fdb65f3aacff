package main

import (
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn"
)

// The plan line says what the grey probe compared and chose, after the
// plan it made, and says nothing of a probe when there was none.
func TestBudgetPlanLineProbe(t *testing.T) {
	pl := scn.BudgetPlan{Kind: scn.RVFL2D, Preset: "default", Nodes: 1728, MaxNodes: 1728, BlockSize: 1, Filters: 48,
		Validation: 0.1, Ridges: []float64{10, 30}, FitRidge: 10, Why: "grey images"}
	plain := budgetPlanLine(time.Minute, pl)
	if strings.Contains(plain, "probe") {
		t.Errorf("no probe, line %q", plain)
	}
	pl.Probe = "local 85.62%, global 83.36%: local"
	if got := budgetPlanLine(time.Minute, pl); got != plain+"; probe: "+pl.Probe {
		t.Errorf("line %q, want %q", got, plain+"; probe: "+pl.Probe)
	}
}
