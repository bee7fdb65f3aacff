// Package cfgerr holds the one error every impossible hyper-parameter
// wraps (scn.ErrConfig is this value), so that the packages under the root
// that validate part of a configuration (internal/localnet: the local
// nodes' geometry) report it as the root does; and DataError, the errors
// about the data such packages return, which the root wraps in its
// ErrData. It imports the standard library only.
package cfgerr

import "errors"

// ErrConfig is wrapped by every error about impossible hyper-parameters.
var ErrConfig = errors.New("scn: invalid configuration")
