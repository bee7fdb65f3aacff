package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default plot size: the data area, plus a strip on the right for the
// legend.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4 * vg.Inch
)

// legendGap separates the legend strip from the plot and the canvas edge
// (vg.Length is in points).
const legendGap vg.Length = 8

// colors are used for successive series (the first four are the four models).
var colors = []color.RGBA{
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, // grey
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // cyan
}

func colorOf(i int) color.RGBA { return colors[i%len(colors)] }

// render draws p on an SVG canvas of the given size. The legend, if any,
// goes in a strip to the right of the plot, top-aligned with the data
// area, so that it never covers data.
func render(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	leg := p.Legend
	p.Legend = plot.NewLegend()
	lr := leg.Rectangle(dc)
	lw := lr.Max.X - lr.Min.X
	if lw <= 0 {
		p.Draw(dc)
		return svgBytes(c)
	}
	area := draw.Crop(dc, 0, -(lw + 2*legendGap), 0, 0)
	p.Draw(area)
	top := p.DataCanvas(area).Max.Y
	strip := draw.Crop(dc, w-lw-legendGap, -legendGap, 0, top-h)
	leg.Left, leg.Top, leg.XOffs, leg.YOffs = true, true, 0, 0
	leg.Draw(strip)
	return svgBytes(c)
}

// svgBytes returns the canvas as an SVG document. Embedded raster images
// are PNG (the SVG back end labels them JPEG).
func svgBytes(c *vgsvg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: rendering SVG: %w", err)
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("data:image/jpg;base64,"), []byte("data:image/png;base64,")), nil
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	return p
}

