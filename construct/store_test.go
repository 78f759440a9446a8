package construct

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/runstore"
)

// TestStoreSharesTheRunStoreFile: the build tables live in a run store's
// file on their own schema version; the run store opens it as before,
// read-only too, and a file of a newer build schema is refused.
func TestStoreSharesTheRunStoreFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	rs, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close()
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	var v, rv string
	s.db.QueryRow(`SELECT value FROM meta WHERE name = 'construct_schema_version'`).Scan(&v)
	s.db.QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&rv)
	if want := strconv.Itoa(runstore.SchemaVersion); v != "1" || rv != want {
		t.Errorf("meta: construct %q, run store %q (want 1 and %s)", v, rv, want)
	}
	s.Close()
	for _, open := range []func(string) (*runstore.Store, error){runstore.Open, runstore.OpenReadOnly} {
		rs, err := open(path)
		if err != nil {
			t.Fatalf("the run store no longer opens: %v", err)
		}
		if runs, err := rs.Runs(); err != nil || len(runs) != 0 {
			t.Errorf("runs %v %v", runs, err)
		}
		rs.Close()
	}
	// A fresh file: OpenStore makes it a run store first.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	s2, err := OpenStore(fresh)
	if err != nil {
		t.Fatal(err)
	}
	s2.db.Exec(`UPDATE meta SET value = '99' WHERE name = 'construct_schema_version'`)
	s2.Close()
	if rs, err := runstore.OpenReadOnly(fresh); err != nil {
		t.Errorf("a file made by OpenStore is not a run store: %v", err)
	} else {
		rs.Close()
	}
	if _, err := OpenStore(fresh); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("a newer build schema: %v", err)
	}
	if _, err := OpenStore("postgres://localhost/x"); err == nil {
		t.Errorf("a PostgreSQL URL is accepted")
	}
}
