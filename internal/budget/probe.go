package budget

import (
	"math/rand/v2"
	"sort"
)

// The probe fit a budget's rates are measured with (scn's Calibrate): a
// sample of at most ProbeImages of the training images, two blocks of
// nodes (at most ProbeMaxNodes), a quarter of the sample held out (so
// that learners and preparations can be compared on it).
const (
	ProbeImages     = 4000
	ProbeMaxNodes   = 1000
	ProbeValidation = 0.25
)

// ProbeSample returns the probe's images of a set of n: at most
// ProbeImages of them drawn from seed, in increasing order.
func ProbeSample(n int, seed uint64) []int {
	k := min(n, ProbeImages)
	idx := rand.New(rand.NewPCG(seed, 0xca1b)).Perm(n)[:k]
	sort.Ints(idx)
	return idx
}

// ProbeNodes returns the probe fit's nodes and block size for a
// configuration's block size: two blocks, at most ProbeMaxNodes.
func ProbeNodes(blockSize int) (nodes, block int) {
	block = max(blockSize, 1)
	nodes = min(2*block, ProbeMaxNodes)
	return nodes, min(block, nodes)
}
