package tablesum

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes files (name -> source) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// variant is a version of a table's package a and of b, a package a's API
// refers to.
type variant struct{ desc, a, b string }

// apis writes one module holding every variant (variant i as packages
// example.com/m/vi/a and example.com/m/vi/b), lists it once, and returns
// the API text writeAPI gives each a, with its own path written "P".
func apis(t *testing.T, vs []variant) []string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.26\n"}
	var pkgs []string
	for i, v := range vs {
		p := fmt.Sprintf("example.com/m/v%d", i)
		files[fmt.Sprintf("v%d/a/a.go", i)] = "package a\n\nimport \"" + p + "/b\"\n\nvar _ b.Reader\n\n" + v.a
		files[fmt.Sprintf("v%d/b/b.go", i)] = "package b\n\n" + v.b
		pkgs = append(pkgs, p+"/a")
	}
	writeFiles(t, dir, files)
	byPath, err := list(dir, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	imp := exportImporter(byPath)
	out := make([]string, len(vs))
	for i, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		writeAPI(&b, pkg)
		out[i] = strings.ReplaceAll(b.String(), fmt.Sprintf("example.com/m/v%d", i), "P")
	}
	return out
}

const baseA = `// Const is untyped.
const Const = limit * 2

const limit = 21

// Typed is a typed constant.
const Typed int = 3

// Chatter is an interface whose methods the table wraps.
type Chatter interface {
	b.Reader
	Chat(prompt string, n int) (string, error)
}

// Record is a struct type.
type Record struct {
	ID   string
	note string
}

// Run is a function.
func Run(name string) error {
	return nil
}

// Default is a variable.
var Default = Record{ID: "x"}

func helper() int { return 1 }
`

const baseB = `// Reader is embedded in a.Chatter.
type Reader interface {
	Read(p []byte) (int, error)
}

// Unrelated is not part of a's API.
func Unrelated() {}
`

// TestAPIFollowsTheTablesInputs: every change that can change a's table
// changes the API text its hash is computed from; changes that cannot leave
// it alone.
func TestAPIFollowsTheTablesInputs(t *testing.T) {
	same := []variant{
		{"function body", strings.Replace(baseA, "return nil", "_ = name\n\treturn nil", 1), baseB},
		{"unexported helper added", baseA + "\nfunc other() {}\n", baseB},
		{"unexported struct field", strings.Replace(baseA, "note string", "note, more string", 1), baseB},
		{"exported struct field", strings.Replace(baseA, "ID   string", "ID   string\n\tName string", 1), baseB},
		{"comments", strings.ReplaceAll(baseA, "// ", "// Note: "), baseB},
		{"dependency outside a's API", baseA, strings.Replace(baseB, "func Unrelated() {}", "func Unrelated(int) {}", 1)},
	}
	differ := []variant{
		{"exported function added", baseA + "\nfunc Added() {}\n", baseB},
		{"exported function removed", strings.Replace(baseA, "func Run(name string) error {\n\treturn nil\n}", "", 1), baseB},
		{"function made generic", strings.Replace(baseA, "func Run(name string) error", "func Run[T any](name string) error", 1), baseB},
		{"untyped constant's value through an unexported one", strings.Replace(baseA, "limit = 21", "limit = 22", 1), baseB},
		{"constant made typed", strings.Replace(baseA, "const Const = limit * 2", "const Const int = limit * 2", 1), baseB},
		{"interface method's parameter name", strings.Replace(baseA, "prompt string", "text string", 1), baseB},
		{"interface method added", strings.Replace(baseA, "Chat(prompt", "Close() error\n\tChat(prompt", 1), baseB},
		{"embedded interface of another package gains a method", baseA, strings.Replace(baseB, "Read(p []byte) (int, error)", "Read(p []byte) (int, error)\n\tReset()", 1)},
		{"type made an alias", strings.Replace(baseA, "type Record struct {", "type Record = struct {", 1), baseB},
		{"struct becomes an interface", strings.NewReplacer("type Record struct {\n\tID   string\n\tnote string\n}", "type Record interface{ ID() string }",
			"var Default = Record{ID: \"x\"}", "var Default Record").Replace(baseA), baseB},
		{"variable's type", strings.Replace(baseA, "var Default = Record{ID: \"x\"}", "var Default = &Record{ID: \"x\"}", 1), baseB},
	}
	vs := append(append([]variant{{"base", baseA, baseB}}, same...), differ...)
	got := apis(t, vs)
	base := got[0]
	for _, want := range []string{"package P/a a\n", "const Const untyped int Int 42\n", "\tmethod Read func(p []byte) (int, error)\n", "\tembeds P/b:b.Reader\n"} {
		if !strings.Contains(base, want) {
			t.Errorf("API text lacks %q:\n%s", want, base)
		}
	}
	for i, v := range vs[1:] {
		changed := got[i+1] != base
		if i < len(same) && changed {
			t.Errorf("%s: the API text changed, but the table cannot:\n%s\nwant\n%s", v.desc, got[i+1], base)
		}
		if i >= len(same) && !changed {
			t.Errorf("%s: the API text did not change", v.desc)
		}
	}
}

