package catalog_test

import (
	"errors"
	"fmt"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
)

// Build a memory system by name, see its canonical string, and see what
// an unknown name and a missing model give.
func Example() {
	ds, err := datasets.Sample()
	if err != nil {
		panic(err)
	}
	env := &catalog.Env{Data: ds} // offline: no model client
	sys, err := catalog.System(env, "flat( dense:lsa , k1=1.5 )")
	if err != nil {
		panic(err)
	}
	fmt.Println(sys.Name())
	fmt.Println(catalog.Canonical(catalog.KindSystem, "flat( dense:lsa , k1=1.5 )"))

	_, err = catalog.System(env, "flta")
	fmt.Println(err)

	_, err = catalog.System(env, "mem0(model=gpt-4o-mini)")
	var nm *catalog.NeedsModelError
	fmt.Println(errors.As(err, &nm), nm.Role)
	// Output:
	// flat(dense:lsa,stats=admitted)
	// flat(dense:lsa) <nil>
	// catalog: spec "flta": column 1: unknown system "flta": did you mean flat?
	// true extractor
}

// The catalog as a table: every component, its knobs, their defaults and
// whether it needs a model.
func ExampleTable() {
	t := catalog.Table()
	fmt.Println(t.Header)
	fmt.Println(t.Rows[0][:3])
	// Output:
	// [kind name needs model knob type default values doc]
	// [system flat when embedder or extractor is a model]
}
