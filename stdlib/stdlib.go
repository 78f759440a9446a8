// Package stdlib holds the yaegi symbol tables that notebook cells can import:
// memlab's own packages and the gonum and gonum/plot packages notebooks use.
// The Go standard library comes from yaegi's own stdlib package.
//
// Every other file here is generated; regenerate them with
//
//	go generate ./stdlib
//
// after changing an exported API. One go:generate line writes
// tables.sum: for each table, the hash of what it is generated from
// (internal/tablesum). TestSymbolsComplete fails when a table misses an
// exported name (e.g. a generic function, which yaegi cannot extract);
// TestGeneratedUpToDate regenerates the tables whose hash changed and
// compares them with the committed ones.
package stdlib

import "reflect"

// Symbols maps "importpath/pkgname" to the package's exported symbols, the
// shape interp.Use expects.
var Symbols = map[string]map[string]reflect.Value{}

// Packages lists the import paths of memlab's own packages in Symbols; the
// completeness test checks each of them.
var Packages = []string{
	"github.com/memlab/memlab/activity",
	"github.com/memlab/memlab/analysis",
	"github.com/memlab/memlab/catalog",
	"github.com/memlab/memlab/component",
	"github.com/memlab/memlab/construct",
	"github.com/memlab/memlab/construct/standin",
	"github.com/memlab/memlab/datasets",
	"github.com/memlab/memlab/display",
	"github.com/memlab/memlab/formats",
	"github.com/memlab/memlab/generate",
	"github.com/memlab/memlab/grid",
	"github.com/memlab/memlab/judge",
	"github.com/memlab/memlab/llm",
	"github.com/memlab/memlab/llm/offline",
	"github.com/memlab/memlab/record",
	"github.com/memlab/memlab/reports",
	"github.com/memlab/memlab/retrieval",
	"github.com/memlab/memlab/retrieval/amem",
	"github.com/memlab/memlab/retrieval/mem0",
	"github.com/memlab/memlab/retrieval/memos",
	"github.com/memlab/memlab/retrieval/timeline",
	"github.com/memlab/memlab/retrieval/weaviate",
	"github.com/memlab/memlab/runs",
	"github.com/memlab/memlab/runstore",
	"github.com/memlab/memlab/text",
}

//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/analysis github.com/memlab/memlab/datasets github.com/memlab/memlab/display
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/generate github.com/memlab/memlab/judge github.com/memlab/memlab/retrieval
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/runs
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/record github.com/memlab/memlab/runstore github.com/memlab/memlab/reports github.com/memlab/memlab/formats
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/text github.com/memlab/memlab/component github.com/memlab/memlab/activity
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/llm github.com/memlab/memlab/llm/offline
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/retrieval/amem github.com/memlab/memlab/retrieval/mem0 github.com/memlab/memlab/retrieval/memos github.com/memlab/memlab/retrieval/timeline
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/retrieval/weaviate
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/catalog
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/grid
//go:generate go run ../internal/cmd/extract -name stdlib github.com/memlab/memlab/construct github.com/memlab/memlab/construct/standin
//go:generate go run ../internal/cmd/extract -name stdlib gonum.org/v1/gonum/stat gonum.org/v1/gonum/floats gonum.org/v1/gonum/mat gonum.org/v1/gonum/stat/distuv
//go:generate go run ../internal/cmd/extract -name stdlib gonum.org/v1/plot gonum.org/v1/plot/plotter gonum.org/v1/plot/plotutil gonum.org/v1/plot/vg
//go:generate go run ../internal/cmd/extract -name stdlib gonum.org/v1/plot/vg/draw gonum.org/v1/plot/vg/vgimg gonum.org/v1/plot/font gonum.org/v1/plot/text gonum.org/v1/plot/palette
//go:generate go run ../internal/cmd/tablesum -o tables.sum
