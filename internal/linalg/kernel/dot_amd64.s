//go:build !purego

#include "textflag.h"

// func Dot2x5(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32)
// out[2*j+r] = sum_{t<n} x_r[t] * w_j[t] for r in {0,1}, j in {0..4};
// n must be a multiple of 8. Each sum is formed exactly as in Dot3x4 (one
// accumulator of eight lanes, the same final reduction), so a candidate's
// output does not depend on which kernel computed it.
TEXT ·Dot2x5(SB), NOSPLIT, $0-72
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ w0+16(FP), R8
	MOVQ w1+24(FP), R9
	MOVQ w2+32(FP), R10
	MOVQ w3+40(FP), R11
	MOVQ w4+48(FP), R12
	MOVQ n+56(FP), CX
	MOVQ out+64(FP), DX
	MOVQ DI, BX
	SUBQ SI, BX
	LEAQ (DI)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	XORQ AX, AX

loop5:
	CMPQ AX, CX
	JGE  done5
	PREFETCHT0 (R13)(AX*4)
	PREFETCHT0 (R14)(AX*4)
	VMOVUPS (SI)(AX*4), Y10
	VMOVUPS (DI)(AX*4), Y11
	VMOVUPS (R8)(AX*4), Y12
	VFMADD231PS Y10, Y12, Y0
	VFMADD231PS Y11, Y12, Y1
	VMOVUPS (R9)(AX*4), Y12
	VFMADD231PS Y10, Y12, Y2
	VFMADD231PS Y11, Y12, Y3
	VMOVUPS (R10)(AX*4), Y12
	VFMADD231PS Y10, Y12, Y4
	VFMADD231PS Y11, Y12, Y5
	VMOVUPS (R11)(AX*4), Y12
	VFMADD231PS Y10, Y12, Y6
	VFMADD231PS Y11, Y12, Y7
	VMOVUPS (R12)(AX*4), Y12
	VFMADD231PS Y10, Y12, Y8
	VFMADD231PS Y11, Y12, Y9
	ADDQ $8, AX
	JMP  loop5

done5:
	VEXTRACTF128 $1, Y0, X12
	VADDPS       X12, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, 0(DX)
	VEXTRACTF128 $1, Y1, X12
	VADDPS       X12, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	MOVSS        X1, 4(DX)
	VEXTRACTF128 $1, Y2, X12
	VADDPS       X12, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	MOVSS        X2, 8(DX)
	VEXTRACTF128 $1, Y3, X12
	VADDPS       X12, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	MOVSS        X3, 12(DX)
	VEXTRACTF128 $1, Y4, X12
	VADDPS       X12, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	MOVSS        X4, 16(DX)
	VEXTRACTF128 $1, Y5, X12
	VADDPS       X12, X5, X5
	VHADDPS      X5, X5, X5
	VHADDPS      X5, X5, X5
	MOVSS        X5, 20(DX)
	VEXTRACTF128 $1, Y6, X12
	VADDPS       X12, X6, X6
	VHADDPS      X6, X6, X6
	VHADDPS      X6, X6, X6
	MOVSS        X6, 24(DX)
	VEXTRACTF128 $1, Y7, X12
	VADDPS       X12, X7, X7
	VHADDPS      X7, X7, X7
	VHADDPS      X7, X7, X7
	MOVSS        X7, 28(DX)
	VEXTRACTF128 $1, Y8, X12
	VADDPS       X12, X8, X8
	VHADDPS      X8, X8, X8
	VHADDPS      X8, X8, X8
	MOVSS        X8, 32(DX)
	VEXTRACTF128 $1, Y9, X12
	VADDPS       X12, X9, X9
	VHADDPS      X9, X9, X9
	VHADDPS      X9, X9, X9
	MOVSS        X9, 36(DX)
	VZEROUPPER
	RET

// func Dot3x4(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32)
// out[3*j+r] = sum_{t<n} x_r[t] * w_j[t] for r in {0,1,2}, j in {0..3};
// n must be a multiple of 8. Twelve accumulators, seven loads per twelve
// FMAs; each sum is formed exactly as in Dot2x5 (one accumulator of eight
// lanes, the same final reduction), so the outputs do not depend on which
// kernel computed them. The three images after x2 are prefetched when the
// rows are consecutive (the caller's layout).
TEXT ·Dot3x4(SB), NOSPLIT, $0-72
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ x2+16(FP), R8
	MOVQ w0+24(FP), R9
	MOVQ w1+32(FP), R10
	MOVQ w2+40(FP), R11
	MOVQ w3+48(FP), R12
	MOVQ n+56(FP), CX
	MOVQ out+64(FP), DX
	MOVQ DI, BX
	SUBQ SI, BX
	LEAQ (R8)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	LEAQ (R14)(BX*1), BX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ AX, AX

loop34:
	CMPQ AX, CX
	JGE  done34
	PREFETCHT0 (R13)(AX*4)
	PREFETCHT0 (R14)(AX*4)
	PREFETCHT0 (BX)(AX*4)
	VMOVUPS (SI)(AX*4), Y12
	VMOVUPS (DI)(AX*4), Y13
	VMOVUPS (R8)(AX*4), Y14
	VMOVUPS (R9)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS (R10)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS (R11)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS (R12)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ $8, AX
	JMP  loop34

done34:
	VEXTRACTF128 $1, Y0, X12
	VADDPS       X12, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, 0(DX)
	VEXTRACTF128 $1, Y1, X12
	VADDPS       X12, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	MOVSS        X1, 4(DX)
	VEXTRACTF128 $1, Y2, X12
	VADDPS       X12, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	MOVSS        X2, 8(DX)
	VEXTRACTF128 $1, Y3, X12
	VADDPS       X12, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	MOVSS        X3, 12(DX)
	VEXTRACTF128 $1, Y4, X12
	VADDPS       X12, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	MOVSS        X4, 16(DX)
	VEXTRACTF128 $1, Y5, X12
	VADDPS       X12, X5, X5
	VHADDPS      X5, X5, X5
	VHADDPS      X5, X5, X5
	MOVSS        X5, 20(DX)
	VEXTRACTF128 $1, Y6, X12
	VADDPS       X12, X6, X6
	VHADDPS      X6, X6, X6
	VHADDPS      X6, X6, X6
	MOVSS        X6, 24(DX)
	VEXTRACTF128 $1, Y7, X12
	VADDPS       X12, X7, X7
	VHADDPS      X7, X7, X7
	VHADDPS      X7, X7, X7
	MOVSS        X7, 28(DX)
	VEXTRACTF128 $1, Y8, X12
	VADDPS       X12, X8, X8
	VHADDPS      X8, X8, X8
	VHADDPS      X8, X8, X8
	MOVSS        X8, 32(DX)
	VEXTRACTF128 $1, Y9, X12
	VADDPS       X12, X9, X9
	VHADDPS      X9, X9, X9
	VHADDPS      X9, X9, X9
	MOVSS        X9, 36(DX)
	VEXTRACTF128 $1, Y10, X12
	VADDPS       X12, X10, X10
	VHADDPS      X10, X10, X10
	VHADDPS      X10, X10, X10
	MOVSS        X10, 40(DX)
	VEXTRACTF128 $1, Y11, X12
	VADDPS       X12, X11, X11
	VHADDPS      X11, X11, X11
	VHADDPS      X11, X11, X11
	MOVSS        X11, 44(DX)
	VZEROUPPER
	RET
