package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/memlab/memlab/internal/pgdb"
	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// SchemaVersion is the version of the run store's layout. Opening an
// older file migrates it; a newer one is an error.
const SchemaVersion = 4

// migrations[v] upgrades a run store from schema version v to v+1.
var migrations = []string{
	// 0 -> 1: runs and their records.
	0: `
CREATE TABLE runs (
	id           TEXT PRIMARY KEY NOT NULL,
	label        TEXT NOT NULL,
	dataset      TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	system       TEXT NOT NULL,
	reader       TEXT NOT NULL,
	k            INTEGER NOT NULL,
	spec         TEXT NOT NULL,       -- Spec.JSON
	code_version TEXT NOT NULL,
	questions    INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,    -- unix milliseconds
	updated_at   INTEGER NOT NULL,
	owner        TEXT NOT NULL DEFAULT '', -- "host pid token" of the process running it
	heartbeat    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE records (
	run_id      TEXT NOT NULL REFERENCES runs(id),
	question_id TEXT NOT NULL,
	ord         INTEGER NOT NULL,     -- position of the question in the dataset
	failure     TEXT NOT NULL,
	latency_us  INTEGER NOT NULL,
	data        TEXT NOT NULL,        -- record.Marshal (in records.format, schema 3)
	written_at  INTEGER NOT NULL,
	PRIMARY KEY (run_id, question_id)
);
`,
	// 1 -> 2: attempts and code version per record, the history of failed attempts (kept
	// when a retry succeeds), and what each run spent.
	1: `
ALTER TABLE records ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
ALTER TABLE records ADD COLUMN code_version TEXT NOT NULL DEFAULT ''; -- of the process that wrote the record
CREATE TABLE failures (
	run_id      TEXT NOT NULL REFERENCES runs(id),
	question_id TEXT NOT NULL,
	attempt     INTEGER NOT NULL,
	failure     TEXT NOT NULL,
	at          INTEGER NOT NULL,
	code_version TEXT NOT NULL,
	PRIMARY KEY (run_id, question_id, attempt)
);
ALTER TABLE runs ADD COLUMN meter TEXT NOT NULL DEFAULT '{}';   -- retrieval.Meter, summed over sessions
ALTER TABLE runs ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0; -- times the run was started or resumed
ALTER TABLE runs ADD COLUMN run_seconds REAL NOT NULL DEFAULT 0; -- wall time summed over sessions
`,
	// 2 -> 3: the JSON format of each record's data (record.JSONFormat): 1 held the
	// scores in a judges map and a verdicts list, 2 in one scores list. Open rewrites
	// the rows of format 1 in the current format (upgradeRecords).
	2: `
ALTER TABLE records ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
`,
	// 3 -> 4: the work queue of runs that many workers do at once (queue.go):
	// how a worker rebuilds a queued run, and its work items with their claims.
	3: queueMigration,
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("runstore: migrations do not lead to SchemaVersion")
	}
}

// LeaseTimeout is how long a run's lease lasts without a heartbeat: a
// process running a run renews it every LeaseTimeout/3; another process may
// take the run over when the lease is older, or at once when the holder is
// a dead process on this host.
var LeaseTimeout = 30 * time.Second

// leasePoll is how often a waiting run checks whether the lease is free.
const leasePoll = 200 * time.Millisecond

// Store is a run store: an SQLite file (WAL) or a PostgreSQL database
// holding every run's spec and every question's record, written as each
// question completes. It is safe for use by many goroutines and by several
// processes (on several machines, on PostgreSQL).
type Store struct {
	path     string // the file's absolute path, or the URL without its password
	db       *sql.DB
	pg       bool       // PostgreSQL (dialect.go), else SQLite
	wmu      sync.Mutex // serializes this process's writes
	readOnly bool       // OpenReadOnly: every write fails
}

