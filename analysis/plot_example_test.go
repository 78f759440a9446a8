package analysis_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"github.com/memlab/memlab/analysis"
)

// pngSize returns the pixel size of a PNG image.
func pngSize(b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("png %d x %d", img.Bounds().Dx(), img.Bounds().Dy())
}

// svgSize returns the size of an SVG document's root element.
func svgSize(b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	var root struct {
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(b, &root); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("svg %s x %s", root.Width, root.Height)
}

// recallAtK is recall against k for two systems, 4 x 3 inches at 100 DPI.
var recallAtK = analysis.LinePlot{
	Title: "Recall at k", XLabel: "k", YLabel: "Recall-Flat", YMin: 0, YMax: 1,
	Width: 10.16, Height: 7.62, DPI: 100,
	Series: []analysis.Series{
		{Name: "flat-bm25", X: []float64{5, 10, 20}, Y: []float64{0.49, 0.66, 0.79}},
		{Name: "mem0", X: []float64{5, 10, 20}, Y: []float64{0.41, 0.58, 0.70}},
	},
}

// A figure renders to PNG for display.PNG, to SVG for papers, or to a file.
func ExampleLinePlot_Figure() {
	fig, err := recallAtK.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	fmt.Println(svgSize(fig.SVG()))
	// Output:
	// png 400 x 300
	// svg 288pt x 216pt
}

func ExampleLinePlot_SVG() {
	fmt.Println(svgSize(recallAtK.SVG()))
	// Output: svg 288pt x 216pt
}

func ExampleFigure_PNG() {
	fig, err := recallAtK.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	// Output: png 400 x 300
}

func ExampleFigure_SVG() {
	fig, err := recallAtK.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(svgSize(fig.SVG()))
	// Output: svg 288pt x 216pt
}

// Save picks the format from the extension.
func ExampleFigure_Save() {
	dir, err := os.MkdirTemp("", "figures")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fig, err := recallAtK.Figure()
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"recall_at_k.png", "recall_at_k.svg"} {
		if err := fig.Save(filepath.Join(dir, name)); err != nil {
			panic(err)
		}
	}
	fmt.Println(fig.Save(filepath.Join(dir, "recall_at_k.gif")) != nil)
	// Output: true
}

// scores is a grouped bar chart: one group per metric, one bar per system,
// with a bootstrap interval on bm25's bars.
var scores = analysis.BarPlot{
	Title: "Retrieval", YLabel: "score", YMin: 0, YMax: 1, Width: 10.16, Height: 7.62, DPI: 100,
	Groups: []string{"Recall-Flat", "All-Any", "MRR"},
	Series: []analysis.BarSeries{
		{Name: "flat-bm25", Values: []float64{0.66, 0.41, 0.52}, Lo: []float64{0.61, 0.36, 0.47}, Hi: []float64{0.71, 0.46, 0.57}},
		{Name: "mem0", Values: []float64{0.58, 0.35, 0.49}},
	},
}

func ExampleBarPlot_Figure() {
	fig, err := scores.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	// Output: png 400 x 300
}

func ExampleBarPlot_PNG() {
	fmt.Println(pngSize(scores.PNG()))
	// Output: png 400 x 300
}

func ExampleBarPlot_SVG() {
	fmt.Println(svgSize(scores.SVG()))
	// Output: svg 288pt x 216pt
}

// byType is recall per question type and dimension.
var byType = analysis.Heatmap{
	Title: "Recall by question type", XLabel: "dimension", YLabel: "question type",
	Rows:   []string{"factual", "temporal", "preference"},
	Cols:   []string{"identity", "events", "beliefs"},
	Values: [][]float64{{0.81, 0.62, 0.40}, {0.55, 0.33, 0.21}, {0.70, 0.47, 0.52}},
	Width:  10.16, Height: 7.62, DPI: 100,
}

func ExampleHeatmap_Figure() {
	fig, err := byType.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	// Output: png 400 x 300
}

func ExampleHeatmap_PNG() {
	fmt.Println(pngSize(byType.PNG()))
	// Output: png 400 x 300
}

func ExampleHeatmap_SVG() {
	fmt.Println(svgSize(byType.SVG()))
	// Output: svg 288pt x 216pt
}

// perTask is KnowMe-Bench's Fig. 3 layout: one polygon per system over the
// seven tasks.
var perTask = analysis.RadarPlot{
	Title: "Accuracy per task",
	Axes:  []string{"T1", "T2", "T3", "T4", "T5", "T6", "T7"},
	Series: []analysis.RadarSeries{
		{Name: "flat-bm25", Values: []float64{0.62, 0.41, 0.55, 0.70, 0.33, 0.28, 0.47}},
		{Name: "mem0", Values: []float64{0.75, 0.52, 0.38, 0.61, 0.49, 0.36, 0.58}},
	},
	Width: 10.16, Height: 7.62, DPI: 100,
}

func ExampleRadarPlot_Figure() {
	fig, err := perTask.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	// Output: png 400 x 300
}

func ExampleRadarPlot_PNG() {
	fmt.Println(pngSize(perTask.PNG()))
	// Output: png 400 x 300
}

func ExampleRadarPlot_SVG() {
	fmt.Println(svgSize(perTask.SVG()))
	// Output: svg 288pt x 216pt
}

// recallVsQA has one point per system, so the legend names each; the title
// gets the Spearman rank correlation.
var recallVsQA = analysis.ScatterPlot{
	Title: "Recall vs QA consistency", XLabel: "Recall-Flat@10", YLabel: "QA consistency",
	Series: []analysis.Series{
		{Name: "flat-bm25", X: []float64{0.66}, Y: []float64{0.58}},
		{Name: "mem0", X: []float64{0.58}, Y: []float64{0.61}},
		{Name: "timeline", X: []float64{0.71}, Y: []float64{0.64}},
		{Name: "oracle", X: []float64{1}, Y: []float64{0.83}},
	},
	Width: 10.16, Height: 7.62, DPI: 100,
}

func ExampleScatterPlot_Figure() {
	fig, err := recallVsQA.Figure()
	if err != nil {
		panic(err)
	}
	fmt.Println(pngSize(fig.PNG()))
	// Output: png 400 x 300
}

func ExampleScatterPlot_PNG() {
	fmt.Println(pngSize(recallVsQA.PNG()))
	// Output: png 400 x 300
}

func ExampleScatterPlot_SVG() {
	fmt.Println(svgSize(recallVsQA.SVG()))
	// Output: svg 288pt x 216pt
}
