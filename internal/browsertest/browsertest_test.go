package browsertest

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestScreenshot renders a page with a black square on white and finds the
// square at its place in the screenshot.
func TestScreenshot(t *testing.T) {
	html := `<!doctype html><html><body style="margin:0;background:#fff">` +
		`<div style="position:absolute;left:20px;top:10px;width:30px;height:40px;background:#000"></div></body></html>`
	b := Screenshot(t, html, 100, 80)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	if got := img.Bounds().Size(); got != (image.Point{X: 100, Y: 80}) {
		t.Fatalf("screenshot is %v, want 100 x 80", got)
	}
	dark := func(x, y int) bool { r, _, _, _ := img.At(x, y).RGBA(); return r < 0x4000 }
	if !dark(35, 30) || dark(5, 5) || dark(60, 30) || dark(35, 60) {
		t.Errorf("square not where the page puts it: dark(35,30)=%v dark(5,5)=%v dark(60,30)=%v dark(35,60)=%v",
			dark(35, 30), dark(5, 5), dark(60, 30), dark(35, 60))
	}
}

func TestIsURL(t *testing.T) {
	for page, want := range map[string]bool{"file:///tmp/a.html": true, "http://127.0.0.1:1/": true, "data:text/html,x": true, "<html></html>": false} {
		if got := isURL(page); got != want {
			t.Errorf("isURL(%q) = %v, want %v", page, got, want)
		}
	}
}
