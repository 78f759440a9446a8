package kernel

import (
	"context"
	"reflect"
	"sync/atomic"

	"github.com/traefik/yaegi/interp"
)

// This file gives compiled code the running cell's context: every function
// of the session's symbol tables (Options.Symbols: memlab's packages) whose
// first parameter is a context.Context is called with that context bound
// to the cell's, so that interrupting the cell (Jupyter's interrupt,
// Ctrl-C under `memlab run`) cancels a run, a rejudge or a model call in
// progress, whatever context the cell passed (notebooks keep a
// context.Background() from their first cell). The packages themselves know
// nothing of cells.

var contextType = reflect.TypeFor[context.Context]()

// cellContext holds the context of the cell a session is running (nil
// between cells).
type cellContext struct {
	cur atomic.Pointer[context.Context]
}

// set makes ctx the running cell's context (nil: no cell runs).
func (c *cellContext) set(ctx context.Context) {
	if ctx == nil {
		c.cur.Store(nil)
		return
	}
	c.cur.Store(&ctx)
}

// boundTo is the key of the value a bound context carries: the running
// cell it is bound to.
type boundTo struct{}

// bind returns ctx, or, while a cell runs, a context that is also done
// when the cell's is, and the function to call when the call is over. The
// bound context outlives the call (a constructor may keep it): only the
// link to the cell ends then. A context already bound to the running cell
// (one derived from a bound context, such as llm.WithTally's) is kept.
func (c *cellContext) bind(ctx context.Context) (context.Context, func()) {
	p := c.cur.Load()
	if ctx == nil || p == nil || *p == ctx || ctx.Value(boundTo{}) == p {
		return ctx, func() {}
	}
	cell := *p
	bound, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(cell, func() { cancel(context.Cause(cell)) })
	return context.WithValue(bound, boundTo{}, p), func() { stop() }
}

// bindSymbols returns a copy of x in which every function whose first
// parameter is a context.Context binds it to the running cell (bind).
// Variables, types and constants are kept as they are.
func (c *cellContext) bindSymbols(x interp.Exports) interp.Exports {
	out := make(interp.Exports, len(x))
	for pkg, syms := range x {
		m := make(map[string]reflect.Value, len(syms))
		for name, v := range syms {
			m[name] = c.bindFunc(v)
		}
		out[pkg] = m
	}
	return out
}

// bindFunc wraps a function value taking a context first; anything else
// is returned as is.
func (c *cellContext) bindFunc(v reflect.Value) reflect.Value {
	if !v.IsValid() || v.Kind() != reflect.Func || v.CanAddr() || v.IsNil() {
		return v
	}
	t := v.Type()
	if t.NumIn() == 0 || t.In(0) != contextType {
		return v
	}
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		if ctx, ok := args[0].Interface().(context.Context); ok {
			bound, release := c.bind(ctx)
			defer release()
			args[0] = reflect.ValueOf(&bound).Elem()
		}
		if t.IsVariadic() {
			return v.CallSlice(args)
		}
		return v.Call(args)
	})
}
