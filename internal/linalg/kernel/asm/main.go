// Command asm generates the scoring kernels of package kernel
// (../dot_amd64.s) with avo: Dot2x5 and Dot3x4 in their AVX2 (eight
// lanes) and AVX-512 (sixteen lanes) forms, from one description of the
// kernel family. Run it with go generate in package kernel; it is a module
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
