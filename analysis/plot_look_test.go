package analysis

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveRealisticFigures writes the realistic figures as PNG and SVG to
// $MEMLAB_FIGURE_DIR, to look at them; without it, it does nothing.
func TestSaveRealisticFigures(t *testing.T) {
	dir := os.Getenv("MEMLAB_FIGURE_DIR")
	if dir == "" {
		t.Skip("set MEMLAB_FIGURE_DIR to write the figures there")
	}
	for _, c := range realisticFigures() {
		f, err := c.fig()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, ext := range []string{".png", ".svg"} {
			if err := f.Save(filepath.Join(dir, c.name+ext)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
