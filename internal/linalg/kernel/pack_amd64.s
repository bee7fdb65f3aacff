//go:build !purego

#include "textflag.h"

// Pack32AVX512 exists in one form (AVX-512 gathers), so it is written by
// hand; the 2D-node kernels it packs for are generated (./asm, mat2d).

DATA iota16<>+0(SB)/4, $0
DATA iota16<>+4(SB)/4, $1
DATA iota16<>+8(SB)/4, $2
DATA iota16<>+12(SB)/4, $3
DATA iota16<>+16(SB)/4, $4
DATA iota16<>+20(SB)/4, $5
DATA iota16<>+24(SB)/4, $6
DATA iota16<>+28(SB)/4, $7
DATA iota16<>+32(SB)/4, $8
DATA iota16<>+36(SB)/4, $9
DATA iota16<>+40(SB)/4, $10
DATA iota16<>+44(SB)/4, $11
DATA iota16<>+48(SB)/4, $12
DATA iota16<>+52(SB)/4, $13
DATA iota16<>+56(SB)/4, $14
DATA iota16<>+60(SB)/4, $15
GLOBL iota16<>(SB), RODATA|NOPTR, $64

// func Pack32AVX512(src *float32, np int, n int, dst *float32)
// dst[t*32+lane] = src[lane*np+t] for t < n, lane < 32: two gathers of
// sixteen per t.
TEXT ·Pack32AVX512(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ np+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ dst+24(FP), DI
	VPBROADCASTD DX, Z2
	VPMULLD iota16<>(SB), Z2, Z1
	MOVQ DX, R8
	SHLQ $6, R8
	ADDQ SI, R8
	TESTQ CX, CX
	JLE  packdone

packloop:
	KXNORW K1, K1, K1
	VPGATHERDD (SI)(Z1*4), K1, Z0
	KXNORW K2, K2, K2
	VPGATHERDD (R8)(Z1*4), K2, Z3
	VMOVDQU32 Z0, 0(DI)
	VMOVDQU32 Z3, 64(DI)
	ADDQ $4, SI
	ADDQ $4, R8
	ADDQ $128, DI
	DECQ CX
	JNZ  packloop

packdone:
	VZEROUPPER
	RET
