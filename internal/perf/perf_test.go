package perf

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

func TestRunReportsEveryPart(t *testing.T) {
	r, err := Run(context.Background(), Options{Kind: scn.SCN2D, N: 500, Nodes: 20, RefN: 200, RefNodes: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes != 20 || r.Profile.Batches < 20 || r.ScoreGFLOPS <= 0 || r.PredictPerSec <= 0 || r.RefPerNode <= 0 {
		t.Fatalf("incomplete report: %+v", r)
	}
	var buf bytes.Buffer
	r.Print(&buf)
	for _, want := range []string{"scoring", "orthogonalisation", "prediction", "reference", "faster"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}
