package runstore_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// TestReadOnlyStoreReadsAndRefusesWrites: a store opened read-only lists
// and loads its runs, writes nothing, and a run, a rejudge or a delete
// fails saying the store is read-only. (SQLite enforces the read-only
// open, so this holds for root as well; PostgreSQL refuses every write of
// the store's sessions.)
func TestReadOnlyStoreReadsAndRefusesWrites(t *testing.T) {
	runtest.EachBackend(t, testReadOnlyStoreReadsAndRefusesWrites)
}

func testReadOnlyStoreReadsAndRefusesWrites(t *testing.T, backend string) {
	path := runtest.StorePath(t, backend)
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	res, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	name := st.Path()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	before := storeState(t, backend, path)
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
		if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s on a read-only store: %v, want an error saying read-only and naming the store %s", what, err, name)
		}
	}
	// Below the store's own checks, the database refuses a write too.
	if _, err := ro.Exec(`UPDATE runs SET label = 'changed'`); err == nil {
		t.Error("the read-only store's connection wrote to the database")
	} else if backend == "postgres" && !strings.Contains(err.Error(), "read-only transaction") {
		t.Errorf("a write on a read-only PostgreSQL session: %v, want the server's read-only refusal", err)
	}
	if after := storeState(t, backend, path); after != before {
		t.Errorf("the read-only store changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if backend == "postgres" {
		empty := runtest.StorePath(t, backend)
		if _, err := runstore.OpenReadOnly(empty); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "no run store") {
			t.Errorf("a schema without a run store opened read-only: %v, want an error wrapping fs.ErrNotExist", err)
		}
	}
}

// storeState is what the store at path holds: the bytes of an SQLite
// file, or the rows of a PostgreSQL store.
func storeState(t *testing.T, backend, path string) string {
	t.Helper()
	if backend == "sqlite" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))
	}
	var state string
	err := pgtest.Open(t, path).QueryRow(`SELECT (SELECT string_agg(id || label || updated_at || sessions || owner || heartbeat, ',' ORDER BY id) FROM runs) ||
		(SELECT count(*) || ':' || coalesce(max(written_at), 0) || ':' || coalesce(sum(length(data)), 0) FROM records)`).Scan(&state)
	if err != nil {
		t.Fatal(err)
	}
	return state
}
