//go:build !(linux && (amd64 || arm64))

package bigmem

// advise does nothing where the hints are not known.
func advise([]byte) {}