// DefaultPath is MEMLAB_RUNS when set (a file path, or a postgres://
// URL: see Open), else runs.db beside the model cache (llm.CachePath).
func DefaultPath() (string, error) {
	if p := os.Getenv("MEMLAB_RUNS"); p != "" {
		return p, nil
	}
	c, err := llm.CachePath()
	if err != nil {
		return "", fmt.Errorf("runstore: no run store path (set MEMLAB_RUNS): %w", err)
	}
	return filepath.Join(filepath.Dir(c), "runs.db"), nil
}

// Open opens the run store at path, creating it if needed and
// migrating an older schema. Errors name the file, and say so when it is
// corrupt or cannot be written (read-only media: see OpenReadOnly).
//
// A path that is a postgres:// or postgresql:// URL (IsURL) opens a
// PostgreSQL database instead: the same tables, schema versions and
// migrations, in the connection's current schema (the URL's search_path
// parameter chooses one; the role needs CREATE on it the first time). The
// password comes from the URL or from libpq's environment (PGPASSWORD,
// PGPASSFILE or ~/.pgpass, PGSERVICE with PGSERVICEFILE); Path and every
// error name the URL without it.
func Open(path string) (*Store, error) {
	if IsURL(path) {
		return openPostgres(path, false)
	}
	db, abs, err := sqlitedb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("runstore: open store %q: %w", path, explainStore(absOr(path), err))
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	s := &Store{path: abs, db: db}
	s.wmu.Lock()
	_, err = sqlitedb.Migrate(context.Background(), db, "run store", migrations)
	if err == nil {
		err = s.upgradeRecords(context.Background())
	}
	s.wmu.Unlock()
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("runstore: open store %q: %w", path, explainStore(abs, err))
	}
	return s, nil
}

