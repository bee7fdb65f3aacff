// Command asm generates the scoring kernels of package kernel
// (../dot_amd64.s) with avo: Dot2x5 and Dot3x4 in their AVX2 (eight
// lanes) and AVX-512 (sixteen lanes) forms, from one description of the
// kernel family, and the 2D-node kernels Mat2D16 (AVX2) and Mat2D32AVX512
// from one description of theirs (see mat2d). Run it with go generate in package kernel; it is a module
// of its own so that the project does not depend on avo.
//
// Each kernel computes out[ni*j+r] = sum_{t<n} x_r[t] * w_j[t] for ni
// images x_r and nw candidate weight rows w_j: ni*nw accumulators of one
// vector register each, the images loaded once per step and each weight
// row once, the images that follow prefetched, and each accumulator reduced
// to one float32 the same way in every kernel (sixteen lanes to eight, then
// eight to four, then two horizontal adds), so that a candidate's output
// does not depend on which kernel computed it.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// kernel describes one member of the family.
type kernel struct {
	name    string
	ni, nw  int  // images and weight rows per call
	wide    bool // sixteen lanes (AVX-512) instead of eight (AVX2)
	label   string
	xregs   []GPPhysical // image pointers
	wregs   []GPPhysical // weight-row pointers
	chain   []GPPhysical // pointers to the images after the last one (from the row stride), prefetched
	scratch int          // vector register for the reduction
	movss   func(mx, mx1 Op)
}

var gp = []GPPhysical{RSI, RDI, R8, R9, R10, R11, R12, R13}

func main() {
	ConstraintExpr("!purego")
	for _, k := range []kernel{
		{name: "Dot2x5", ni: 2, nw: 5, label: "5", xregs: gp[:2], wregs: gp[2:7],
			chain: []GPPhysical{R13, R14}, scratch: 12, movss: MOVSS},
		{name: "Dot3x4", ni: 3, nw: 4, label: "34", xregs: gp[:3], wregs: gp[3:7],
			chain: []GPPhysical{R13, R14, RBX}, scratch: 12, movss: MOVSS},
		{name: "Dot3x4AVX512", ni: 3, nw: 4, wide: true, label: "34z", xregs: gp[:3], wregs: gp[3:7],
			chain: []GPPhysical{R14, RBX}, scratch: 12, movss: func(a, b Op) { VMOVSS(a, b) }},
		{name: "Dot2x5AVX512", ni: 2, nw: 5, wide: true, label: "25z", xregs: gp[:2], wregs: gp[3:8],
			chain: []GPPhysical{R14, RBX}, scratch: 10, movss: func(a, b Op) { VMOVSS(a, b) }},
	} {
		k.generate()
	}
	mat2d("Mat2D16", false)
	mat2d("Mat2D32AVX512", true)
	Generate()
}

func (k kernel) generate() {
	var params []string
	for r := 0; r < k.ni; r++ {
		params = append(params, fmt.Sprintf("x%d", r))
	}
	for j := 0; j < k.nw; j++ {
		params = append(params, fmt.Sprintf("w%d", j))
	}
	sig := ""
	for i, p := range params {
		if i > 0 {
			sig += ", "
		}
		sig += p
	}
	TEXT(k.name, NOSPLIT, "func("+sig+" *float32, n int, out *float32)")
	lanes := 8
	if k.wide {
		lanes = 16
	}
	for r, x := range k.xregs {
		Load(Param(params[r]), x)
	}
	for j, w := range k.wregs {
		Load(Param(params[k.ni+j]), w)
	}
	Load(Param("n"), RCX)
	Load(Param("out"), RDX)
	// The row stride, and pointers to the images after the last one.
	MOVQ(k.xregs[1], RBX)
	SUBQ(k.xregs[0], RBX)
	prev := k.xregs[len(k.xregs)-1]
	for _, c := range k.chain {
		LEAQ(Mem{Base: prev, Index: RBX, Scale: 1}, c)
		prev = c
	}
	vec := func(i int) VecPhysical {
		if k.wide {
			return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15}[i]
		}
		return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
	}
	acc := k.ni * k.nw
	for i := 0; i < acc; i++ {
		if k.wide {
			VPXORD(vec(i), vec(i), vec(i))
		} else {
			VXORPS(vec(i), vec(i), vec(i))
		}
	}
	XORQ(RAX, RAX)

	loop, done := "loop"+k.label, "done"+k.label
	if k.wide {
		loop, done = "l"+k.label, "l"+k.label+"done"
	}
	Label(loop)
	CMPQ(RAX, RCX)
	JGE(LabelRef(done))
	for _, c := range k.chain {
		PREFETCHT0(Mem{Base: c, Index: RAX, Scale: 4})
	}
	for r, x := range k.xregs {
		VMOVUPS(Mem{Base: x, Index: RAX, Scale: 4}, vec(acc+r))
	}
	w := vec(acc + k.ni)
	for j, wr := range k.wregs {
		VMOVUPS(Mem{Base: wr, Index: RAX, Scale: 4}, w)
		for r := 0; r < k.ni; r++ {
			VFMADD231PS(vec(acc+r), w, vec(k.ni*j+r))
		}
	}
	ADDQ(Imm(uint64(lanes)), RAX)
	JMP(LabelRef(loop))

	Label(done)
	xs := []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	ys := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}
	for i := 0; i < acc; i++ {
		if k.wide {
			VEXTRACTF32X8(Imm(1), vec(i), ys[k.scratch])
			VADDPS(ys[k.scratch], ys[i], ys[i])
		}
		VEXTRACTF128(Imm(1), ys[i], xs[k.scratch])
		VADDPS(xs[k.scratch], xs[i], xs[i])
		VHADDPS(xs[i], xs[i], xs[i])
		VHADDPS(xs[i], xs[i], xs[i])
		k.movss(xs[i], Mem{Base: RDX, Disp: 4 * i})
	}
	VZEROUPPER()
	RET()
}