// translucent returns c with opacity a (0-255) as a valid colour:
// color.RGBA is alpha-premultiplied, so a colour with a lower alpha must be
// NRGBA (an RGBA with R > A is not a colour).
func translucent(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Series is one line of a band plot: Mean[i] at X[i], with a shaded band
// Mean[i] +/- Std[i] (no band when Std is nil). Dashed draws a dashed line.
type Series struct {
	Name   string
	X      []float64
	Mean   []float64
	Std    []float64
	Dashed bool
}

// BandPlot draws each series as a line with a translucent mean +/- std band
// and returns the plot as an SVG document.
func BandPlot(title, xlabel, ylabel string, series []Series) ([]byte, error) {
	p := newPlot(title, xlabel, ylabel)
	for i, s := range series {
		if len(s.X) != len(s.Mean) || (s.Std != nil && len(s.Std) != len(s.Mean)) {
			return nil, fmt.Errorf("report: series %q: %d x values, %d means, %d stds", s.Name, len(s.X), len(s.Mean), len(s.Std))
		}
		if len(s.X) == 0 {
			continue
		}
		col := colorOf(i)
		if s.Std != nil {
			band := make(plotter.XYs, 0, 2*len(s.X))
			for j := range s.X {
				band = append(band, plotter.XY{X: s.X[j], Y: s.Mean[j] + s.Std[j]})
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				band = append(band, plotter.XY{X: s.X[j], Y: s.Mean[j] - s.Std[j]})
			}
			if okXYs(band) {
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, err
				}
				poly.Color = translucent(col, 0x40)
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j] = plotter.XY{X: s.X[j], Y: s.Mean[j]}
		}
		if !okXYs(pts) {
			return nil, fmt.Errorf("report: series %q has non-finite values", s.Name)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Color = col
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	return render(p, plotWidth, plotHeight)
}

func okXYs(xy plotter.XYs) bool {
	for _, v := range xy {
		if !finite(v.X) || !finite(v.Y) {
			return false
		}
	}
	return true
}

// BoxSeries is one set of boxes of a box plot: Groups[i] holds the values
// of category i.
type BoxSeries struct {
	Name   string
	Groups [][]float64
}

// BoxPlot draws, for each category, one box per series side by side
// (median, quartiles, whiskers at 1.5 IQR, outliers) and returns the SVG.
func BoxPlot(title, xlabel, ylabel string, categories []string, series []BoxSeries) ([]byte, error) {
	p := newPlot(title, xlabel, ylabel)
	ns := len(series)
	width := groupWidth(300, 20, len(categories)*ns)
	for si, s := range series {
		if err := checkCategories("box", "groups", s.Name, len(s.Groups), categories); err != nil {
			return nil, err
		}
		col := colorOf(si)
		var first *plotter.BoxPlot
		for ci, g := range s.Groups {
			if len(g) == 0 {
				continue
			}
			vals := make(plotter.Values, 0, len(g))
			for _, v := range g {
				if finite(v) {
					vals = append(vals, v)
				}
			}
			if len(vals) == 0 {
				continue
			}
			b, err := plotter.NewBoxPlot(width, float64(ci), vals)
			if err != nil {
				return nil, err
			}
			b.Offset = (vg.Length(si) - vg.Length(ns-1)/2) * (width + vg.Points(2))
			b.BoxStyle.Color = col
			b.MedianStyle.Color = col
			b.WhiskerStyle.Color = col
			b.GlyphStyle.Color = col
			b.GlyphStyle.Radius = vg.Points(1)
			p.Add(b)
			if first == nil {
				first = b
			}
		}
		if first != nil {
			sw := plotter.NewFunction(func(float64) float64 { return math.NaN() })
			sw.Color = col
			sw.Width = vg.Points(6)
			p.Legend.Add(s.Name, sw)
		}
	}
	p.NominalX(categories...)
	return render(p, plotWidth, plotHeight)
}

// groupWidth is the width of each of n boxes or bars side by side in span
// points, at most widest points.
func groupWidth(span, widest float64, n int) vg.Length {
	return min(vg.Points(span/float64(max(1, n))), vg.Points(widest))
}

// checkCategories reports a series (of the given kind, named name) that
// holds n groups or values (what) for other than one per category.
func checkCategories(kind, what, name string, n int, categories []string) error {
	if n != len(categories) {
		return fmt.Errorf("report: %s series %q has %d %s for %d categories", kind, name, n, what, len(categories))
	}
	return nil
}

// Points is one set of markers of a scatter plot.
type Points struct {
	Name string
	X, Y []float64
}

// Scatter draws each set of points in its own color and returns the SVG.
func Scatter(title, xlabel, ylabel string, sets []Points) ([]byte, error) {
	return scatter(title, xlabel, ylabel, sets, false)
}

// ScatterLogX is Scatter with a logarithmic x axis, for values spanning
// orders of magnitude; points with x <= 0 are left out.
func ScatterLogX(title, xlabel, ylabel string, sets []Points) ([]byte, error) {
	return scatter(title, xlabel, ylabel, sets, true)
}

func scatter(title, xlabel, ylabel string, sets []Points, logX bool) ([]byte, error) {
	p := newPlot(title, xlabel, ylabel)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}
	n := 0
	for i, s := range sets {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("report: points %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
		pts := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) && (!logX || s.X[j] > 0) {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		n += len(pts)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = colorOf(i)
		sc.Shape = shapes[i%len(shapes)]
		sc.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(s.Name, sc)
	}
	if logX && n > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = decadeTicks{}
		// Whole decades, so that the axis has labelled ticks.
		p.X.Min = math.Pow10(int(math.Floor(math.Log10(p.X.Min))))
		p.X.Max = math.Pow10(int(math.Ceil(math.Log10(p.X.Max))))
		if p.X.Max <= p.X.Min {
			p.X.Max = 10 * p.X.Min
		}
	}
	return render(p, plotWidth, plotHeight)
}

// decadeTicks marks every power of ten of a log axis and labels at most
// about six of them ("1e-12", "1e-9", ..., "0.001", "1"), so that labels of an axis
// spanning many decades do not overlap.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	elo, ehi := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := max(1, (ehi-elo+5)/6)
	var ticks []plot.Tick
	for e := elo; e <= ehi; e++ {
		v := math.Pow10(e)
		if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
			continue
		}
		t := plot.Tick{Value: v}
		if (e-ehi)%step == 0 {
			t.Label = decadeLabel(e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func decadeLabel(e int) string {
	if e >= -3 && e <= 3 {
		return strconv.FormatFloat(math.Pow10(e), 'f', -1, 64)
	}
	return fmt.Sprintf("1e%d", e)
}

// HeatMap draws a rows x cols array of values (row-major, row 0 at the top)
// as an image with square cells, in a diverging palette centred on zero
// (blue negative, grey zero, red positive), with a colour bar on the right,
// and returns the SVG.
func HeatMap(title string, rows, cols int, values []float64) ([]byte, error) {
	if rows <= 0 || cols <= 0 || len(values) != rows*cols {
		return nil, fmt.Errorf("report: heat map of %d x %d needs %d values, got %d", rows, cols, rows*cols, len(values))
	}
	var lim float64
	for _, v := range values {
		if !finite(v) {
			return nil, fmt.Errorf("report: heat map has a non-finite value")
		}
		lim = math.Max(lim, math.Abs(v))
	}
	if lim == 0 {
		lim = 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(-lim)
	pal.SetMax(lim)
	colorAt := func(v float64) color.Color {
		c, err := pal.At(math.Max(-lim, math.Min(lim, v)))
		if err != nil {
			return color.Gray{0x80}
		}
		return c
	}
	// The image, each cell k x k pixels so that it stays sharp when scaled.
	k := max(1, 280/max(rows, cols))
	img := image.NewRGBA(image.Rect(0, 0, cols*k, rows*k))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			col := colorAt(values[r*cols+c])
			for y := r * k; y < (r+1)*k; y++ {
				for x := c * k; x < (c+1)*k; x++ {
					img.Set(x, y, col)
				}
			}
		}
	}
	const bar = 256
	barImg := image.NewRGBA(image.Rect(0, 0, 8, bar))
	for y := 0; y < bar; y++ {
		col := colorAt(lim * (1 - 2*(float64(y)+0.5)/bar))
		for x := 0; x < 8; x++ {
			barImg.Set(x, y, col)
		}
	}

	w, h := 4.75*vg.Inch, 4*vg.Inch
	cv := vgsvg.New(w, h)
	dc := draw.New(cv)
	titleSty := textStyle(12, draw.XCenter)
	labelSty := textStyle(10, draw.XLeft)
	labelSty.YAlign = draw.YCenter
	margin := vg.Points(6)
	titleH := titleSty.Rectangle(title).Size().Y + margin
	barStrip := vg.Points(16) + labelSty.Rectangle(fmt.Sprintf("%+.3g", -lim)).Size().X + 2*margin
	aw, ah := w-barStrip-2*margin, h-titleH-2*margin
	cell := min(aw/vg.Length(cols), ah/vg.Length(rows))
	iw, ih := cell*vg.Length(cols), cell*vg.Length(rows)
	x0, top := margin, h-titleH-margin
	dc.FillText(titleSty, vg.Point{X: x0 + iw/2, Y: h - titleH + titleSty.FontExtents().Descent}, title)
	dc.DrawImage(vg.Rectangle{Min: vg.Point{X: x0, Y: top - ih}, Max: vg.Point{X: x0 + iw, Y: top}}, img)
	bx := x0 + iw + 2*margin
	dc.DrawImage(vg.Rectangle{Min: vg.Point{X: bx, Y: top - ih}, Max: vg.Point{X: bx + vg.Points(12), Y: top}}, barImg)
	for _, f := range []float64{1, 0.5, 0, -0.5, -1} {
		y := top - ih + ih*vg.Length((1+f)/2)
		dc.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}, bx+vg.Points(12), y, bx+vg.Points(15), y)
		dc.FillText(labelSty, vg.Point{X: bx + vg.Points(17), Y: y}, fmt.Sprintf("%+.3g", f*lim))
	}
	return svgBytes(cv)
}

// textStyle is the plots' font at the given size.
func textStyle(size float64, align text.XAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, vg.Points(size)),
		XAlign:  align,
		Handler: plot.DefaultTextHandler,
	}
}

// BarSeries is one set of bars: Values[i] is the bar of category i.
type BarSeries struct {
	Name   string
	Values []float64
}

// Bars draws grouped bars from zero, one group per category and one bar per
// series, and returns the SVG.
func Bars(title, ylabel string, categories []string, series []BarSeries) ([]byte, error) {
	p := newPlot(title, "", ylabel)
	ns := len(series)
	w := groupWidth(360, 40, len(categories)*ns)
	for i, s := range series {
		if err := checkCategories("bar", "values", s.Name, len(s.Values), categories); err != nil {
			return nil, err
		}
		for _, v := range s.Values {
			if !finite(v) {
				return nil, fmt.Errorf("report: bar series %q has value %v", s.Name, v)
			}
		}
		b, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return nil, err
		}
		b.Color = colorOf(i)
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(i) - vg.Length(ns-1)/2) * w
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	p.NominalX(categories...)
	return render(p, plotWidth, plotHeight)
}