// upgradeRecords rewrites the records stored in an older JSON format
// (records.format below record.JSONFormat) in the current one, in one
// transaction: what the code of schema 2 wrote is read by record.Unmarshal
// and written by record.Marshal, losing nothing. An interrupted upgrade
// leaves old rows, which Unmarshal still reads, for the next Open.
func (s *Store) upgradeRecords(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, s.q(`SELECT run_id, question_id, data FROM records WHERE format < ?`), record.JSONFormat)
	if err != nil {
		return fmt.Errorf("upgrade records: %w", err)
	}
	type row struct{ run, qid, data string }
	var old []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.run, &r.qid, &r.data); err != nil {
			rows.Close()
			return fmt.Errorf("upgrade records: %w", err)
		}
		old = append(old, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("upgrade records: %w", err)
	}
	if len(old) == 0 {
		return nil
	}
	for _, r := range old {
		rec, err := record.Unmarshal([]byte(r.data))
		if err != nil {
			return fmt.Errorf("upgrade record %q of run %s: %w", r.qid, r.run, err)
		}
		data, err := record.Marshal(rec)
		if err != nil {
			return fmt.Errorf("upgrade record %q of run %s: %w", r.qid, r.run, err)
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE records SET data = ?, format = ? WHERE run_id = ? AND question_id = ?`),
			string(data), record.JSONFormat, r.run, r.qid); err != nil {
			return fmt.Errorf("upgrade record %q of run %s: %w", r.qid, r.run, err)
		}
	}
	return tx.Commit()
}

// OpenReadOnly opens the existing run store at path for reading
// only, on read-only media too: nothing is created, migrated or written,
// and a write (starting a run, runs.Rejudge, Delete) fails saying the store is
// read-only. A store of an older schema must be opened once with
// Open. `memlab runs list|show|diff|export` use it.
//
// On PostgreSQL (a URL, see Open) every session of the store is read-only
// (default_transaction_read_only), so the server refuses a write too; a
// database or schema without a run store is an error wrapping
// fs.ErrNotExist.
func OpenReadOnly(path string) (*Store, error) {
	if IsURL(path) {
		return openPostgres(path, true)
	}
	db, abs, err := sqlitedb.OpenReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("runstore: open store %q read-only: %w", path, explainStore(absOr(path), err))
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	v, err := sqlitedb.SchemaVersion(context.Background(), db, "run store")
	if err == nil && v != SchemaVersion {
		err = fmt.Errorf("schema version %d, this memlab reads %d: open it once where it can be written (memlab run) to migrate it", v, SchemaVersion)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("runstore: open store %q read-only: %w", path, explainStore(abs, err))
	}
	return &Store{path: abs, db: db, readOnly: true}, nil
}

// explainStore marks a store error that says the file is corrupt or
// cannot be written, naming the file and what to do.
func explainStore(abs string, err error) error {
	if IsURL(abs) {
		return pgdb.Explain(abs, "run store", err,
			"give -store (or MEMLAB_RUNS) a database and schema the role can write, or run with -no-store")
	}
	return sqlitedb.Explain(abs, "run store", err,
		"move it aside (its runs are lost) or restore a copy, and rerun",
		"give -store a file on writable storage (or set MEMLAB_RUNS), or run with -no-store")
}

// errReadOnly is the error of a write to a store opened read-only.
func (s *Store) errReadOnly(op string) error {
	return fmt.Errorf("runstore: %s: the run store %s is open read-only (%w)", op, s.path, sqlitedb.ErrReadOnly)
}

func absOr(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// Path returns the store file's absolute path, or the PostgreSQL URL of
// the store without its password.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("runstore: close store %q: %w", s.path, err)
	}
	return nil
}

// RunInfo is one run as the store holds it.
type RunInfo struct {
	ID    string
	Label string
	Spec  record.Spec
	// CodeVersion is that of the last process that started the run (each
	// record and failed attempt also keeps the version that wrote it).
	CodeVersion string
	// Questions is the number of questions of the run; Done the records
	// completed without failure; Failed the records whose last attempt
	// failed (retried on the next start).
	Questions, Done, Failed int
	Created, Updated        time.Time
	// Meter is what the system spent, summed over the run's sessions.
	Meter retrieval.Meter
	// Sessions is how many times the run was started or resumed; Seconds
	// its wall time summed over them.
	Sessions int
	Seconds  float64
	// Owner is the process holding the run ("host pid token"), "" when
	// none; Heartbeat its last renewal.
	Owner     string
	Heartbeat time.Time
}

// Complete reports whether every question has a record without failure.
func (r RunInfo) Complete() bool { return r.Done == r.Questions }

const runColumns = `r.id, r.label, r.spec, r.code_version, r.questions, r.created_at, r.updated_at,
	r.meter, r.sessions, r.run_seconds, r.owner, r.heartbeat,
	(SELECT count(*) FROM records x WHERE x.run_id = r.id AND x.failure = ''),
	(SELECT count(*) FROM records x WHERE x.run_id = r.id AND x.failure != '')`

func scanRun(sc interface{ Scan(...any) error }) (RunInfo, error) {
	var ri RunInfo
	var spec, meter string
	var created, updated, hb int64
	err := sc.Scan(&ri.ID, &ri.Label, &spec, &ri.CodeVersion, &ri.Questions, &created, &updated,
		&meter, &ri.Sessions, &ri.Seconds, &ri.Owner, &hb, &ri.Done, &ri.Failed)
	if err != nil {
		return ri, err
	}
	if err := json.Unmarshal([]byte(spec), &ri.Spec); err != nil {
		return ri, fmt.Errorf("run %s: bad spec: %w", ri.ID, err)
	}
	if err := json.Unmarshal([]byte(meter), &ri.Meter); err != nil {
		return ri, fmt.Errorf("run %s: bad meter: %w", ri.ID, err)
	}
	ri.Created, ri.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	if hb > 0 {
		ri.Heartbeat = time.UnixMilli(hb)
	}
	return ri, nil
}

// Runs lists the store's runs, most recently updated first.
func (s *Store) Runs() ([]RunInfo, error) {
	rows, err := s.db.Query(`SELECT ` + runColumns + ` FROM runs r ORDER BY r.updated_at DESC, r.id`)
	if err != nil {
		return nil, fmt.Errorf("runstore: list runs in %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []RunInfo
	for rows.Next() {
		ri, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("runstore: list runs in %s: %w", s.path, err)
		}
		out = append(out, ri)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runstore: list runs in %s: %w", s.path, err)
	}
	return out, nil
}

// ErrNoRun is returned (wrapped) by Store.Run for an unknown run.
var ErrNoRun = errors.New("no such run")

// Run returns the run whose id is id, or the only run whose id starts with
// id (at least 4 characters), or whose label is id.
func (s *Store) Run(id string) (RunInfo, error) {
	id = strings.TrimSpace(id)
	var rows *sql.Rows
	var err error
	if len(id) >= 4 {
		rows, err = s.db.Query(s.q(`SELECT `+runColumns+` FROM runs r WHERE r.id = ? OR substr(r.id, 1, ?) = ? OR r.label = ?
			ORDER BY r.id = ? DESC, r.updated_at DESC`), id, utf8.RuneCountInString(id), id, id, id)
	} else {
		rows, err = s.db.Query(s.q(`SELECT `+runColumns+` FROM runs r WHERE r.id = ? OR r.label = ? ORDER BY r.id = ? DESC, r.updated_at DESC`), id, id, id)
	}
	if err != nil {
		return RunInfo{}, fmt.Errorf("runstore: find run %q in %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var found []RunInfo
	for rows.Next() {
		ri, err := scanRun(rows)
		if err != nil {
			return RunInfo{}, fmt.Errorf("runstore: find run %q in %s: %w", id, s.path, err)
		}
		if ri.ID == id {
			return ri, nil
		}
		found = append(found, ri)
	}
	if err := rows.Err(); err != nil {
		return RunInfo{}, fmt.Errorf("runstore: find run %q in %s: %w", id, s.path, err)
	}
	switch len(found) {
	case 0:
		return RunInfo{}, fmt.Errorf("runstore: run %q in %s: %w", id, s.path, ErrNoRun)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.ID + " (" + f.Label + ")"
	}
	return RunInfo{}, fmt.Errorf("runstore: %q is ambiguous in %s: %s", id, s.path, strings.Join(ids, ", "))
}

// Records returns the stored records of run id (an exact id: see Run to
// resolve a prefix or label), failed ones included, in dataset order.
func (s *Store) Records(id string) ([]record.Record, error) {
	rows, err := s.db.Query(s.q(`SELECT question_id, data FROM records WHERE run_id = ? ORDER BY ord, question_id`), id)
	if err != nil {
		return nil, fmt.Errorf("runstore: records of %s in %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var qids []string
	var datas [][]byte
	for rows.Next() {
		var qid string
		var data []byte
		if err := rows.Scan(&qid, &data); err != nil {
			return nil, fmt.Errorf("runstore: records of %s in %s: %w", id, s.path, err)
		}
		qids, datas = append(qids, qid), append(datas, data)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runstore: records of %s in %s: %w", id, s.path, err)
	}
	out, i, err := decodeRecords(datas)
	if err != nil {
		return nil, fmt.Errorf("runstore: record %q of run %s in %s: %w", qids[i], id, s.path, err)
	}
	return out, nil
}

// decodeRecords decodes records on every core (decoding, not the
// database, is most of what loading a run costs); on an error, i is the first bad one.
func decodeRecords(datas [][]byte) (out []record.Record, i int, err error) {
	out = make([]record.Record, len(datas))
	errs := make([]error, len(datas))
	workers := min(runtime.GOMAXPROCS(0), len(datas)/64+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(datas); j += workers {
				out[j], errs[j] = record.Unmarshal(datas[j])
			}
		}()
	}
	wg.Wait()
	for j, e := range errs {
		if e != nil {
			return nil, j, e
		}
	}
	return out, 0, nil
}

// Attempt is one failed attempt at a question, kept when a later attempt
// succeeds.
type Attempt struct {
	QuestionID  string
	Attempt     int
	Failure     string
	At          time.Time
	CodeVersion string
}

// Failures returns every failed attempt of run id (an exact id), by
// question and attempt.
func (s *Store) Failures(id string) ([]Attempt, error) {
	rows, err := s.db.Query(s.q(`SELECT question_id, attempt, failure, at, code_version FROM failures
		WHERE run_id = ? ORDER BY question_id, attempt`), id)
	if err != nil {
		return nil, fmt.Errorf("runstore: failures of %s in %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var a Attempt
		var at int64
		if err := rows.Scan(&a.QuestionID, &a.Attempt, &a.Failure, &at, &a.CodeVersion); err != nil {
			return nil, fmt.Errorf("runstore: failures of %s in %s: %w", id, s.path, err)
		}
		a.At = time.UnixMilli(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runstore: failures of %s in %s: %w", id, s.path, err)
	}
	return out, nil
}

// Delete removes run id and its records.
func (s *Store) Delete(id string) error {
	if s.readOnly {
		return s.errReadOnly("delete " + id)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(context.Background(), s.txOptions())
	if err != nil {
		return fmt.Errorf("runstore: delete %s from %s: %w", id, s.path, err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM records WHERE run_id = ?`, `DELETE FROM failures WHERE run_id = ?`,
		`DELETE FROM work WHERE run_id = ?`, `DELETE FROM jobs WHERE run_id = ?`, `DELETE FROM runs WHERE id = ?`} {
		if _, err := tx.Exec(s.q(q), id); err != nil {
			return fmt.Errorf("runstore: delete %s from %s: %w", id, s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("runstore: delete %s from %s: %w", id, s.path, err)
	}
	return nil
}

// ErrRunBusy is returned (wrapped) when another live process holds the
// run's lease.
var ErrRunBusy = errors.New("run is being executed by another process")

// Lease is a process's hold on one run (Begin): while it is held, no
// other live process can run the run; Release ends it.
type Lease struct {
	s     *Store
	id    string
	owner string
	stop  chan struct{}
	done  chan struct{}
}

var hostname = func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.ReplaceAll(h, " ", "_")
}()

// newOwner returns "host pid token" for this process.
func newOwner() string {
	return fmt.Sprintf("%s %d %x", hostname, os.Getpid(), time.Now().UnixNano())
}

// holderAlive reports whether owner, which renewed its lease at hb, still
// holds it: its heartbeat is fresh and, when it runs on this host, its
// process exists.
func holderAlive(owner string, hb time.Time, now time.Time) bool {
	if owner == "" || now.Sub(hb) > LeaseTimeout {
		return false
	}
	f := strings.Fields(owner)
	if len(f) >= 2 && f[0] == hostname {
		pid, err := strconv.Atoi(f[1])
		if err == nil && pid > 0 {
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				return false
			}
		}
	}
	return true
}

