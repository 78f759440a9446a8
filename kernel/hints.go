package kernel

import "strings"

// What the interpreter still cannot run after the rewrite, and what to
// write instead. The messages name a workaround, never only yaegi's words.

// sourceGenericHint is for yaegi's generic slices and maps, compiled from
// source, some of whose funcs fail in v0.16.1 (slices.Delete, slices.Compact,
// maps.Clone: "invalid type in assignment", "interface conversion").
const sourceGenericHint = "yaegi v0.16.1 runs slices and maps from their Go source and fails on some of their funcs (slices.Delete, slices.Compact, maps.Clone): write the loop instead (for _, x := range s { ... }), or sort.Slice for sorting"

// workaround names what to write instead of a statement the interpreter
// cannot compile, from what the statement uses.
func workaround(src string) string {
	switch {
	case strings.Contains(src, "slices.") || strings.Contains(src, "maps."):
		return sourceGenericHint
	case strings.Contains(src, "[") && strings.Contains(src, "func("):
		return "if it calls a generic func, write its type arguments out (F[int, string](...)); otherwise move the statement into a func of its own and call it"
	default:
		return "move the statement into a func of its own and call it, or split it into steps (var x T, then x = ...)"
	}
}

// hint adds the workaround to a compile error of yaegi's own words about
// code the rewrite left to it.
func hint(ce *CellError, src string) {
	if ce == nil || (ce.Kind != "compile" && ce.Kind != "panic") || strings.Contains(ce.Msg, "yaegi v0.16.1") {
		return
	}
	if (strings.Contains(src, "slices.") || strings.Contains(src, "maps.")) &&
		(strings.Contains(ce.Msg, "invalid type") || strings.Contains(ce.Msg, "undefined type") || strings.Contains(ce.Msg, "interface conversion")) {
		ce.Msg += " (" + sourceGenericHint + ")"
	}
}
