package analysis

import (
	"encoding/base64"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/internal/browsertest"
)

// TestSVGInChromiumMatchesPNG renders each realistic figure's SVG in
// headless Chromium at the size of its 96 DPI PNG (1 CSS px = 1/96 in) and
// compares: few pixels may differ (antialiasing), and the ink (text and
// lines) must cover the same box, so no text is clipped or overflows, as it
// did when the SVG named fonts Chromium replaced by wider ones. Skipped
// under -short and without chromium and internal/browsertest's npm install.
func TestSVGInChromiumMatchesPNG(t *testing.T) {
	if testing.Short() {
		t.Skip("renders in headless Chromium: skipped under -short")
	}
	if m := browsertest.Missing(); m != "" {
		t.Skipf("headless Chromium unavailable, missing %s", m)
	}
	for _, c := range realisticFigures() {
		t.Run(c.name, func(t *testing.T) {
			ResetSeriesColors()
			f, err := c.fig()
			if err != nil {
				t.Fatal(err)
			}
			f.dpi = 96
			pngBytes, err := f.PNG()
			if err != nil {
				t.Fatal(err)
			}
			svg, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			want := decodePNG(t, pngBytes)
			size := want.Bounds().Size()
			page := `<!doctype html><html><body style="margin:0;background:#fff">` +
				`<img style="display:block" src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString(svg) + `"></body></html>`
			got := decodePNG(t, browsertest.Screenshot(t, page, size.X, size.Y))
			keep := func() string {
				dir := t.TempDir()
				_ = os.WriteFile(filepath.Join(dir, "go.png"), pngBytes, 0o644)
				_ = os.WriteFile(filepath.Join(dir, "figure.svg"), svg, 0o644)
				return dir
			}
			frac, err := imageDiff(got, want, 96)
			if err != nil {
				t.Fatalf("chromium screenshot: %v", err)
			}
			if frac > 0.03 {
				t.Errorf("%.2f%% of pixels differ between Chromium's SVG and the PNG (at most 3%%); files in %s", 100*frac, keep())
			}
			gb, gn := inkBox(got)
			wb, wn := inkBox(want)
			if !near(gb, wb, 3) {
				t.Errorf("ink box in Chromium %v, in the PNG %v: text clipped or overflowing; files in %s", gb, wb, keep())
			}
			if d := float64(gn-wn) / float64(wn); d > 0.15 || d < -0.15 {
				t.Errorf("ink pixels in Chromium %d, in the PNG %d (%.0f%% apart); files in %s", gn, wn, 100*d, keep())
			}
		})
	}
}

// near reports whether two rectangles' sides are at most d pixels apart.
func near(a, b image.Rectangle, d int) bool {
	abs := func(x int) int { return max(x, -x) }
	return abs(a.Min.X-b.Min.X) <= d && abs(a.Min.Y-b.Min.Y) <= d && abs(a.Max.X-b.Max.X) <= d && abs(a.Max.Y-b.Max.Y) <= d
}
