package reports_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// storeGrid runs the embedder axis over a real run store twice, the
// second time with a value added, and returns both sets.
func storeGrid(dir string) (first, second *reports.Set, err error) {
	st, err := runstore.Open(filepath.Join(dir, "runs.db"))
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	g := grid.Grid{Axes: []record.Axis{grid.Axis("embedder", "bm25", "hashed"), grid.Ks(5)},
		Env: &catalog.Env{}, Options: runs.Options{Store: st, Quiet: true}}
	if first, err = g.Run(context.Background()); err != nil {
		return nil, nil, err
	}
	g.Axes[0] = grid.Axis("embedder", "bm25", "hashed", "lsa", "embedder(model=x)")
	second, err = g.Run(context.Background())
	return first, second, err
}

// A rerun with an axis value added takes the old points from the store
// and computes only the new one; the table says so per point.
func TestStoreTableAfterARerun(t *testing.T) {
	first, second, err := storeGrid(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want1 := [][]string{{"bm25", "54", "0", "54", "ok"}, {"hashed", "54", "0", "54", "ok"}}
	want2 := [][]string{{"bm25", "54", "54", "0", "ok"}, {"hashed", "54", "54", "0", "ok"}, {"lsa", "54", "0", "54", "ok"},
		{"embedder(model=x)", "", "", "", "skipped"}}
	for _, c := range []struct {
		set  *reports.Set
		want [][]string
	}{{first, want1}, {second, want2}} {
		got := c.set.StoreTable().Rows
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("StoreTable rows\n got %q\nwant %q", got, c.want)
		}
	}
	if rows := first.Where("nope=1").StoreTable().Rows; rows != nil {
		t.Errorf("a set carrying an error has rows %q", rows)
	}
}

// StoreTable shows, after a rerun with a value added to an axis, that
// only the new point was computed.
func ExampleSet_StoreTable() {
	dir, err := os.MkdirTemp("", "memlab-storetable")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	_, second, err := storeGrid(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(second.StoreTable().Markdown())
	// Output:
	// | point | records | from the store | computed | status |
	// | --- | ---: | ---: | ---: | --- |
	// | bm25 | 54 | 54 | 0 | ok |
	// | hashed | 54 | 54 | 0 | ok |
	// | lsa | 54 | 0 | 54 | ok |
	// | embedder(model=x) |  |  |  | skipped |
}