// Begin records spec as run spec.ID() (when new; a run stored under the
// config's legacy id, record.Spec.LegacyID, is re-keyed to spec.ID() and
// resumed), checks that a stored run of that id has the same spec, and
// takes its lease, renewed in the
// background until Release. Another live process holding the lease makes
// it fail with ErrRunBusy or, with wait, wait for it (until ctx ends).
// Label names the run in listings (the latest start sets it).
func (s *Store) Begin(ctx context.Context, spec record.Spec, label string, wait bool) (*Lease, error) {
	id := spec.ID()
	if s.readOnly {
		return nil, s.errReadOnly("start run " + id)
	}
	owner := newOwner()
	for {
		err := s.tryBegin(ctx, id, spec, label, owner)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrRunBusy) || !wait {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (stopped waiting: %w)", err, ctx.Err())
		case <-time.After(leasePoll):
		}
	}
	l := &Lease{s: s, id: id, owner: owner, stop: make(chan struct{}), done: make(chan struct{})}
	go l.renew()
	return l, nil
}

func (s *Store) tryBegin(ctx context.Context, id string, spec record.Spec, label, owner string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fmt.Errorf("runstore: start run %s in %s: %w", id, s.path, explainStore(s.path, err))
	}
	defer tx.Rollback()
	// On PostgreSQL, the transactions starting this run take turns (the
	// run's row may not exist yet), and the row is locked against a
	// holder's heartbeat or release while its lease is judged.
	if err := s.lockRun(ctx, tx, id); err != nil {
		return fmt.Errorf("runstore: start run %s in %s: lock: %w", id, s.path, explainStore(s.path, err))
	}
	now, err := s.now(ctx, tx)
	if err != nil {
		return fmt.Errorf("runstore: start run %s in %s: read the clock: %w", id, s.path, err)
	}
	stored, holder, hb, err := s.runRow(ctx, tx, id, spec)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO runs (id, label, dataset, fingerprint, system, reader, k, spec, code_version,
			questions, created_at, updated_at, owner, heartbeat, sessions) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)`),
			id, s.text(label), spec.Dataset, spec.Fingerprint, spec.System, spec.Reader, spec.K, spec.JSON(), record.CodeVersion(),
			spec.Questions, now.UnixMilli(), now.UnixMilli(), owner, now.UnixMilli())
	case err != nil:
	default:
		if stored != spec.JSON() {
			return fmt.Errorf("runstore: run %s in %s has another spec (%s) than this config (%s): the store is inconsistent; delete the run",
				id, s.path, stored, spec.JSON())
		}
		if holderAlive(holder, time.UnixMilli(hb), now) {
			return fmt.Errorf("runstore: run %s (%s) in %s: %w: %s, lease renewed %s ago; wait for it to finish or stop it",
				id, label, s.path, ErrRunBusy, describeOwner(holder), now.Sub(time.UnixMilli(hb)).Round(time.Second))
		}
		// Workers of the queue (Enqueue) claim under the same lock.
		n, cerr := s.liveClaims(ctx, tx, id, now)
		if cerr != nil {
			return fmt.Errorf("runstore: start run %s in %s: %w", id, s.path, explainStore(s.path, cerr))
		}
		if n > 0 {
			return fmt.Errorf("runstore: run %s (%s) in %s: %w: workers of its queue hold %d of its work items; let them finish (memlab worker) or stop them",
				id, label, s.path, ErrRunBusy, n)
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET owner = ?, heartbeat = ?, updated_at = ?, code_version = ?, label = ?,
			sessions = sessions + 1 WHERE id = ?`), owner, now.UnixMilli(), now.UnixMilli(), record.CodeVersion(), s.text(label), id)
	}
	if err != nil {
		return fmt.Errorf("runstore: start run %s in %s: %w", id, s.path, explainStore(s.path, err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("runstore: start run %s in %s: %w", id, s.path, explainStore(s.path, err))
	}
	return nil
}

func describeOwner(owner string) string {
	f := strings.Fields(owner)
	if len(f) >= 2 {
		return "process " + f[1] + " on " + f[0]
	}
	return owner
}

// renew refreshes the lease until release.
func (l *Lease) renew() {
	defer close(l.done)
	t := time.NewTicker(LeaseTimeout / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.heartbeat()
		}
	}
}

