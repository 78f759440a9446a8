package notebook

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Fuzz targets of the notebook format: ParseSource and ApplyParams. Seeds
// are the committed notebooks and test notebooks, read at run time. Run one
// with e.g.
//
//	go test -run='^$' -fuzz='^FuzzParseSource$' -fuzztime=30s ./kernel/notebook

// notebookSeeds returns the committed notebook files: the repository's
// notebooks, this package's and cmd/memlab's test notebooks.
func notebookSeeds(f *testing.F) map[string][]byte {
	f.Helper()
	out := map[string][]byte{}
	for _, pat := range []string{"../../notebooks/*.go", "testdata/*.go", "../../cmd/memlab/testdata/*.go"} {
		names, err := filepath.Glob(pat)
		if err != nil {
			f.Fatal(err)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			out[n] = b
		}
	}
	if len(out) == 0 {
		f.Fatal("no committed notebook found")
	}
	return out
}

var errLineRE = regexp.MustCompile(`^notebook: parse nb\.go:(\d+): `)

// FuzzParseSource parses a fuzzed percent-format notebook. The cells rejoin
// to the source modulo what the format drops: the file's lines are the
// header, then for each cell its marker line and its body, where the body is
// the cell's Source (a markdown or raw cell's lines with their // markers) starting
// at Cell.Line, with only blank lines around it. An error names the file
// and a line of it.
func FuzzParseSource(f *testing.F) {
	for _, b := range notebookSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte("// %% [markdown]\r\n//x\r\n  // y  \r\n\r\n// %% [parameters] T tags=[\"a\"]\r\nn := 1 \r\n"))
	f.Add([]byte("// %%\n// %% [md]\n\n// %%tags=[]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		nb, err := ParseSource("nb.go", src)
		lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "notebook: parse nb.go") {
				t.Fatalf("error %q does not name the file", msg)
			}
			if m := errLineRE.FindStringSubmatch(msg); m != nil {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > len(lines) {
					t.Errorf("error %q: line %d outside the file's %d lines", msg, n, len(lines))
				}
			}
			return
		}
		var markers []int // 0-based line indexes
		for i, l := range lines {
			if markerRE.MatchString(strings.TrimRight(l, " \t")) {
				markers = append(markers, i)
			}
		}
		if len(markers) != len(nb.Cells) {
			t.Fatalf("%d marker lines, %d cells", len(markers), len(nb.Cells))
		}
		if h := strings.TrimRight(strings.Join(lines[:markers[0]], "\n"), "\n"); nb.Header != h {
			t.Errorf("header %q, want the lines before the first marker %q", nb.Header, h)
		}
		for k, c := range nb.Cells {
			end := len(lines)
			if k+1 < len(markers) {
				end = markers[k+1]
			}
			body := lines[markers[k]+1 : end]
			first := 0 // first non-blank line of the body
			for first < len(body) && strings.TrimSpace(body[first]) == "" {
				first++
			}
			if want := markers[k] + 2 + first; first < len(body) && c.Line != want || first == len(body) && c.Line != markers[k]+2 {
				t.Errorf("cell %d: Line %d, but its text starts on line %d", k, c.Line, want)
			}
			for _, w := range strings.Fields(c.Title) { // the marker less its [type] and key=value metadata (but a title=JSON string)
				if strings.Contains(lines[markers[k]], "title") {
					break
				}
				if !strings.Contains(lines[markers[k]], w) {
					t.Errorf("cell %d: title %q is not on its marker line %q", k, c.Title, lines[markers[k]])
				}
			}
			if first == len(body) {
				if c.Source != "" {
					t.Errorf("cell %d: blank body but Source %q", k, c.Source)
				}
				continue
			}
			src := strings.Split(c.Source, "\n")
			if first+len(src) > len(body) {
				t.Fatalf("cell %d: Source has %d lines, the body only %d after its blank lines", k, len(src), len(body)-first)
			}
			for j, s := range src {
				l := body[first+j]
				if c.Kind != KindCode {
					l = strings.TrimLeftFunc(l, unicode.IsSpace)
					if l != "" {
						l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
					}
				}
				if l != s {
					t.Errorf("cell %d (%s), line %d of the file: %q, but the cell has %q", k, c.Kind, markers[k]+2+first+j, body[first+j], s)
				}
			}
			for j, l := range body[first+len(src):] {
				if strings.TrimSpace(l) != "" {
					t.Errorf("cell %d: line %d %q of its body is not in Source %q", k, markers[k]+2+first+len(src)+j, l, c.Source)
				}
			}
		}
	})
}

// paramSeeds are the parameters cells of the committed notebooks.
func paramSeeds(f *testing.F) []string {
	f.Helper()
	var out []string
	for _, b := range notebookSeeds(f) {
		nb, err := ParseSource("seed.go", b)
		if err != nil {
			continue
		}
		if i := nb.paramCell(); i >= 0 {
			out = append(out, nb.Cells[i].Source)
		}
	}
	return out
}

