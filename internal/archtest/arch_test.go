package archtest

import (
	"bufio"
	"bytes"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/memlab/memlab/"

// mustNotImport lists, for a package (by its path in the module), the
// packages its non-test files must not import: a listed path forbids the
// package and every package below it, and a rule for a package holds for
// the packages below it too. The data flow is datasets -> retrieval ->
// generate -> judge -> runs -> reports -> kernel and notebooks; record is
// what runs produce, read by every package after it; display shows things
// and knows no records.
var mustNotImport = map[string][]string{
	"record":   {"runs", "runstore", "reports", "formats", "analysis", "display", "kernel", "stdlib", "cmd"},
	"runstore": {"runs", "reports", "formats", "analysis", "display", "kernel", "stdlib", "cmd"},
	"reports":  {"runs", "runstore", "formats", "display", "kernel", "stdlib", "cmd"},
	"formats":  {"runs", "runstore", "reports", "analysis", "display", "kernel", "stdlib", "cmd"},
	"runs":     {"reports", "formats", "display", "kernel", "stdlib", "cmd", "internal/cellctx"},
	"llm": {"analysis", "display", "datasets", "retrieval", "generate", "judge", "runs", "record", "runstore", "reports",
		"formats", "kernel", "stdlib", "cmd"},
	"display": {"datasets", "retrieval", "generate", "judge", "runs", "record", "runstore", "reports", "formats", "kernel",
		"stdlib", "cmd"},
	// The viewer reads a run store; it never runs anything.
	"viewer": {"runs", "grid", "kernel", "display", "stdlib", "cmd", "catalog"},
}

// mayImportOnly lists, for a package, the only module packages its
// non-test files may import (a listed path allows every package below it;
// the package's own sub-packages and internal/ helpers are always allowed).
// These are the lower layers: component (how a part describes itself),
// activity (what the process is doing), text and analysis import nothing
// of memlab, datasets only text and activity; retrieval, generate and judge read datasets and call
// models through llm, and none of them knows another or what runs make of
// them; the kernel runs cells and knows nothing of memory.
var mayImportOnly = map[string][]string{
	"component": {},
	"activity":  {},
	"text":      {},
	"analysis":  {},
	"datasets":  {"text", "activity"},
	"llm":       {"text", "component"},
	"retrieval": {"datasets", "llm", "text", "component"},
	"generate":  {"datasets", "llm", "text", "component"},
	"judge":     {"datasets", "llm", "text", "component"},
	"kernel":    {"display"},
	// Components by name: it builds the domain packages' components (and
	// shows its catalog as an analysis.Table); it knows nothing of runs.
	"catalog": {"datasets", "llm", "text", "component", "retrieval", "generate", "judge", "analysis"},
	// Benchmark construction: pipelines of model calls over llm, kept in
	// a run store's file, writing datasets' released schemas (read back by
	// datasets' loaders); it evaluates nothing.
	"construct": {"datasets", "llm", "text", "component", "runstore", "analysis"},
}

// exceptions are imports the rules forbid but the module still has, each
// with the reason it is still there. It is empty: a new entry needs a
// reason a reviewer accepts.
var exceptions = map[[2]string]string{}

// onlyImportedBy lists, for a package, the only packages whose non-test
// files may import it (a listed path allows every package below it).
var onlyImportedBy = map[string][]string{
	// Execution is driven by the command line, the kernel and the
	// notebooks (whose cells reach it through the symbol tables).
	"runs": {"cmd", "kernel", "stdlib", "grid"},
	// Grids are driven by the command line and the notebooks. The scale
	// test splits its -systems as memlab grid splits a system axis
	// (grid.SplitTop), so it counts the systems the grid will run.
	"grid": {"cmd", "internal/cmd/scaletest", "stdlib"},
	// Components by name sit above the domain packages: only what runs
	// experiments, keeps or shows their results may name components.
	"catalog": {"runs", "record", "runstore", "reports", "formats", "cmd", "stdlib", "grid"},
	// The run store's web viewer is served by the command line only.
	"viewer": {"cmd"},
	// Building benchmarks is driven by the command line and the notebooks.
	"construct": {"cmd", "stdlib"},
	// Test fixtures: imported by test files only.
	"internal/runtest":     {},
	"internal/browsertest": {},
	// (runtest's back ends include pgtest's PostgreSQL schemas.)
	"internal/pgtest": {"internal/runtest"},
}

// under reports whether path is pkg or a package below it.
func under(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }

// ignored reports whether a Go file is built only with the "ignore" tag
// (the notebooks, stand-alone programs): its header has //go:build ignore.
func ignored(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "//") {
			return false
		}
		if e, err := constraint.Parse(line); err == nil && e.String() == "ignore" {
			return true
		}
	}
	return false
}

