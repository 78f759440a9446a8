package kernel

import (
	"context"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// Executor runs cells one at a time: a *Session in this process, or a
// supervised worker process that runs one (package kernel/worker).
type Executor interface {
	// Exec runs one cell; see Session.Exec.
	Exec(ctx context.Context, src string) *CellResult
}

// VarInfo describes one variable of a session for completion and
// inspection, in plain data that can cross a process boundary.
type VarInfo struct {
	// Valid is false for an invalid reflect.Value (nothing else is set).
	Valid bool
	// Type is the variable's dynamic type (a non-nil interface value is
	// unwrapped).
	Type string
	// Value is the value printed with %v, cut at 500 runes ("" unless
	// asked for).
	Value string
	// Members are the exported methods (of the pointer method set) and
	// the exported struct fields.
	Members []string
	// Methods maps each method name of the pointer method set to its type
	// (the receiver first, as reflect prints it).
	Methods map[string]string
}

// maxValueRunes bounds VarInfo.Value.
const maxValueRunes = 500

// DescribeVar describes v; withValue also formats its value, which may be
// costly for a large value.
func DescribeVar(v reflect.Value, withValue bool) VarInfo {
	if !v.IsValid() {
		return VarInfo{}
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	vi := VarInfo{Valid: true, Type: v.Type().String(), Methods: map[string]string{}}
	t := v.Type()
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		vi.Members = append(vi.Members, m.Name)
		vi.Methods[m.Name] = m.Type.String()
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		for i := 0; i < st.NumField(); i++ {
			if f := st.Field(i); f.IsExported() {
				vi.Members = append(vi.Members, f.Name)
			}
		}
	}
	if withValue {
		val := fmt.Sprintf("%v", safeInterface(v))
		if utf8.RuneCountInString(val) > maxValueRunes {
			val = string([]rune(val)[:maxValueRunes]) + "…"
		}
		vi.Value = val
	}
	return vi
}

// safeInterface returns v's value for printing, or a note when it cannot
// be had.
func safeInterface(v reflect.Value) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("<not printable: %v>", r)
		}
	}()
	if !v.CanInterface() {
		return "<unexported>"
	}
	return v.Interface()
}
