package notebook

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Every figure has the same size, so pages look alike and a rerun on the
// same data gives the same bytes.
const (
	FigureWidth  = 16 * vg.Centimeter
	FigureHeight = 9 * vg.Centimeter
)

func init() {
	// Liberation Sans, which gonum/plot carries: text is measured with the
	// same metrics everywhere, whatever fonts the machine has.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// palette is Okabe and Ito's colour-blind-safe set, in a fixed order.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
}

// Color is the i-th colour of the notebooks' palette, cycling.
func Color(i int) color.Color { return palette[i%len(palette)] }

// SVG renders p at the figure size.
func SVG(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(FigureWidth, FigureHeight)
	var err error
	func() {
		// gonum/plot panics on some impossible inputs (a log axis over
		// non-positive values); a page should fail with an error instead.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("plot %q: %v", p.Title.Text, r)
			}
		}()
		p.Draw(draw.New(c))
	}()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Series is one named set of values, one per category of a bar chart.
type Series struct {
	Name   string
	Values []float64 // NaN or, on a log axis, ≤ 0 means no bar
}

// Bars is a grouped bar chart: one group per category, one bar per series in
// each group. With logY the value axis is logarithmic and bars start at its
// bottom, so values spanning decades stay readable.
func Bars(title, yLabel string, categories []string, series []Series, logY bool) (*plot.Plot, error) {
	if len(categories) == 0 || len(series) == 0 {
		return nil, fmt.Errorf("bar chart %q: no data", title)
	}
	for _, s := range series {
		if len(s.Values) != len(categories) {
			return nil, fmt.Errorf("bar chart %q: series %q has %d values for %d categories", title, s.Name, len(s.Values), len(categories))
		}
	}
	g := &groupedBars{series: series, log: logY}
	if _, _, ymin, ymax := g.DataRange(); ymin > ymax {
		return nil, fmt.Errorf("bar chart %q: no value to draw", title)
	}
	p := newPlot(title, "", yLabel, logY)
	p.Add(g)
	p.NominalX(categories...)
	if len(categories) > 5 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	if len(series) > 1 {
		for i, s := range series {
			p.Legend.Add(s.Name, swatch{Color(i)})
		}
		roomForLegend(p, logY, len(series))
	}
	return p, nil
}

// Line is one named curve of a line plot.
type Line struct {
	Name string
	X, Y []float64
}

// Lines is a line plot with a marker at every point; logX and logY make the
// axes logarithmic.
func Lines(title, xLabel, yLabel string, lines []Line, logX, logY bool) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, fmt.Errorf("line plot %q: no data", title)
	}
	p := newPlot(title, xLabel, yLabel, logY)
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, l := range lines {
		if len(l.X) != len(l.Y) || len(l.X) == 0 {
			return nil, fmt.Errorf("line plot %q: line %q has %d x and %d y values", title, l.Name, len(l.X), len(l.Y))
		}
		xys := make(plotter.XYs, len(l.X))
		for j := range l.X {
			if (logX && l.X[j] <= 0) || (logY && l.Y[j] <= 0) {
				return nil, fmt.Errorf("line plot %q: line %q point %d (%g, %g) is not positive on a log axis", title, l.Name, j, l.X[j], l.Y[j])
			}
			xys[j] = plotter.XY{X: l.X[j], Y: l.Y[j]}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("line plot %q: line %q: %w", title, l.Name, err)
		}
		line.Color = Color(i)
		line.Width = vg.Points(1.5)
		points.Color = Color(i)
		points.Shape = draw.GlyphDrawer(shapes[i%len(shapes)])
		p.Add(line, points)
		if len(lines) > 1 {
			p.Legend.Add(l.Name, line, points)
		}
	}
	if len(lines) > 1 {
		roomForLegend(p, logY, len(lines))
	}
	return p, nil
}

// roomForLegend raises the top of the value axis so the legend, drawn in
// the top right corner, sits above the data instead of on it: a band of
// about 0.12 of the height per legend entry.
func roomForLegend(p *plot.Plot, logY bool, entries int) {
	band := min(0.12*float64(entries), 0.5)
	if logY {
		lo, hi := math.Log(p.Y.Min), math.Log(p.Y.Max)
		p.Y.Max = math.Exp(hi + (hi-lo)*band/(1-band))
		return
	}
	p.Y.Max += (p.Y.Max - p.Y.Min) * band / (1 - band)
}

