package retrieval

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the dependency rule: of memlab's packages, retrieval may
// import only datasets, text and the model layer (llm and its
// sub-packages), as architecture.md draws it.
func TestImports(t *testing.T) {
	allowed := map[string]bool{"github.com/memlab/memlab/datasets": true, "github.com/memlab/memlab/text": true, "github.com/memlab/memlab/retrieval": true,
		"github.com/memlab/memlab/llm": true, "github.com/memlab/memlab/llm/offline": true, "github.com/memlab/memlab/llm/cache": true,
		"github.com/memlab/memlab/llm/llmtest": true} // the fake server, in tests
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
			if strings.HasPrefix(path, "github.com/memlab/memlab") && !allowed[path] {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}
