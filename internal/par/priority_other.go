//go:build !linux

package par

// lowerPriority does nothing where a thread's priority cannot be set
// alone: Background is Limited there.
func lowerPriority() {}