// TestSumsCoverTheGenerator: the extractor's source (and that of the
// packages outside the standard library it imports) and the flags of the
// go:generate line are inputs of every table's hash.
func TestSumsCoverTheGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module three times; skipped under -short")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":                       "module example.com/m\n\ngo 1.26\n",
		"a/a.go":                       "package a\n\n" + strings.ReplaceAll(baseA, "b.Reader", "error"),
		"gen/g.go":                     "package gen\n\n// N is read by the extractor.\nconst N = 1\n",
		"internal/cmd/extract/main.go": "package main\n\nimport \"example.com/m/gen\"\n\nfunc main() { println(gen.N) }\n",
	})
	const extractor = "example.com/m/internal/cmd/extract"
	lines := []Line{{Flags: []string{"-name", "stdlib"}, Packages: []string{"example.com/m/a"}}}
	sum := func() string {
		t.Helper()
		sums, err := sumsWith(dir, extractor, lines)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 1 || !strings.HasPrefix(sums["example.com/m/a"], "sha256:") {
			t.Fatalf("sums %v", sums)
		}
		return sums["example.com/m/a"]
	}
	base := sum()
	writeFiles(t, dir, map[string]string{"gen/g.go": "package gen\n\n// N is read by the extractor.\nconst N = 2\n"})
	if sum() == base {
		t.Error("a package the extractor imports changed, the hash did not")
	}
	writeFiles(t, dir, map[string]string{"gen/g.go": "package gen\n\n// N is read by the extractor.\nconst N = 1\n"})
	lines[0].Flags = []string{"-name", "other"}
	if sum() == base {
		t.Error("the go:generate line's flags changed, the hash did not")
	}
}

func TestReadLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stdlib.go")
	src := "package stdlib\n\n//go:generate go run ../internal/cmd/extract -name stdlib a/b c/d\n//go:generate go run ../internal/cmd/other x\n//go:generate go run ../internal/cmd/extract e\n"
	os.WriteFile(p, []byte(src), 0o644)
	lines, err := ReadLines(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0].Number != 3 || strings.Join(lines[0].Flags, " ") != "-name stdlib" ||
		strings.Join(lines[0].Packages, " ") != "a/b c/d" || lines[1].Number != 5 || len(lines[1].Flags) != 0 || lines[1].Packages[0] != "e" {
		t.Errorf("lines %+v", lines)
	}
	os.WriteFile(p, []byte("package stdlib\n\n//go:generate go run ../internal/cmd/extract -name\n"), 0o644)
	if _, err := ReadLines(p); err == nil || !strings.Contains(err.Error(), "stdlib.go:3") {
		t.Errorf("flag without value: error %v, want one naming stdlib.go:3", err)
	}
}

func TestFormatParse(t *testing.T) {
	lines := []Line{{Packages: []string{"a/b", "c"}}, {Packages: []string{"d"}}}
	sums := map[string]string{"a/b": "sha256:01", "c": "sha256:02", "d": "sha256:03"}
	got, err := Parse("tables.sum", Format(lines, sums))
	if err != nil || len(got) != 3 || got["a/b"] != "sha256:01" || got["d"] != "sha256:03" {
		t.Fatalf("round trip: %v %v", got, err)
	}
	if ch := Changed(lines, got, map[string]string{"a/b": "sha256:01", "c": "sha256:09", "d": "sha256:03"}); len(ch) != 1 || ch[0] != "c" {
		t.Errorf("Changed = %v, want [c]", ch)
	}
	if ch := Changed(lines, map[string]string{"a/b": "sha256:01"}, sums); len(ch) != 2 {
		t.Errorf("Changed with missing lines = %v, want [c d]", ch)
	}
	for _, bad := range []string{"a/b\n", "a/b md5:00\n", "a sha256:01\na sha256:02\n"} {
		if _, err := Parse("tables.sum", []byte(bad)); err == nil || !strings.Contains(err.Error(), "tables.sum:") {
			t.Errorf("Parse(%q): error %v, want one naming tables.sum and the line", bad, err)
		}
	}
}

func TestFileName(t *testing.T) {
	if got := FileName("github.com/memlab/memlab/retrieval/amem"); got != "github_com-memlab-memlab-retrieval-amem.go" {
		t.Errorf("FileName = %q", got)
	}
	if got := FileName("gonum.org/v1/plot/vg/draw"); got != "gonum_org-v1-plot-vg-draw.go" {
		t.Errorf("FileName = %q", got)
	}
}
