package kernel

// GoLevel is the Go language version a Session speaks: the newest Go
// release all of whose language features a cell may use, and those of
// the releases before it. yaegi v0.16.1 itself has generics (Go 1.18) and
// slice-to-array conversions (Go 1.20); the session's rewrite of cells
// adds the min, max and clear builtins (Go 1.21), range over an int and
// one variable per loop iteration when a closure captures it (Go 1.22) and
// range over a func (Go 1.23). The standard library is yaegi's (Go 1.22's:
// no iter, slices.Collect or maps.Keys). TestGoLevel probes each release's
// features through Exec and fails when this constant is not the level
// they show, so making more of them work raises it.
//
// The Jupyter kernel reports it as language_info.version, instead of the
// version of the toolchain that built memlab.
const GoLevel = "1.23"

// GoLevelNote says in a line what GoLevel means, for banners.
const GoLevelNote = "Go " + GoLevel + " (yaegi v0.16.1 and memlab's rewrite of cells); standard library as yaegi v0.16.1 has it (Go 1.22's, without iter, slices.Collect or maps.Keys)"
