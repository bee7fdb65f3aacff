package drive

// Mode is the driver a fit takes: the one dispatch of package scn (its
// Config.mode decides it).
type Mode int

const (
	// ModeOneNode is the paper's path: one node at a time, the output
	// weights by an incremental QR factorisation (OneNode).
	ModeOneNode Mode = iota
	// ModeBlock is the block engine, block by block (package scn's drive_block.go).
	ModeBlock
	// ModeOnePass is the block engine in one pass over the data: every
	// block of random nodes drawn first, their Gram sums formed together
	// (drive_onepass.go).
	ModeOnePass
	// ModeDeep stacks layers of nodes (deep.go).
	ModeDeep
	// ModeLocal fits local (convolutional) nodes (fit_local.go).
	ModeLocal
)

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case ModeOneNode:
		return "one node"
	case ModeBlock:
		return "block"
	case ModeOnePass:
		return "one pass"
	case ModeDeep:
		return "deep"
	case ModeLocal:
		return "local"
	}
	return "unknown"
}

// ModeOf returns the driver of a fit: local nodes, layers, the one-node
// path unless an option needs the block engine (block), then one pass
// (onePass: random learners with a ridge, unless the run keeps the fit
// block by block).
func ModeOf(local, layers, block, onePass bool) Mode {
	switch {
	case local:
		return ModeLocal
	case layers:
		return ModeDeep
	case !block:
		return ModeOneNode
	case onePass:
		return ModeOnePass
	}
	return ModeBlock
}
