//go:build !purego

#include "textflag.h"

// DotBF16x8x32 is written by hand: Go's assembler (and avo) do not know
// AVX512-BF16, so VDPBF16PS is spelled out in bytes below. DP_i is
//
//	VDPBF16PS Z(16 + i%2), Z(18 + i/2), Z(i)
//
// (Intel order: vdpbf16ps zmm_i, zmm_{18+i/2}, zmm_{16+i%2}): accumulator
// Z(i) of row i/2, columns 16(i%2) .. 16(i%2)+15, gains the pair product of
// row i/2's broadcast pair (Z18..Z25) and the columns' pairs (Z16, Z17).
// The bytes were produced by GNU as from those instructions.

#define DP_0 BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc0
#define DP_1 BYTE $0x62; BYTE $0xb2; BYTE $0x6e; BYTE $0x40; BYTE $0x52; BYTE $0xc9
#define DP_2 BYTE $0x62; BYTE $0xb2; BYTE $0x66; BYTE $0x40; BYTE $0x52; BYTE $0xd0
#define DP_3 BYTE $0x62; BYTE $0xb2; BYTE $0x66; BYTE $0x40; BYTE $0x52; BYTE $0xd9
#define DP_4 BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xe0
#define DP_5 BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xe9
#define DP_6 BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xf0
#define DP_7 BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xf9
#define DP_8 BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc0
#define DP_9 BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc9
#define DP_10 BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xd0
#define DP_11 BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xd9
#define DP_12 BYTE $0x62; BYTE $0x32; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe0
#define DP_13 BYTE $0x62; BYTE $0x32; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe9
#define DP_14 BYTE $0x62; BYTE $0x32; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xf0
#define DP_15 BYTE $0x62; BYTE $0x32; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xf9

// func DotBF16x8x32(kp int, a *uint32, off *[8]int, b *uint32, c *float32, kc int)
//
// Registers: AX, BX, DX, SI, R8-R11 the 8 rows; DI the columns' pairs; R12
// the rows' byte offset; CX the pairs left; R15 the pairs left in the
// chunk; R14 the tile c. Z0-Z15 the chunk's sums, Z16-Z17 the columns'
// pairs, Z18-Z25 the rows' pairs broadcast.
TEXT ·DotBF16x8x32(SB), NOSPLIT, $0-48
	MOVQ kp+0(FP), CX
	MOVQ a+8(FP), R13
	MOVQ off+16(FP), R12
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), R14
	MOVQ 0(R12), AX
	ADDQ R13, AX
	MOVQ 8(R12), BX
	ADDQ R13, BX
	MOVQ 16(R12), DX
	ADDQ R13, DX
	MOVQ 24(R12), SI
	ADDQ R13, SI
	MOVQ 32(R12), R8
	ADDQ R13, R8
	MOVQ 40(R12), R9
	ADDQ R13, R9
	MOVQ 48(R12), R10
	ADDQ R13, R10
	MOVQ 56(R12), R11
	ADDQ R13, R11
	XORQ R12, R12
	TESTQ CX, CX
	JZ done

chunk:
	MOVQ kc+40(FP), R15
	CMPQ CX, R15
	JGE full
	MOVQ CX, R15

full:
	SUBQ R15, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

loop:
	VMOVUPS (DI), Z16
	VMOVUPS 64(DI), Z17
	VPBROADCASTD (AX)(R12*1), Z18
	VPBROADCASTD (BX)(R12*1), Z19
	VPBROADCASTD (DX)(R12*1), Z20
	VPBROADCASTD (SI)(R12*1), Z21
	VPBROADCASTD (R8)(R12*1), Z22
	VPBROADCASTD (R9)(R12*1), Z23
	VPBROADCASTD (R10)(R12*1), Z24
	VPBROADCASTD (R11)(R12*1), Z25
	DP_0
	DP_1
	DP_2
	DP_3
	DP_4
	DP_5
	DP_6
	DP_7
	DP_8
	DP_9
	DP_10
	DP_11
	DP_12
	DP_13
	DP_14
	DP_15
	ADDQ $128, DI
	ADDQ $128, R12
	DECQ R15
	JNZ loop

	VADDPS 0(R14), Z0, Z0
	VMOVUPS Z0, 0(R14)
	VADDPS 64(R14), Z1, Z1
	VMOVUPS Z1, 64(R14)
	VADDPS 128(R14), Z2, Z2
	VMOVUPS Z2, 128(R14)
	VADDPS 192(R14), Z3, Z3
	VMOVUPS Z3, 192(R14)
	VADDPS 256(R14), Z4, Z4
	VMOVUPS Z4, 256(R14)
	VADDPS 320(R14), Z5, Z5
	VMOVUPS Z5, 320(R14)
	VADDPS 384(R14), Z6, Z6
	VMOVUPS Z6, 384(R14)
	VADDPS 448(R14), Z7, Z7
	VMOVUPS Z7, 448(R14)
	VADDPS 512(R14), Z8, Z8
	VMOVUPS Z8, 512(R14)
	VADDPS 576(R14), Z9, Z9
	VMOVUPS Z9, 576(R14)
	VADDPS 640(R14), Z10, Z10
	VMOVUPS Z10, 640(R14)
	VADDPS 704(R14), Z11, Z11
	VMOVUPS Z11, 704(R14)
	VADDPS 768(R14), Z12, Z12
	VMOVUPS Z12, 768(R14)
	VADDPS 832(R14), Z13, Z13
	VMOVUPS Z13, 832(R14)
	VADDPS 896(R14), Z14, Z14
	VMOVUPS Z14, 896(R14)
	VADDPS 960(R14), Z15, Z15
	VMOVUPS Z15, 960(R14)
	TESTQ CX, CX
	JNZ chunk

done:
	VZEROUPPER
	RET
