package runstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

func TestRunStoreTakesOverADeadProcess(t *testing.T) {
	runtest.EachBackend(t, testRunStoreTakesOverADeadProcess)
}

func testRunStoreTakesOverADeadProcess(t *testing.T, backend string) {
	st := runtest.OpenStoreOn(t, backend)
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	spec := runs.SpecOf(d, cfg)
	l, err := st.Begin(context.Background(), spec, "dead", false)
	if err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	// A process that no longer exists (pid above the kernel's pid_max).
	if _, err := st.Exec(`UPDATE runs SET owner = ? WHERE id = ?`, runstore.Hostname+" 99999999 dead", spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st}); err != nil {
		t.Fatalf("a run held by a dead process was not taken over: %v", err)
	}
	// Another host's fresh lease is respected, a stale one is not.
	if _, err := st.Exec(`UPDATE runs SET owner = 'elsewhere 1 x', heartbeat = ? WHERE id = ?`, time.Now().UnixMilli(), spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st}); !errors.Is(err, runstore.ErrRunBusy) {
		t.Fatalf("fresh lease of another host: %v", err)
	}
	if _, err := st.Exec(`UPDATE runs SET heartbeat = ? WHERE id = ?`, time.Now().Add(-2*runstore.LeaseTimeout).UnixMilli(), spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st}); err != nil {
		t.Fatalf("stale lease of another host: %v", err)
	}
}

func TestStoreMigratesFromSchemaVersion1(t *testing.T) {
	runtest.EachBackend(t, testStoreMigratesFromSchemaVersion1)
}

func testStoreMigratesFromSchemaVersion1(t *testing.T, backend string) {
	path := runtest.StorePath(t, backend)
	db, err := runstore.OpenAtVersion(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A version 1 store as the first memlab wrote it: one run, two records.
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	ref, err := runs.Run(context.Background(), d, cfg, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	spec := ref.Spec
	_, err = db.Exec(`INSERT INTO runs (id, label, dataset, fingerprint, system, reader, k, spec, code_version, questions, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, spec.ID(), "old", spec.Dataset, spec.Fingerprint, spec.System, spec.Reader, spec.K,
		spec.JSON(), "v0", spec.Questions, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		data, _ := record.Marshal(ref.Records[i])
		if _, err := db.Exec(`INSERT INTO records (run_id, question_id, ord, failure, latency_us, data, written_at) VALUES (?,?,?,?,?,?,?)`,
			spec.ID(), ref.Records[i].QuestionID, i, "", 0, string(data), 1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v string
	if err := st.DB().QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(runstore.SchemaVersion) {
		t.Fatalf("schema version %q (%v), want %d", v, err, runstore.SchemaVersion)
	}
	var attempts, format int
	if err := st.QueryRow(`SELECT attempts, format FROM records WHERE run_id = ? AND question_id = ?`, spec.ID(), ref.Records[0].QuestionID).
		Scan(&attempts, &format); err != nil || attempts != 1 || format != record.JSONFormat {
		t.Errorf("a migrated record has attempts %d and format %d (%v), want 1 and %d", attempts, format, err, record.JSONFormat)
	}
	info, err := st.Run(spec.ID()[:6])
	if err != nil {
		t.Fatal(err)
	}
	if info.Done != 2 || info.Meter != (retrieval.Meter{}) || info.Sessions != 0 {
		t.Errorf("migrated run: %+v", info)
	}
	res, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 {
		t.Errorf("resumed %d records of the old store, want 2", res.Resumed)
	}
	runtest.SameRecords(t, res.Records, ref.Records)
}

func TestStoreRefusesANewerSchemaAndForeignFiles(t *testing.T) {
	runtest.EachBackend(t, testStoreRefusesANewerSchemaAndForeignFiles)
}

func testStoreRefusesANewerSchemaAndForeignFiles(t *testing.T, backend string) {
	path := runtest.StorePath(t, backend)
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, open := range []func(string) (*runstore.Store, error){runstore.Open, runstore.OpenReadOnly} {
		_, err := open(path)
		if err == nil || !strings.Contains(err.Error(), "99") || !strings.Contains(err.Error(), runstore.RedactPath(path)) {
			t.Errorf("newer schema: %v", err)
		}
	}
	foreign := runtest.StorePath(t, backend)
	var db *sql.DB
	if backend == "postgres" {
		db = pgtest.Open(t, foreign)
	} else if db, err = sql.Open("sqlite", foreign); err != nil {
		t.Fatal(err)
	}
	// A table of a run store's name that is not one.
	if _, err := db.Exec(`CREATE TABLE runs (y TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := runstore.Open(foreign); err == nil || !strings.Contains(err.Error(), "not a memlab run store") {
		t.Errorf("foreign file: %v", err)
	}
}

// TestRunStopsCleanlyWhenTheStoreIsFull fills an SQLite store (SQLite's
// max_page_count; a PostgreSQL server's full disk cannot be made per test).
func TestRunStopsCleanlyWhenTheStoreIsFull(t *testing.T) {
	st := runtest.OpenStore(t)
	st.DB().SetMaxOpenConns(1) // max_page_count is per connection
	var pages int
	if err := st.DB().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+12)); err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10}
	res, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st, Workers: 2})
	if err == nil {
		t.Fatal("a full store did not stop the run")
	}
	if !strings.Contains(err.Error(), "full") || !strings.Contains(err.Error(), "completed records are kept") {
		t.Errorf("error does not say the store is full and records are kept: %v", err)
	}
	kept, err2 := st.Records(res.ID)
	if err2 != nil {
		t.Fatal(err2)
	}
	if len(kept) == 0 || len(kept) >= len(d.Questions) || len(kept) != len(res.Records) {
		t.Fatalf("kept %d records, result has %d, of %d questions", len(kept), len(res.Records), len(d.Questions))
	}
	// Space again: the run resumes with what was kept.
	if _, err := st.DB().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	again, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != len(kept) || len(again.Records) != len(d.Questions) {
		t.Errorf("resumed %d of %d kept, %d records", again.Resumed, len(kept), len(again.Records))
	}
	ref, _ := runs.Run(context.Background(), d, cfg, runs.Options{NoStore: true})
	runtest.SameRecords(t, again.Records, ref.Records)
}