var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

func newPlot(title, xLabel, yLabel string, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.Left = false
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return p
}

// groupedBars draws bars itself, rather than with plotter.BarChart, because
// BarChart starts every bar at zero, which a log axis cannot place.
type groupedBars struct {
	series []Series
	log    bool
}

const groupWidth = 0.8 // of the space between categories

func (g *groupedBars) drawable(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!g.log || v > 0)
}

func (g *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	n := len(g.series[0].Values)
	xmin, xmax = -0.5, float64(n)-0.5
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, s := range g.series {
		for _, v := range s.Values {
			if g.drawable(v) {
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
	}
	if math.IsInf(ymin, 1) {
		return xmin, xmax, 1, 0 // empty: ymin > ymax
	}
	if g.log {
		// A little room below the smallest bar, so it shows.
		return xmin, xmax, ymin / 2, ymax * 1.5
	}
	return xmin, xmax, math.Min(0, ymin), math.Max(0, ymax) * 1.05
}

func (g *groupedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	base := 0.0
	if g.log {
		base = plt.Y.Min
	}
	w := groupWidth / float64(len(g.series))
	for j, s := range g.series {
		for i, v := range s.Values {
			if !g.drawable(v) {
				continue
			}
			left := float64(i) - groupWidth/2 + float64(j)*w
			x0, x1 := trX(left), trX(left+w)
			y0, y1 := trY(base), trY(v)
			pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(Color(j), c.ClipPolygonXY(pts))
		}
	}
}

// swatch is a legend entry: a filled square of the series' colour.
type swatch struct{ color color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
	c.FillPolygon(s.color, c.ClipPolygonY(pts))
}

// Grid is a categorical heat map: one row per row label, one column per
// column label, each cell coloured by its class (an index into classes, or
// -1 for no value). The legend names the classes in order.
func Grid(title string, rows, cols []string, cells [][]int, classes []string, classColors []color.Color) (*plot.Plot, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return nil, fmt.Errorf("grid %q: no data", title)
	}
	if len(classColors) < len(classes) {
		return nil, fmt.Errorf("grid %q: %d colours for %d classes", title, len(classColors), len(classes))
	}
	if len(cells) != len(rows) {
		return nil, fmt.Errorf("grid %q: %d cell rows for %d row labels", title, len(cells), len(rows))
	}
	for i, r := range cells {
		if len(r) != len(cols) {
			return nil, fmt.Errorf("grid %q: row %q has %d cells for %d columns", title, rows[i], len(r), len(cols))
		}
		for j, c := range r {
			if c < -1 || c >= len(classes) {
				return nil, fmt.Errorf("grid %q: cell (%s, %s) has class %d of %d", title, rows[i], cols[j], c, len(classes))
			}
		}
	}
	p := newPlot(title, "", "", false)
	p.Add(&grid{cells: cells, colors: classColors})
	p.NominalX(cols...)
	// Rows top to bottom, as a table reads.
	ticks := make([]plot.Tick, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(len(rows) - 1 - i), Label: r}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	// The legend goes in an empty strip right of the last column.
	p.X.Max = float64(len(cols)) + 0.5
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	for i, c := range classes {
		p.Legend.Add(c, swatch{classColors[i]})
	}
	return p, nil
}

type grid struct {
	cells  [][]int
	colors []color.Color
}

func (g *grid) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(g.cells[0])) - 0.5, -0.5, float64(len(g.cells)) - 0.5
}

func (g *grid) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(g.cells)
	for i, row := range g.cells {
		y := float64(n - 1 - i)
		for j, class := range row {
			if class < 0 {
				continue
			}
			x := float64(j)
			// A thin gap between cells keeps neighbours of one class apart.
			x0, x1 := trX(x-0.48), trX(x+0.48)
			y0, y1 := trY(y-0.45), trY(y+0.45)
			pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(g.colors[class], c.ClipPolygonXY(pts))
		}
	}
}
