//go:build !purego

#include "textflag.h"

// func DotN4(a *float64, lda int, x *float64, n int, out *float64)
// out[r] = sum_{i<n} a[r*lda+i] * x[i] for r = 0..3; n must be a multiple
// of 8. Eight independent FMA chains (four rows, two halves of eight
// elements) hide the FMA latency; x is loaded once for the four rows.
TEXT ·DotN4(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), BX
	SHLQ $3, BX
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	MOVQ x+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX

dotloop:
	CMPQ AX, CX
	JGE  dotdone
	VMOVUPD     (DI)(AX*8), Y8
	VMOVUPD     32(DI)(AX*8), Y9
	VFMADD231PD (SI)(AX*8), Y8, Y0
	VFMADD231PD 32(SI)(AX*8), Y9, Y1
	VFMADD231PD (R8)(AX*8), Y8, Y2
	VFMADD231PD 32(R8)(AX*8), Y9, Y3
	VFMADD231PD (R9)(AX*8), Y8, Y4
	VFMADD231PD 32(R9)(AX*8), Y9, Y5
	VFMADD231PD (R10)(AX*8), Y8, Y6
	VFMADD231PD 32(R10)(AX*8), Y9, Y7
	ADDQ        $8, AX
	JMP         dotloop

dotdone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y5, Y4, Y4
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VHADDPD      X0, X0, X0
	MOVSD        X0, 0(DX)
	VEXTRACTF128 $1, Y2, X3
	VADDPD       X3, X2, X2
	VHADDPD      X2, X2, X2
	MOVSD        X2, 8(DX)
	VEXTRACTF128 $1, Y4, X5
	VADDPD       X5, X4, X4
	VHADDPD      X4, X4, X4
	MOVSD        X4, 16(DX)
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X7, X6, X6
	VHADDPD      X6, X6, X6
	MOVSD        X6, 24(DX)
	VZEROUPPER
	RET

// func AxpyN4(a *float64, lda int, c *float64, y *float64, n int)
// y[i] += c[0]*a[i] + c[1]*a[lda+i] + c[2]*a[2*lda+i] + c[3]*a[3*lda+i]
// for i < n, the four terms added in that order; n must be a multiple of 8.
TEXT ·AxpyN4(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), BX
	SHLQ $3, BX
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	MOVQ c+16(FP), DX
	MOVQ y+24(FP), DI
	MOVQ n+32(FP), CX
	VBROADCASTSD 0(DX), Y0
	VBROADCASTSD 8(DX), Y1
	VBROADCASTSD 16(DX), Y2
	VBROADCASTSD 24(DX), Y3
	XORQ AX, AX

axpyloop:
	CMPQ AX, CX
	JGE  axpydone
	VMOVUPD     (DI)(AX*8), Y4
	VMOVUPD     32(DI)(AX*8), Y5
	VFMADD231PD (SI)(AX*8), Y0, Y4
	VFMADD231PD 32(SI)(AX*8), Y0, Y5
	VFMADD231PD (R8)(AX*8), Y1, Y4
	VFMADD231PD 32(R8)(AX*8), Y1, Y5
	VFMADD231PD (R9)(AX*8), Y2, Y4
	VFMADD231PD 32(R9)(AX*8), Y2, Y5
	VFMADD231PD (R10)(AX*8), Y3, Y4
	VFMADD231PD 32(R10)(AX*8), Y3, Y5
	VMOVUPD     Y4, (DI)(AX*8)
	VMOVUPD     Y5, 32(DI)(AX*8)
	ADDQ        $8, AX
	JMP         axpyloop

axpydone:
	VZEROUPPER
	RET
