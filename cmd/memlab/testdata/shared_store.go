//go:build ignore

// %% [markdown]
// A notebook for the shared-store manifest test: a grid of one run (run
// here, or queued with -queue), then, with wait set, it waits for another
// researcher to write a run of theirs to the same store.

// %% [parameters]
k := 5
wait := ""

// %%
import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
)

ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
set, err := grid.Grid{Data: ds, Axes: []record.Axis{{Name: "k", Values: []string{strconv.Itoa(k)}}}}.Run(context.Background())
if err != nil {
	panic(err)
}
for _, r := range set.Results() {
	fmt.Println("run", r.ID)
}
if wait != "" {
	if err := os.WriteFile(filepath.Join(wait, "a.ran"), nil, 0o644); err != nil {
		panic(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(wait, "b.done")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			panic("the other researcher's run did not come")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
