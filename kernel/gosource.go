package kernel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"

	"github.com/traefik/yaegi/stdlib/generic"
)

// yaegi v0.16.1 compiles the generic packages cmp, maps and slices from
// source, but leaves out slices' sorting file: slices.SortFunc, Min, Max,
// BinarySearch and the rest are "undefined selector". slicesExtra adds
// them, written for what the interpreter can run: a constraint with a type
// set (cmp.Ordered) fails in yaegi ("undefined type for E"), so only the
// *Func forms are generic source here, and the rewrite turns slices.Sort(x)
// into slices.SortFunc(x, cmp) with a comparison for x's element type (see
// rewrite.go). It imports no package ("cmp" again in a second file of
// slices is "redeclared" in yaegi), and sorts with a merge sort, stable, so
// SortFunc and SortStableFunc agree.
const slicesExtra = `package slices

func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	SortStableFunc(x, cmp)
}

func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	if len(x) < 2 {
		return
	}
	buf := make([]E, len(x))
	for width := 1; width < len(x); width *= 2 {
		for lo := 0; lo < len(x)-width; lo += 2 * width {
			mid, hi := lo+width, lo+2*width
			if hi > len(x) {
				hi = len(x)
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if cmp(x[j], x[i]) < 0 {
					buf[k] = x[j]
					j++
				} else {
					buf[k] = x[i]
					i++
				}
				k++
			}
			for i < mid {
				buf[k] = x[i]
				i++
				k++
			}
			for j < hi {
				buf[k] = x[j]
				j++
				k++
			}
			copy(x[lo:hi], buf[lo:hi])
		}
	}
}

func IsSortedFunc[S ~[]E, E any](x S, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}

func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}

func BinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if cmp(x[h], target) < 0 {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(x) && cmp(x[lo], target) == 0
}
`

// slicesDecls declares, for go/types only, the slices funcs over ordered
// elements that the rewrite turns into their *Func forms; the interpreter
// never sees them.
const slicesDecls = `package slices

import "cmp"

func Sort[S ~[]E, E cmp.Ordered](x S)                              {}
func IsSorted[S ~[]E, E cmp.Ordered](x S) bool                     { return false }
func Min[S ~[]E, E cmp.Ordered](x S) (m E)                         { return }
func Max[S ~[]E, E cmp.Ordered](x S) (m E)                         { return }
func BinarySearch[S ~[]E, E cmp.Ordered](x S, target E) (int, bool) { return 0, false }
`

// sourcePackages returns, by import path, the source of the packages the
// interpreter compiles from source as go/types sees them: yaegi's generic
// sources, slicesExtra and slicesDecls.
func sourcePackages() map[string][]string {
	out := map[string][]string{}
	for _, src := range generic.Sources {
		out[sourcePackageName(src)] = append(out[sourcePackageName(src)], src)
	}
	out["slices"] = append(out["slices"], slicesExtra, slicesDecls)
	return out
}

// sourcePackageName is the name in a source's package clause.
func sourcePackageName(src string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}

// checkSource type-checks the files of a source package.
func checkSource(path string, srcs []string, im types.Importer) (*types.Package, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for i, src := range srcs {
		f, err := parser.ParseFile(fset, fmt.Sprintf("%s_%d.go", strings.ReplaceAll(path, "/", "_"), i), src, 0)
		if err != nil {
			return nil, fmt.Errorf("kernel: source package %s: %w", path, err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: im, Error: func(error) {}}
	pkg, err := conf.Check(path, fset, files, nil)
	if pkg == nil {
		return nil, fmt.Errorf("kernel: source package %s: %w", path, err)
	}
	return pkg, nil
}
