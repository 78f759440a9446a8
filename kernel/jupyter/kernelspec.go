package jupyter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// DefaultName is the kernelspec name notebooks written by memlab run
// refer to (metadata.kernelspec.name).
const DefaultName = "memlab"

// DisplayName is the kernel's name in front ends.
const DisplayName = "Go (memlab)"

// KernelSpec is the kernel.json of a kernelspec.
type KernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env"`
	Metadata      map[string]any    `json:"metadata"`
}

// NewKernelSpec returns the kernelspec running `exe kernel {connection_file}`.
func NewKernelSpec(exe string) KernelSpec {
	return KernelSpec{
		Argv:          []string{exe, "kernel", "{connection_file}"},
		DisplayName:   DisplayName,
		Language:      "go",
		InterruptMode: "message",
		Env:           map[string]string{},
		Metadata:      map[string]any{},
	}
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// UserDataDir is Jupyter's per-user data directory: $JUPYTER_DATA_DIR, else
// ~/.local/share/jupyter (Linux; $XDG_DATA_HOME/jupyter when set),
// ~/Library/Jupyter (macOS) or %APPDATA%\jupyter (Windows).
func UserDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("jupyter: user data dir: %w", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter"), nil
		}
		return filepath.Join(home, "AppData", "Roaming", "jupyter"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// KernelsDir returns where a kernelspec goes: prefix/share/jupyter/kernels
// when prefix is set, else the user data dir's kernels directory.
func KernelsDir(prefix string) (string, error) {
	if prefix != "" {
		return filepath.Join(prefix, "share", "jupyter", "kernels"), nil
	}
	d, err := UserDataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "kernels"), nil
}

// Install writes the kernelspec name (lowercased) into kernelsDir: its
// kernel.json running exe (made absolute) and its logos. It returns the
// kernelspec directory.
func Install(kernelsDir, name, exe string) (string, error) {
	if !nameRE.MatchString(name) {
		return "", fmt.Errorf("jupyter: install: kernel name %q: want letters, digits, '.', '_' or '-'", name)
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", fmt.Errorf("jupyter: install: executable %q: %w", exe, err)
	}
	dir := filepath.Join(kernelsDir, strings.ToLower(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("jupyter: install: %w", err)
	}
	spec, err := json.MarshalIndent(NewKernelSpec(abs), "", "  ")
	if err != nil {
		return "", fmt.Errorf("jupyter: install: %w", err)
	}
	files := map[string][]byte{"kernel.json": append(spec, '\n')}
	for _, size := range []int{32, 64} {
		b, err := Logo(size)
		if err != nil {
			return "", fmt.Errorf("jupyter: install: logo: %w", err)
		}
		files[fmt.Sprintf("logo-%dx%d.png", size, size)] = b
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return "", fmt.Errorf("jupyter: install: %w", err)
		}
	}
	return dir, nil
}

// Logo draws the kernel's size x size logo: a Go-blue disc with a white
// "M" of bars, as PNG.
func Logo(size int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	blue := color.NRGBA{0x00, 0xAD, 0xD8, 0xFF}
	white := color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	c := float64(size-1) / 2
	r2 := c * c
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)-c, float64(y)-c
			if dx*dx+dy*dy <= r2 {
				img.Set(x, y, blue)
			}
		}
	}
	// An "M": two stems and a V between them, in a box of half the size.
	s := float64(size)
	x0, x1, y0, y1 := 0.27*s, 0.73*s, 0.3*s, 0.7*s
	w := 0.09 * s
	for y := int(y0); y < int(y1); y++ {
		for x := int(x0); x < int(x1); x++ {
			fx, fy := float64(x), float64(y)
			stem := fx < x0+w || fx >= x1-w
			mid := (x0 + x1) / 2
			// the V goes from the stems' tops to the middle at 60 % height
			t := (fy - y0) / (0.6 * (y1 - y0))
			left := x0 + t*(mid-x0)
			right := x1 - t*(x1-mid)
			v := t <= 1 && (abs(fx-left) < w/2+0.5 || abs(fx-right) < w/2+0.5)
			if stem || v {
				img.Set(x, y, white)
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
