package runstore_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// TestReadOnlyStoreReadsAndRefusesWrites: a store opened read-only lists
// and loads its runs, writes nothing, and a run, a rejudge or a delete
// fails saying the store is read-only. (SQLite enforces the read-only
// open, so this holds for root as well.)
func TestReadOnlyStoreReadsAndRefusesWrites(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	res, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	path := st.Path()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	infos, err := ro.Runs()
	if err != nil || len(infos) != 1 || infos[0].ID != res.ID || !infos[0].Complete() {
		t.Fatalf("runs: %+v %v", infos, err)
	}
	recs, err := ro.Records(res.ID)
	if err != nil || len(recs) != len(d.Questions) {
		t.Fatalf("records: %d %v", len(recs), err)
	}
	_, runErr := runs.Run(context.Background(), d, cfg, runs.Options{Store: ro, Quiet: true})
	for what, err := range map[string]error{"run": runErr, "delete": ro.Delete(res.ID)} {
		if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s on a read-only store: %v, want an error saying read-only and naming the file", what, err)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the read-only store changed the file (%v)", err)
	}
}
