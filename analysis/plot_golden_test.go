package analysis

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Golden images: testdata/golden/NAME.png is each realistic figure at its
// default size and layout, rendered at 96 DPI to keep the files small, compared with a tolerance
// so font antialiasing that differs across machines does not fail the
// test. Regenerate after a deliberate change of the look with
//
//	MEMLAB_GOLDEN_UPDATE=1 go test ./analysis -run Golden
//
// and look at the images before committing them.
const (
	goldenDir = "testdata/golden"
	// goldenChannel is the channel difference (of 255) above which a pixel
	// counts as different; goldenFraction the fraction of pixels that may.
	goldenChannel  = 64
	goldenFraction = 0.01
)

// imageDiff compares two images of one size: the fraction of pixels with
// a channel differing by more than channel (of 255).
func imageDiff(a, b image.Image, channel int) (float64, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 1, fmt.Errorf("sizes %v and %v differ", a.Bounds().Size(), b.Bounds().Size())
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	diff := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			ar, ag, ab, _ := a.At(a.Bounds().Min.X+x, a.Bounds().Min.Y+y).RGBA()
			br, bg, bb, _ := b.At(b.Bounds().Min.X+x, b.Bounds().Min.Y+y).RGBA()
			for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
				if d > channel || -d > channel {
					diff++
					break
				}
			}
		}
	}
	return float64(diff) / float64(w*h), nil
}

// inkBox returns the bounding box of img's dark pixels (luminance below
// half) and their number: where the text and lines are.
func inkBox(img image.Image) (image.Rectangle, int) {
	var box image.Rectangle
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if 0.2126*float64(r>>8)+0.7152*float64(g>>8)+0.0722*float64(bl>>8) < 128 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	return box, n
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	return img
}

// goldenFigure renders a realistic figure at the golden size, its colours
// assigned afresh (the registry is process-wide).
func goldenFigure(t *testing.T, fig func() (Figure, error)) []byte {
	t.Helper()
	ResetSeriesColors()
	defer ResetSeriesColors()
	f, err := fig()
	if err != nil {
		t.Fatal(err)
	}
	f.dpi = 96 // the layout of the default figure (in points) at a quarter of its pixels
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGoldenFigures(t *testing.T) {
	update := os.Getenv("MEMLAB_GOLDEN_UPDATE") != ""
	for _, c := range realisticFigures() {
		t.Run(c.name, func(t *testing.T) {
			got := goldenFigure(t, c.fig)
			path := filepath.Join(goldenDir, c.name+".png")
			if update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (regenerate with MEMLAB_GOLDEN_UPDATE=1)", err)
			}
			frac, err := imageDiff(decodePNG(t, got), decodePNG(t, want), goldenChannel)
			if err != nil || frac > goldenFraction {
				out := filepath.Join(t.TempDir(), c.name+".png")
				_ = os.WriteFile(out, got, 0o644)
				t.Errorf("%s: %.2f%% of pixels differ from %s (at most %.2f%%; %v); got written to %s; after a deliberate change regenerate with MEMLAB_GOLDEN_UPDATE=1",
					c.name, 100*frac, path, 100*goldenFraction, err, out)
			}
		})
	}
}

// TestImageDiffTolerates checks the comparison itself: an image against a
// copy with a few pixels changed passes, against one with a block changed
// fails.
func TestImageDiffTolerates(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 100, 100))
	b := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for i := range a.Pix {
		a.Pix[i], b.Pix[i] = 0xff, 0xff
	}
	for i := 0; i < 50; i++ { // 0.5% of the pixels, by less and by more than the threshold
		b.Pix[4*i*7] = 0xff - 40
		b.Pix[4*i*13+1] = 0
	}
	if frac, _ := imageDiff(a, b, goldenChannel); frac > goldenFraction {
		t.Errorf("scattered pixels: %.4f differ, want at most %.4f", frac, goldenFraction)
	}
	for y := 10; y < 30; y++ {
		for x := 10; x < 30; x++ {
			b.Pix[4*(y*100+x)] = 0
		}
	}
	if frac, _ := imageDiff(a, b, goldenChannel); frac <= goldenFraction {
		t.Errorf("a 20 x 20 block changed: %.4f differ, want more than %.4f", frac, goldenFraction)
	}
}
