package notebook

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	src := `//go:build ignore

// header comment
package ignored

// %% [markdown]
// # Title
//
//no space after slashes

// %% [parameters]
n := 1

// %% Setup step tags=["a", "b"]
x := n

// %% tags=["parameters"]

// %%
`
	nb, err := ParseSource("nb.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if nb.Header != "//go:build ignore\n\n// header comment\npackage ignored" {
		t.Errorf("header = %q", nb.Header)
	}
	want := []Cell{
		{Kind: KindMarkdown, Source: "# Title\n\nno space after slashes", Line: 7},
		{Kind: KindCode, Source: "n := 1", Tags: []string{TagParameters}, Line: 12},
		{Kind: KindCode, Title: "Setup step", Source: "x := n", Tags: []string{"a", "b"}, Line: 15},
		{Kind: KindCode, Source: "", Tags: []string{TagParameters}, Line: 18},
		{Kind: KindCode, Source: "", Line: 20},
	}
	for i := range nb.Cells {
		nb.Cells[i].layout = cellLayout{} // how the file writes them: TestPercentRoundTrip
	}
	if !reflect.DeepEqual(nb.Cells, want) {
		t.Errorf("cells:\n got %+v\nwant %+v", nb.Cells, want)
	}
	if nb.Title() != "Title" {
		t.Errorf("title = %q", nb.Title())
	}

	bad := []struct{ desc, src, want string }{
		{"no cells", "//go:build ignore\npackage x\n", "nb.go: no cells"},
		{"markdown not comment", "// %% [markdown]\n// ok\nnot a comment\n", "nb.go:3: markdown cell"},
		{"unknown type", "// %%\nx := 1\n// %% [rwa]\n", "nb.go:3: unknown cell type [rwa]"},
		{"raw not comment", "// %% [raw]\nnot a comment\n", "nb.go:2: raw cell"},
		{"bad tags", "// %% tags=[1, 2]\n", "nb.go:1: cell tags"},
	}
	for _, c := range bad {
		_, err := ParseSource("nb.go", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "notebook: parse ") {
			t.Errorf("%s: err = %v, want %q", c.desc, err, c.want)
		}
	}
}

func TestApplyParams(t *testing.T) {
	src := `// %%
import "fmt"

// %% [parameters]
name := "a"
n := 2
var (
	rate float64 = 0.5
	on         = true
)
var k int64 = -1
ratio := 1.0
var d = someFunc()

// %%
fmt.Println(name)
`
	cases := []struct {
		desc   string
		params map[string]string
		inject string
		err    string
	}{
		{"all types", map[string]string{"name": `x "y"`, "n": "7", "rate": "2", "on": "false", "k": "0x10", "ratio": "3.25"},
			"// Injected parameters.\nk = 16\nn = 7\nname = \"x \\\"y\\\"\"\non = false\nrate = 2.0\nratio = 3.25", ""},
		{"unknown name", map[string]string{"nn": "1"}, "", `parameter "nn" is not a variable of the parameters cell (line 5); its variables are: name, n, rate, on, k, ratio, d`},
		{"bad int", map[string]string{"n": "2.5"}, "", `parameter "n": value "2.5" is not an int`},
		{"bad float", map[string]string{"rate": "fast"}, "", `parameter "rate": value "fast" is not a finite float64`},
		{"bad bool", map[string]string{"on": "maybe"}, "", `parameter "on": value "maybe" is not a bool`},
		{"unknown type", map[string]string{"d": "1"}, "", `parameter "d": variable d is not set from a literal`},
	}
	for _, c := range cases {
		nb, err := ParseSource("p.go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		err = nb.ApplyParams(c.params)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.desc, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.desc, err)
			continue
		}
		if len(nb.Cells) != 4 || !nb.Cells[2].HasTag(TagInjectedParameters) || nb.Cells[2].Source != c.inject {
			t.Errorf("%s: injected cell = %+v", c.desc, nb.Cells[2])
		}
		// Applying again replaces the injected cell.
		if err := nb.ApplyParams(map[string]string{"n": "9"}); err != nil || len(nb.Cells) != 4 || nb.Cells[2].Source != "// Injected parameters.\nn = 9" {
			t.Errorf("%s: re-apply: %v %+v", c.desc, err, nb.Cells[2])
		}
	}
	nb, _ := ParseSource("q.go", []byte("// %%\nx := 1\n"))
	if err := nb.ApplyParams(map[string]string{"x": "2"}); err == nil || !strings.Contains(err.Error(), "no parameters cell") {
		t.Errorf("no parameters cell: err = %v", err)
	}
}
