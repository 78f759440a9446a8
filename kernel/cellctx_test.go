package kernel

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// slowSymbols is a compiled package for cells: Wait blocks until its
// context is done and sends the context's error on returned; Keep returns
// the context it was given (a constructor keeping it); Join is variadic.
func slowSymbols(started chan<- struct{}, returned chan<- error) interp.Exports {
	return interp.Exports{"example.com/slow/slow": {
		"Wait": reflect.ValueOf(func(ctx context.Context) error {
			started <- struct{}{}
			<-ctx.Done()
			returned <- ctx.Err()
			return ctx.Err()
		}),
		"Keep": reflect.ValueOf(func(ctx context.Context) context.Context { return ctx }),
		"Join": reflect.ValueOf(func(_ context.Context, sep string, parts ...string) string { return strings.Join(parts, sep) }),
	}}
}

// TestInterruptingTheCellStopsACompiledCall: a cell that passes
// context.Background() (or a context kept from an earlier cell) to a
// compiled function still has that call cancelled when the cell is
// interrupted, and a context a compiled function kept outlives the cell
// that made it.
func TestInterruptingTheCellStopsACompiledCall(t *testing.T) {
	started, returned := make(chan struct{}, 1), make(chan error, 1)
	s, err := NewSession(Options{Symbols: []interp.Exports{slowSymbols(started, returned)}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	interrupt := func(src string) *CellResult {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-started
			cancel()
		}()
		r := s.Exec(ctx, src)
		select {
		case err := <-returned:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the compiled call returned %v, want the cell's cancellation", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("interrupting the cell did not cancel the compiled call")
		}
		return r
	}
	run(t, s, `import (
	"context"
	"fmt"

	"example.com/slow"
)`)
	interrupt(`err := slow.Wait(context.Background())
fmt.Println("returned", err)`)

	// A context kept in a cell is not cancelled when that cell ends (the
	// kernel cancels each cell's context once it is done)...
	ctx, cancel := context.WithCancel(context.Background())
	if r := s.Exec(ctx, `kept := slow.Keep(context.Background())`); r.Err != nil {
		t.Fatal(r.Err)
	}
	cancel()
	if r := run(t, s, `fmt.Println(kept.Err(), slow.Join(kept, "-", "a", "b"))`); r.Stdout != "<nil> a-b\n" {
		t.Errorf("a kept context after its cell ended: %q %v", r.Stdout, r.Err)
	}
	// ...and a call given it is bound to the cell running then.
	interrupt(`slow.Wait(kept)`)
}