// FuzzApplyParams sets a fuzzed parameter of a fuzzed parameters cell. On
// success the injected cell assigns a literal of the variable's type holding
// exactly the value given, a parameters cell that compiles still compiles
// with the injected cell after it, and applying again replaces the injected
// cell. Errors name the notebook.
func FuzzApplyParams(f *testing.F) {
	for _, src := range paramSeeds(f) {
		vars, err := paramVars(src)
		if err != nil {
			f.Fatalf("seed parameters cell %q: %v", src, err)
		}
		for _, v := range vars {
			for _, val := range []string{"", "1", "-0x1_0", "2.5e3", "true", "data/x \"y\"", "NaN"} {
				f.Add(src, v.name, val)
			}
		}
	}
	f.Add("var (\n\tn int8 = 1\n\tu uint16 = 2\n\tr float32 = 0.5\n)\nb := false", "r", "3.4e38")
	f.Fuzz(func(t *testing.T, cell, name, value string) {
		nb := &Notebook{Path: "p.go", Cells: []Cell{
			{Kind: KindCode, Source: cell, Tags: []string{TagParameters}, Line: 2},
			{Kind: KindCode, Source: "x := 1", Line: 4},
		}}
		err := nb.ApplyParams(map[string]string{name: value})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "notebook: apply parameters to p.go: ") {
				t.Fatalf("error %q does not name the notebook", err)
			}
			return
		}
		if len(nb.Cells) != 3 || !nb.Cells[1].HasTag(TagInjectedParameters) {
			t.Fatalf("cells after ApplyParams: %+v", nb.Cells)
		}
		inj := nb.Cells[1].Source
		lit, ok := strings.CutPrefix(inj, "// Injected parameters.\n"+name+" = ")
		if !ok || strings.Contains(lit, "\n") {
			t.Fatalf("injected cell %q does not assign %s on one line", inj, name)
		}
		vars, err := paramVars(cell)
		if err != nil {
			t.Fatalf("ApplyParams succeeded but paramVars fails: %v", err)
		}
		typ := ""
		for _, v := range vars {
			if v.name == name {
				typ = v.typ
			}
		}
		checkLiteral(t, typ, lit, value)
		checkCompiles(t, cell, inj, vars)
		again := nb.Cells[1]
		if err := nb.ApplyParams(map[string]string{name: value}); err != nil || len(nb.Cells) != 3 || nb.Cells[1].Source != again.Source {
			t.Fatalf("applying again: %v, cells %+v", err, nb.Cells)
		}
	})
}

// checkLiteral checks that lit, a Go literal of type typ, holds value.
func checkLiteral(t *testing.T, typ, lit, value string) {
	t.Helper()
	if _, err := parser.ParseExpr(lit); err != nil {
		t.Fatalf("literal %q for %q is not a Go expression: %v", lit, value, err)
	}
	switch typ {
	case "string":
		if s, err := strconv.Unquote(lit); err != nil || s != value {
			t.Errorf("string literal %q holds %q, want %q", lit, s, value)
		}
	case "bool":
		if b, err := strconv.ParseBool(value); err != nil || lit != strconv.FormatBool(b) {
			t.Errorf("bool literal %q for %q", lit, value)
		}
	case "float64", "float32":
		bits := 64
		if typ == "float32" {
			bits = 32
		}
		want, err1 := strconv.ParseFloat(value, bits)
		got, err2 := strconv.ParseFloat(lit, bits)
		if err1 != nil || err2 != nil || got != want || math.IsInf(got, 0) {
			t.Errorf("%s literal %q for %q", typ, lit, value)
		}
	default:
		v := strings.ReplaceAll(value, "_", "")
		if strings.HasPrefix(typ, "u") || typ == "byte" {
			want, err1 := strconv.ParseUint(v, 0, 64)
			got, err2 := strconv.ParseUint(lit, 10, 64)
			if err1 != nil || err2 != nil || got != want {
				t.Errorf("%s literal %q for %q", typ, lit, value)
			}
			return
		}
		want, err1 := strconv.ParseInt(v, 0, 64)
		got, err2 := strconv.ParseInt(lit, 10, 64)
		if err1 != nil || err2 != nil || got != want {
			t.Errorf("%s literal %q for %q", typ, lit, value)
		}
	}
}

// checkCompiles type-checks the parameters cell alone and then with the
// injected cell after it (as a function body, each variable used once so
// that unused variables do not matter): when the first compiles, so must
// the second.
func checkCompiles(t *testing.T, cell, inj string, vars []paramVar) {
	t.Helper()
	var uses strings.Builder
	for _, v := range vars {
		uses.WriteString("_ = " + v.name + "\n")
	}
	check := func(body string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", "package p\nfunc _() {\n"+body+"\n}\n", 0)
		if err != nil {
			return err
		}
		var hard error
		conf := types.Config{Error: func(err error) {
			if te, ok := err.(types.Error); hard == nil && (!ok || !te.Soft) {
				hard = err
			}
		}}
		_, _ = conf.Check("p", fset, []*ast.File{f}, nil)
		return hard
	}
	if check(cell+"\n"+uses.String()) != nil {
		return
	}
	if err := check(cell + "\n" + inj + "\n" + uses.String()); err != nil {
		t.Errorf("the parameters cell compiles, but not with the injected cell %q after it: %v", inj, err)
	}
}