// imports returns the module's packages (paths relative to the module) and
// the module packages each one's non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || p != root && strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if ignored(src) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(path, module); ok && !slices.Contains(out[pkg], rel) {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// violations checks pkgs (package -> its imports) against mustNotImport
// and onlyImportedBy.
func violations(pkgs map[string][]string) []string {
	var out []string
	for _, rule := range append(slices.Sorted(maps.Keys(mustNotImport)), slices.Sorted(maps.Keys(mayImportOnly))...) {
		if _, ok := pkgs[rule]; !ok {
			out = append(out, "no package "+rule+": the rules name a package the module does not have")
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		for _, imp := range pkgs[pkg] {
			if _, ok := exceptions[[2]string{pkg, imp}]; ok {
				continue
			}
			for _, rule := range slices.Sorted(maps.Keys(mustNotImport)) {
				if !under(pkg, rule) {
					continue
				}
				for _, f := range mustNotImport[rule] {
					if under(imp, f) {
						out = append(out, pkg+" imports "+imp+": "+rule+" must not import "+f)
					}
				}
			}
			for _, rule := range slices.Sorted(maps.Keys(mayImportOnly)) {
				allowed := mayImportOnly[rule]
				if !under(pkg, rule) || under(imp, rule) || under(imp, "internal") {
					continue
				}
				if !slices.ContainsFunc(allowed, func(a string) bool { return under(imp, a) }) {
					only := "nothing of memlab"
					if len(allowed) > 0 {
						only = "only " + strings.Join(allowed, ", ")
					}
					out = append(out, pkg+" imports "+imp+": "+rule+" may import "+only)
				}
			}
			for _, target := range slices.Sorted(maps.Keys(onlyImportedBy)) {
				allowed := onlyImportedBy[target]
				if !under(imp, target) || under(pkg, target) {
					continue
				}
				if !slices.ContainsFunc(allowed, func(a string) bool { return under(pkg, a) }) {
					who := "only " + strings.Join(allowed, ", ")
					if len(allowed) == 0 {
						who = "only test files"
					}
					out = append(out, pkg+" imports "+imp+": "+who+" may import "+target)
				}
			}
		}
	}
	return out
}

// TestImportsPointOneWay enforces mustNotImport and onlyImportedBy over
// every package of the module.
func TestImportsPointOneWay(t *testing.T) {
	for _, v := range violations(imports(t)) {
		t.Error(v)
	}
}

// TestAPlantedWrongImportFails: the module's imports with wrong ones
// planted (runs importing display, llm importing analysis, reports
// importing runs, a package below retrieval importing runs, text importing
// datasets, generate importing retrieval, llm/offline importing retrieval,
// the notebook runner importing record, component importing text, catalog
// importing runs, a memory system importing catalog, activity importing
// text, analysis importing the browser test fixture, construct importing
// runs, reports importing construct) fail the rules, each named.
func TestAPlantedWrongImportFails(t *testing.T) {
	pkgs := imports(t)
	if v := violations(pkgs); len(v) > 0 {
		t.Skipf("the module breaks the rules already: %v", v)
	}
	pkgs["runs"] = append(pkgs["runs"], "display")
	pkgs["llm"] = append(pkgs["llm"], "analysis")
	pkgs["reports"] = append(pkgs["reports"], "runs")
	pkgs["retrieval/amem"] = append(pkgs["retrieval/amem"], "runs")
	pkgs["text"] = append(pkgs["text"], "datasets")
	pkgs["generate"] = append(pkgs["generate"], "retrieval")
	pkgs["llm/offline"] = append(pkgs["llm/offline"], "retrieval")
	pkgs["kernel/notebook"] = append(pkgs["kernel/notebook"], "record")
	pkgs["component"] = append(pkgs["component"], "text")
	pkgs["catalog"] = append(pkgs["catalog"], "runs")
	pkgs["retrieval/mem0"] = append(pkgs["retrieval/mem0"], "catalog")
	pkgs["activity"] = append(pkgs["activity"], "text")
	pkgs["analysis"] = append(pkgs["analysis"], "internal/browsertest")
	pkgs["construct"] = append(pkgs["construct"], "runs")
	pkgs["reports"] = append(pkgs["reports"], "construct")
	got := strings.Join(violations(pkgs), "\n")
	for _, want := range []string{"runs imports display", "llm imports analysis", "reports imports runs: reports must not import runs",
		"retrieval/amem imports runs: only cmd, kernel, stdlib, grid may import runs",
		"text imports datasets: text may import nothing of memlab",
		"generate imports retrieval: generate may import only datasets, llm, text, component",
		"llm/offline imports retrieval: llm may import only text, component",
		"component imports text: component may import nothing of memlab",
		"kernel/notebook imports record: kernel may import only display",
		"catalog imports runs: catalog may import only datasets",
		"retrieval/mem0 imports catalog: only runs, record, runstore, reports, formats, cmd, stdlib, grid may import catalog",
		"activity imports text: activity may import nothing of memlab",
		"analysis imports internal/browsertest: only test files may import internal/browsertest",
		"construct imports runs: construct may import only datasets",
		"reports imports construct: only cmd, stdlib may import construct"} {
		if !strings.Contains(got, want) {
			t.Errorf("violations lack %q:\n%s", want, got)
		}
	}
}
