//go:build !linux

package par

// selfID names the calling goroutine: its id, read from its stack trace.
func selfID() uint64 { return goid() }