// mat2d generates a 2D-node kernel: out[j] += sum_i u[i*32+j] * (sum_k
// x[i*ldx+k] * v[k*32+j]) for the lanes j of two vector registers (16 with
// AVX2, 32 with AVX-512), v (d2 rows) and u (d1 rows) packed 32 lanes to a
// row. Each lane's row sum is one chain of FMAs over k from zero, four
// image rows at a time (eight accumulators) and then one at a time, and
// the row sums are added to out in order of i: the same operations on each
// lane whatever the width, so both forms give the same bits.
func mat2d(name string, wide bool) {
	TEXT(name, NOSPLIT, "func(x *float32, ldx int, d1 int, d2 int, v *float32, u *float32, out *float32)")
	vec := func(i int) VecPhysical {
		if wide {
			return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15}[i]
		}
		return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
	}
	zero := func(v VecPhysical) {
		if wide {
			VPXORD(v, v, v)
		} else {
			VXORPS(v, v, v)
		}
	}
	vb := 32 // bytes per vector register
	if wide {
		vb = 64
	}
	const row = 128 // bytes per packed row of 32 lanes
	Load(Param("x"), RSI)
	Load(Param("ldx"), RDX)
	SHLQ(U8(2), RDX)
	Load(Param("d1"), RCX)
	Load(Param("d2"), R8)
	SHLQ(U8(2), R8)
	Load(Param("v"), RBX)
	Load(Param("u"), R9)
	Load(Param("out"), RDI)
	acc0, acc1 := vec(14), vec(15)
	VMOVUPS(Mem{Base: RDI}, acc0)
	VMOVUPS(Mem{Base: RDI, Disp: vb}, acc1)

	four, fourk, one, onek, done := name+"four", name+"fourk", name+"one", name+"onek", name+"done"
	Label(four)
	CMPQ(RCX, U8(4))
	JLT(LabelRef(one))
	for i := 0; i < 8; i++ {
		zero(vec(i))
	}
	rows := []GPPhysical{R10, R11, R12, R13}
	MOVQ(RSI, R10)
	for r := 1; r < 4; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: RDX, Scale: 1}, rows[r])
	}
	MOVQ(RBX, RAX)
	XORQ(R14, R14)
	Label(fourk)
	VMOVUPS(Mem{Base: RAX}, vec(8))
	VMOVUPS(Mem{Base: RAX, Disp: vb}, vec(9))
	for r, p := range rows {
		VBROADCASTSS(Mem{Base: p, Index: R14, Scale: 1}, vec(10))
		VFMADD231PS(vec(8), vec(10), vec(2*r))
		VFMADD231PS(vec(9), vec(10), vec(2*r+1))
	}
	ADDQ(U32(row), RAX)
	ADDQ(U8(4), R14)
	CMPQ(R14, R8)
	JLT(LabelRef(fourk))
	for r := range rows {
		VFMADD231PS(Mem{Base: R9, Disp: r * row}, vec(2*r), acc0)
		VFMADD231PS(Mem{Base: R9, Disp: r*row + vb}, vec(2*r+1), acc1)
	}
	LEAQ(Mem{Base: R13, Index: RDX, Scale: 1}, RSI)
	ADDQ(U32(4*row), R9)
	SUBQ(U8(4), RCX)
	JMP(LabelRef(four))

	Label(one)
	TESTQ(RCX, RCX)
	JLE(LabelRef(done))
	zero(vec(0))
	zero(vec(1))
	MOVQ(RBX, RAX)
	XORQ(R14, R14)
	Label(onek)
	VBROADCASTSS(Mem{Base: RSI, Index: R14, Scale: 1}, vec(10))
	VFMADD231PS(Mem{Base: RAX}, vec(10), vec(0))
	VFMADD231PS(Mem{Base: RAX, Disp: vb}, vec(10), vec(1))
	ADDQ(U32(row), RAX)
	ADDQ(U8(4), R14)
	CMPQ(R14, R8)
	JLT(LabelRef(onek))
	VFMADD231PS(Mem{Base: R9}, vec(0), acc0)
	VFMADD231PS(Mem{Base: R9, Disp: vb}, vec(1), acc1)
	ADDQ(RDX, RSI)
	ADDQ(U32(row), R9)
	DECQ(RCX)
	JMP(LabelRef(one))

	Label(done)
	VMOVUPS(acc0, Mem{Base: RDI})
	VMOVUPS(acc1, Mem{Base: RDI, Disp: vb})
	VZEROUPPER()
	RET()
}
