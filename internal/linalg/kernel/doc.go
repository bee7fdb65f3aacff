// Package kernel holds the project's hand-written assembly kernels. It is
// apart from package linalg because Go does not assemble .s files in a
// package that uses cgo, which linalg does in its OpenBLAS build.
package kernel
