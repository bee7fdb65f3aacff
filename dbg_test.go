package scn
import ("testing";"gonum.org/v1/gonum/mat")
func TestDbgRef(t *testing.T) {
 refTol = 1e-6
	p := toyProblem(t, 1000)
	x := make([][]float64, 1000)
	for i := range x { x[i] = []float64{float64(p.X.Pix[i])} }
	rm, _, _, _ := referenceFit(toyConfig(), x, mat.NewDense(1000,1,p.T), 3)
	t.Log(len(rm), rm[len(rm)-1], rm[len(rm)/2])
}