// TestStoreUpgradesSchema2Records opens the fixture store written by the
// code of schema 2 (../runs/testdata, records with a judges map and
// verdicts): the schema is the current one, every record row is rewritten
// in the current JSON format (none is left in format 1), and the records
// read back the same as before the upgrade.
//
// On PostgreSQL the fixture's rows are copied into a schema of version 2
// first: the same upgrade runs there.
func TestStoreUpgradesSchema2Records(t *testing.T) {
	runtest.EachBackend(t, testStoreUpgradesSchema2Records)
}

func testStoreUpgradesSchema2Records(t *testing.T, backend string) {
	const fixture = "../runs/testdata/store-schema2.db"
	src, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	path := file
	if backend == "postgres" {
		path = runtest.StorePath(t, backend)
		copySchema2(t, file, path)
	}
	// The records as the old rows decode (record.Unmarshal reads format 1).
	db, _, err := sqlitedb.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	var before []record.Record
	rows, err := db.Query(`SELECT data FROM records ORDER BY ord`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(data, `"judges"`) || strings.Contains(data, `"format"`) {
			t.Fatalf("the fixture's row is not of format 1: %.200s", data)
		}
		r, err := record.Unmarshal([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, r)
	}
	rows.Close()
	db.Close()

	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v string
	if err := st.DB().QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(runstore.SchemaVersion) {
		t.Fatalf("schema version %q (%v), want %d", v, err, runstore.SchemaVersion)
	}
	var old, all int
	if err := st.QueryRow(`SELECT count(*) FILTER (WHERE format <> ? OR data NOT LIKE '{"format":2,%'), count(*) FROM records`,
		record.JSONFormat).Scan(&old, &all); err != nil {
		t.Fatal(err)
	}
	if old != 0 || all != len(before) || all == 0 {
		t.Errorf("%d of %d records not in format %d after the upgrade (want 0 of %d)", old, all, record.JSONFormat, len(before))
	}
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs (%v), want 1", len(runs), err)
	}
	after, err := st.Records(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	runtest.SameRecords(t, after, before)
}

// copySchema2 copies every row of the SQLite store of schema 2 at file
// into the new PostgreSQL store at url, made at schema 2.
func copySchema2(t *testing.T, file, url string) {
	t.Helper()
	src, _, err := sqlitedb.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := runstore.OpenAtVersion(url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n := 0
	for _, table := range []string{"runs", "records", "failures"} {
		rows, err := src.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		insert := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols)-1) + `)`
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			if _, err := dst.Exec(insert, vals...); err != nil {
				t.Fatalf("copy a row of %s: %v", table, err)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if n == 0 {
		t.Fatal("the fixture has no rows")
	}
}
