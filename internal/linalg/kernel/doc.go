// Package kernel holds the project's assembly kernels. It is apart from
// package linalg because Go does not assemble .s files in a package that
// uses cgo, which linalg does in its OpenBLAS build.
//
// The scoring kernels (dot_amd64.s: Dot2x5 and Dot3x4, each in an AVX2 and
// an AVX-512 form) are one family written four times over: they are
// generated from one description by the avo program in ./asm (a module of
// its own, so that the project does not depend on avo). Its output was
// checked to be the same machine code, byte for byte, as the hand-written
// kernels it replaced (go tool objdump of the linked functions), so it
// runs at their speed by construction; CI regenerates the file and fails
// if it differs from the one committed. After editing ./asm, run go
// generate here, then the tests against plain loops and across widths
// (TestScoreNTMatchesNaive, TestScoreNTIndependentOfGrouping in
// internal/linalg) and BenchmarkScoreNT.
//
// The 2D-node kernels Mat2D16 (AVX2) and Mat2D32AVX512, which score nodes
// in their u^T X v form for prediction (linalg.Score2D), are generated
// from one description by the same program (mat2d in ./asm), with the
// same bits at both widths (TestScore2DIndependent in internal/linalg).
// Pack32AVX512 (pack_amd64.s), which packs their nodes with gathers,
// exists in one form only and is written by hand.
//
// DotBF16x8x32 (bf16_amd64.s), the bfloat16 Gram kernel, is written by
// hand too: it exists in one form, and neither Go's assembler nor avo
// knows AVX512-BF16, so its VDPBF16PS instructions are spelled in bytes
// (from GNU as). linalg.GramBF16 has a Go loop with its bits, which the
// tests compare it with (TestGramBF16KernelMatchesGo).
//
// The float64 four-row kernels DotN4 and AxpyN4 (gs_amd64.s) and
// SigmoidBias8 (sigmoid_amd64.s) stay hand-written: each exists in one
// form only (AVX2), so there is no second form for a generator to derive,
// and their repeated lines are the unrolled rows of a single loop. They
// are tested against plain loops (TestRows4MatchLoops here, and
// TestSigmoidRowMatchesMathExp in package scn), and the golden-file test of
// package scn pins the model bytes they produce.
package kernel

//go:generate sh -c "cd asm && go run . -out ../dot_amd64.s"
