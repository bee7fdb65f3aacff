package direct

import (
	"strings"
	"testing"
)

// TestLinkCheck: a pooling side out of range or a weight count other
// than features x outputs is refused, naming what is wrong.
func TestLinkCheck(t *testing.T) {
	if err := (&Link{Pool: 2, Beta: make([]float64, 6)}).Check(4, 5, 3, 2); err != nil {
		t.Fatalf("valid links: %v", err)
	}
	for _, c := range []struct {
		l    Link
		want string
	}{
		{Link{Pool: 0, Beta: make([]float64, 6)}, "pooled by 0 on 4 x 5"},
		{Link{Pool: 5, Beta: make([]float64, 6)}, "pooled by 5 on 4 x 5"},
		{Link{Pool: 1, Beta: make([]float64, 5)}, "5 direct-link weights for 3 features and 2 outputs"},
	} {
		if err := c.l.Check(4, 5, 3, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.l, err, c.want)
		}
	}
}
