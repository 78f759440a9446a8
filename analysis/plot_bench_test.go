package analysis

import "testing"

// BenchmarkFigures renders each realistic figure kind as PNG and as SVG at
// the default size and reports the bytes of one rendering:
//
//	go test ./analysis -run '^$' -bench Figures -benchtime 5x
func BenchmarkFigures(b *testing.B) {
	for _, c := range realisticFigures() {
		f, err := c.fig()
		if err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		for _, format := range []string{"png", "svg"} {
			render := f.PNG
			if format == "svg" {
				render = f.SVG
			}
			b.Run(c.name+"/"+format, func(b *testing.B) {
				var n int
				for b.Loop() {
					out, err := render()
					if err != nil {
						b.Fatal(err)
					}
					n = len(out)
				}
				b.ReportMetric(float64(n), "bytes")
			})
		}
	}
}
