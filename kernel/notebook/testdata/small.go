//go:build ignore

// A small notebook for the runner test.

// %% [markdown]
// # Small notebook
//
// It prints, shows markdown and a PNG.

// %% [parameters]
n := 3
name := "world"
var scale float64 = 1.5
verbose := false

// %% Greeting
import "fmt"

fmt.Printf("hello %s %d %g %v\n", name, n, scale, verbose)

// %%
import (
	"bytes"
	"image"
	"image/png"

	"github.com/memlab/memlab/display"
)

display.Markdown("| n | name |\n|---|---|\n| " + fmt.Sprint(n) + " | " + name + " |")
var buf bytes.Buffer
if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
	panic(err)
}
if err := display.PNG("square.png", buf.Bytes()); err != nil {
	panic(err)
}
n * 2