// heartbeat renews the lease (an error is left for the next beat: the
// lease lasts LeaseTimeout).
func (l *Lease) heartbeat() {
	ctx, cancel := context.WithTimeout(context.Background(), LeaseTimeout/3)
	defer cancel()
	l.s.wmu.Lock()
	defer l.s.wmu.Unlock()
	now, err := l.s.now(ctx, l.s.db)
	if err == nil {
		_, _ = l.s.db.ExecContext(ctx, l.s.q(`UPDATE runs SET heartbeat = ? WHERE id = ? AND owner = ?`), now.UnixMilli(), l.id, l.owner)
	}
}

// Release ends the lease and adds the session's spending (m, the system's
// meter, and its wall time) to the run.
func (l *Lease) Release(m retrieval.Meter, elapsed time.Duration) error {
	close(l.stop)
	<-l.done
	l.s.wmu.Lock()
	defer l.s.wmu.Unlock()
	ctx := context.Background()
	tx, err := l.s.db.BeginTx(ctx, l.s.txOptions())
	if err != nil {
		return fmt.Errorf("runstore: finish run %s in %s: %w", l.id, l.s.path, err)
	}
	defer tx.Rollback()
	var owner string
	if err := tx.QueryRowContext(ctx, l.s.q(`SELECT owner FROM runs WHERE id = ?`+l.s.forUpdate()), l.id).Scan(&owner); err != nil {
		return fmt.Errorf("runstore: finish run %s in %s: %w", l.id, l.s.path, err)
	}
	// A lease taken over meanwhile keeps the new holder's: the spending
	// is still this session's.
	if err := l.s.addSpend(ctx, tx, l.id, m, elapsed, 0); err != nil {
		return err
	}
	if owner == l.owner {
		if _, err := tx.ExecContext(ctx, l.s.q(`UPDATE runs SET owner = '', heartbeat = 0 WHERE id = ?`), l.id); err != nil {
			return fmt.Errorf("runstore: finish run %s in %s: %w", l.id, l.s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("runstore: finish run %s in %s: %w", l.id, l.s.path, err)
	}
	return nil
}

// Stored is what a run already has: its records by question id, failed
// ones included, and the attempts made at each.
type Stored struct {
	Records  map[string]record.Record
	Attempts map[string]int
}

// Load returns what run id (an exact id) has in the store, to resume it.
func (s *Store) Load(ctx context.Context, id string) (Stored, error) {
	st := Stored{Records: map[string]record.Record{}, Attempts: map[string]int{}}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT question_id, attempts, data FROM records WHERE run_id = ?`), id)
	if err != nil {
		return st, fmt.Errorf("runstore: load run %s from %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var qids []string
	var datas [][]byte
	for rows.Next() {
		var qid string
		var attempts int
		var data []byte
		if err := rows.Scan(&qid, &attempts, &data); err != nil {
			return st, fmt.Errorf("runstore: load run %s from %s: %w", id, s.path, err)
		}
		st.Attempts[qid] = attempts
		qids, datas = append(qids, qid), append(datas, data)
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("runstore: load run %s from %s: %w", id, s.path, err)
	}
	recs, i, err := decodeRecords(datas)
	if err != nil {
		return st, fmt.Errorf("runstore: load run %s from %s: record %q: %w", id, s.path, qids[i], err)
	}
	for j, r := range recs {
		st.Records[qids[j]] = r
	}
	return st, nil
}

// Put writes rec as the attempt-th attempt at its question of run id (ord
// = the question's place in the dataset), in one transaction; a failed
// attempt is also added to the failures history. The run must have been
// begun (Begin; Lease.Put checks that the lease still holds, Claim.Put
// that a work item's claim does).
func (s *Store) Put(ctx context.Context, id string, ord, attempt int, rec record.Record) error {
	return s.put(ctx, id, ord, attempt, rec, nil)
}

// put is Put with check, when not nil, run first in the transaction: an
// error it returns writes nothing.
func (s *Store) put(ctx context.Context, id string, ord, attempt int, rec record.Record, check func(context.Context, *sql.Tx) error) error {
	if s.readOnly {
		return s.errReadOnly("write record " + rec.QuestionID)
	}
	data, err := record.Marshal(rec)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, s.txOptions())
	if err != nil {
		return fmt.Errorf("runstore: write record %q of run %s to %s: %w", rec.QuestionID, id, s.path, explainStore(s.path, err))
	}
	defer tx.Rollback()
	if check != nil {
		err = check(ctx, tx)
	}
	now := time.Now().UnixMilli()
	if err == nil {
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO records (run_id, question_id, ord, failure, latency_us, data, written_at, attempts, code_version, format)
		VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(run_id, question_id) DO UPDATE SET ord = excluded.ord, failure = excluded.failure,
		latency_us = excluded.latency_us, data = excluded.data, written_at = excluded.written_at, attempts = excluded.attempts,
		code_version = excluded.code_version, format = excluded.format`),
			id, rec.QuestionID, ord, s.text(rec.Failure), rec.Latency.Microseconds(), string(data), now, attempt, record.CodeVersion(), record.JSONFormat)
	}
	if err == nil && rec.Failure != "" {
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO failures (run_id, question_id, attempt, failure, at, code_version)
			VALUES (?,?,?,?,?,?) ON CONFLICT(run_id, question_id, attempt) DO UPDATE SET failure = excluded.failure,
			at = excluded.at, code_version = excluded.code_version`), id, rec.QuestionID, attempt, s.text(rec.Failure), now, record.CodeVersion())
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("runstore: write record %q of run %s to %s: %w", rec.QuestionID, id, s.path, explainStore(s.path, err))
	}
	return nil
}

// ErrLeaseLost is returned (wrapped) by Lease.Put when the run's lease is
// no longer the process's: it stopped renewing it for longer than
// LeaseTimeout (a machine asleep, a store out of reach) and another
// process took the run over. Nothing is written then.
var ErrLeaseLost = errors.New("the run's lease was lost to another process")

// Put writes rec as Store.Put does, in the transaction that checks that
// the lease still holds: a lease another process took over writes
// nothing and returns ErrLeaseLost.
func (l *Lease) Put(ctx context.Context, ord, attempt int, rec record.Record) error {
	return l.s.put(ctx, l.id, ord, attempt, rec, func(ctx context.Context, tx *sql.Tx) error {
		var owner string
		err := tx.QueryRowContext(ctx, l.s.q(`SELECT owner FROM runs WHERE id = ?`+l.s.forUpdate()), l.id).Scan(&owner)
		if err == nil && owner != l.owner {
			held := "nobody"
			if owner != "" {
				held = describeOwner(owner)
			}
			err = fmt.Errorf("run %s (the lease of %s) is now held by %s: %w", l.id, describeOwner(l.owner), held, ErrLeaseLost)
		}
		return err
	})
}

// Rewrite replaces the data of a stored record of run id (a rejudge),
// keeping its attempts; the record must be there.
func (s *Store) Rewrite(ctx context.Context, id string, ord int, rec record.Record) error {
	if s.readOnly {
		return s.errReadOnly("rewrite record " + rec.QuestionID)
	}
	data, err := record.Marshal(rec)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE records SET data = ?, format = ?, ord = ?, written_at = ? WHERE run_id = ? AND question_id = ?`),
		string(data), record.JSONFormat, ord, time.Now().UnixMilli(), id, rec.QuestionID)
	if err == nil {
		if n, _ := res.RowsAffected(); n != 1 {
			err = fmt.Errorf("no stored record")
		}
	}
	if err != nil {
		return fmt.Errorf("runstore: rejudge: write record %q of run %s to %s: %w", rec.QuestionID, id, s.path, err)
	}
	return nil
}

// runRow reads run id's row in tx, locked for update on PostgreSQL: its
// stored spec, its lease holder and the holder's last heartbeat. A run
// stored under spec's legacy id is this run and is adopted first. No row:
// sql.ErrNoRows. Begin and Enqueue both start from it.
func (s *Store) runRow(ctx context.Context, tx *sql.Tx, id string, spec record.Spec) (stored, holder string, hb int64, err error) {
	selectRun := s.q(`SELECT spec, owner, heartbeat FROM runs WHERE id = ?` + s.forUpdate())
	err = tx.QueryRowContext(ctx, selectRun, id).Scan(&stored, &holder, &hb)
	if !errors.Is(err, sql.ErrNoRows) {
		return stored, holder, hb, err
	}
	adopted, err := s.adoptLegacy(ctx, tx, id, spec)
	if err != nil {
		return "", "", 0, err
	}
	if !adopted {
		return "", "", 0, sql.ErrNoRows
	}
	err = tx.QueryRowContext(ctx, selectRun, id).Scan(&stored, &holder, &hb)
	return stored, holder, hb, err
}
