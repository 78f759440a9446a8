package text

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingOfMemlab enforces the package's rule: text sits below
// every other package of memlab, so no file of it (tests included, but for
// its own external examples) imports one of them.
func TestImportsNothingOfMemlab(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob: %v, %d files", err, len(files))
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/memlab/memlab") && path != "github.com/memlab/memlab/text" {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}
