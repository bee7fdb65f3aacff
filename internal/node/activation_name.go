package node

import (
	"fmt"
	"strings"
)

var activationNames = []string{"sigmoid", "tanh", "relu"}

// String returns the activation's name (scn.Activation's String).
func (a Activation) String() string {
	if a < 0 || int(a) >= len(activationNames) {
		return fmt.Sprintf("activation(%d)", int(a))
	}
	return activationNames[a]
}

// ParseActivation reads an activation's name ("sigmoid", "tanh", "relu";
// case is ignored).
func ParseActivation(s string) (Activation, error) {
	for i, n := range activationNames {
		if strings.EqualFold(s, n) {
			return Activation(i), nil
		}
	}
	return 0, fmt.Errorf("scn: unknown activation %q (want sigmoid, tanh or relu)", s)
}
