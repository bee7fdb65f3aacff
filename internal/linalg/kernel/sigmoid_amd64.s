//go:build !purego

#include "textflag.h"

// Constants of the Cephes single-precision exp (as in avx_mathfun), each
// broadcast to eight lanes.
DATA expc<>+0(SB)/4, $0x42b0c0a5   // exp_hi  88.3762626647949
DATA expc<>+4(SB)/4, $0xc2b0c0a5   // exp_lo -88.3762626647949
DATA expc<>+8(SB)/4, $0x3fb8aa3b   // log2(e) 1.44269504088896341
DATA expc<>+12(SB)/4, $0x3f000000  // 0.5
DATA expc<>+16(SB)/4, $0x3f318000  // C1 0.693359375
DATA expc<>+20(SB)/4, $0xb95e8083  // C2 -2.12194440e-4
DATA expc<>+24(SB)/4, $0x39506967  // p0 1.9875691500e-4
DATA expc<>+28(SB)/4, $0x3ab743ce  // p1 1.3981999507e-3
DATA expc<>+32(SB)/4, $0x3c088908  // p2 8.3334519073e-3
DATA expc<>+36(SB)/4, $0x3d2aa9c1  // p3 4.1665795894e-2
DATA expc<>+40(SB)/4, $0x3e2aaaaa  // p4 1.6666665459e-1
DATA expc<>+44(SB)/4, $0x3f000000  // p5 5.0000001201e-1
DATA expc<>+48(SB)/4, $0x3f800000  // 1.0
DATA expc<>+52(SB)/4, $0x0000007f  // 127
GLOBL expc<>(SB), RODATA|NOPTR, $56

// func SigmoidBias8(z *float32, n int, b float32)
// z[i] = 1/(1+exp(-(z[i]+b))) for i < n; n must be a multiple of 8.
TEXT ·SigmoidBias8(SB), NOSPLIT, $0-20
	MOVQ z+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS b+16(FP), Y15
	VBROADCASTSS expc<>+0(SB), Y14   // hi
	VBROADCASTSS expc<>+4(SB), Y13   // lo
	VBROADCASTSS expc<>+8(SB), Y12   // log2e
	VBROADCASTSS expc<>+12(SB), Y11  // 0.5
	VBROADCASTSS expc<>+48(SB), Y10  // 1.0
	VXORPS Y9, Y9, Y9                // 0
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPS (SI)(AX*4), Y0
	VADDPS  Y15, Y0, Y0              // t = z + b
	VSUBPS  Y0, Y9, Y0               // x = -t
	VMINPS  Y14, Y0, Y0
	VMAXPS  Y13, Y0, Y0
	// fx = floor(x*log2e + 0.5)
	VMOVAPS Y0, Y1
	VFMADD213PS Y11, Y12, Y1         // Y1 = x*log2e + 0.5
	VROUNDPS $1, Y1, Y1              // floor
	// x = x - fx*C1 - fx*C2
	VBROADCASTSS expc<>+16(SB), Y2
	VFNMADD231PS Y2, Y1, Y0          // x -= fx*C1
	VBROADCASTSS expc<>+20(SB), Y2
	VFNMADD231PS Y2, Y1, Y0          // x -= fx*C2
	// y = polynomial
	VBROADCASTSS expc<>+24(SB), Y3
	VBROADCASTSS expc<>+28(SB), Y2
	VFMADD213PS Y2, Y0, Y3           // y = p0*x + p1
	VBROADCASTSS expc<>+32(SB), Y2
	VFMADD213PS Y2, Y0, Y3
	VBROADCASTSS expc<>+36(SB), Y2
	VFMADD213PS Y2, Y0, Y3
	VBROADCASTSS expc<>+40(SB), Y2
	VFMADD213PS Y2, Y0, Y3
	VBROADCASTSS expc<>+44(SB), Y2
	VFMADD213PS Y2, Y0, Y3           // y = (...)*x + p5
	VMULPS  Y0, Y0, Y4               // x*x
	VFMADD213PS Y0, Y4, Y3           // y = y*x*x + x
	VADDPS  Y10, Y3, Y3              // y += 1
	// 2^fx
	VCVTTPS2DQ Y1, Y5
	VPBROADCASTD expc<>+52(SB), Y6
	VPADDD  Y6, Y5, Y5
	VPSLLD  $23, Y5, Y5
	VMULPS  Y5, Y3, Y3               // e^x
	// 1/(1+e^-t)
	VADDPS  Y10, Y3, Y3
	VDIVPS  Y3, Y10, Y3
	VMOVUPS Y3, (SI)(AX*4)
	ADDQ $8, AX
	JMP  loop

done:
	VZEROUPPER
	RET
