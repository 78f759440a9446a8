package runstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/internal/pgdb"
)

// IsURL reports whether path names a PostgreSQL run store
// (postgres://... or postgresql://...) rather than an SQLite file. Open and
// OpenReadOnly choose the back end by it.
func IsURL(path string) bool { return pgdb.IsURL(path) }

// RedactPath returns path as a store's Path would name it, fit to print:
// a PostgreSQL URL without its password, a file path as it is.
func RedactPath(path string) string {
	if IsURL(path) {
		return pgdb.Redact(path)
	}
	return path
}

// pgMigrations[v] upgrades a PostgreSQL run store from schema version v to
// v+1: the tables, columns and versions of the SQLite migrations, in
// PostgreSQL's types (BIGINT for unix milliseconds and microseconds,
// DOUBLE PRECISION for seconds), with ids compared byte by byte (COLLATE
// "C", as SQLite does) and the references to runs enforced at commit
// (Begin's adoption of a legacy run re-keys the run before its records).
var pgMigrations = []string{
	0: `
CREATE TABLE runs (
	id           TEXT COLLATE "C" PRIMARY KEY NOT NULL,
	label        TEXT NOT NULL,
	dataset      TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	system       TEXT NOT NULL,
	reader       TEXT NOT NULL,
	k            INTEGER NOT NULL,
	spec         TEXT NOT NULL,       -- Spec.JSON
	code_version TEXT NOT NULL,
	questions    INTEGER NOT NULL,
	created_at   BIGINT NOT NULL,     -- unix milliseconds
	updated_at   BIGINT NOT NULL,
	owner        TEXT NOT NULL DEFAULT '', -- "host pid token" of the process running it
	heartbeat    BIGINT NOT NULL DEFAULT 0 -- unix milliseconds of the server's clock
);
CREATE TABLE records (
	run_id      TEXT COLLATE "C" NOT NULL REFERENCES runs(id) DEFERRABLE INITIALLY DEFERRED,
	question_id TEXT COLLATE "C" NOT NULL,
	ord         INTEGER NOT NULL,     -- position of the question in the dataset
	failure     TEXT NOT NULL,
	latency_us  BIGINT NOT NULL,
	data        TEXT NOT NULL,        -- record.Marshal (in records.format, schema 3)
	written_at  BIGINT NOT NULL,
	PRIMARY KEY (run_id, question_id)
);
`,
	1: `
ALTER TABLE records ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
ALTER TABLE records ADD COLUMN code_version TEXT NOT NULL DEFAULT ''; -- of the process that wrote the record
CREATE TABLE failures (
	run_id       TEXT COLLATE "C" NOT NULL REFERENCES runs(id) DEFERRABLE INITIALLY DEFERRED,
	question_id  TEXT COLLATE "C" NOT NULL,
	attempt      INTEGER NOT NULL,
	failure      TEXT NOT NULL,
	at           BIGINT NOT NULL,
	code_version TEXT NOT NULL,
	PRIMARY KEY (run_id, question_id, attempt)
);
ALTER TABLE runs ADD COLUMN meter TEXT NOT NULL DEFAULT '{}';   -- retrieval.Meter, summed over sessions
ALTER TABLE runs ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0; -- times the run was started or resumed
ALTER TABLE runs ADD COLUMN run_seconds DOUBLE PRECISION NOT NULL DEFAULT 0; -- wall time summed over sessions
`,
	2: `
ALTER TABLE records ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
`,
	3: pgQueueMigration,
}

// pgTables are the run store's tables, meta included.
var pgTables = []string{"meta", "runs", "records", "failures", "jobs", "work"}

func init() {
	if len(pgMigrations) != SchemaVersion {
		panic("runstore: PostgreSQL migrations do not lead to SchemaVersion")
	}
}

// rebound caches the PostgreSQL form of each query text (pgdb.Rebind).
var rebound sync.Map

// q returns query in the store's dialect: SQLite's ? placeholders, or
// PostgreSQL's $1, $2, ...
func (s *Store) q(query string) string {
	if !s.pg {
		return query
	}
	if r, ok := rebound.Load(query); ok {
		return r.(string)
	}
	r := pgdb.Rebind(query)
	rebound.Store(query, r)
	return r
}

// txOptions are the options of a write transaction: SQLite's (the write
// lock is taken at BEGIN, sqlitedb.DSN), or read committed on PostgreSQL
// whatever the database's default, so that a statement after a lock sees
// what the lock protects (pgdb.ReadCommitted).
func (s *Store) txOptions() *sql.TxOptions {
	if s.pg {
		return pgdb.ReadCommitted
	}
	return nil
}

// forUpdate is the locking clause of a read of a row a transaction then
// writes: SQLite's write transactions hold the file's write lock already.
func (s *Store) forUpdate() string {
	if s.pg {
		return " FOR UPDATE"
	}
	return ""
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// lockRun serializes, on PostgreSQL, the transactions that start run id
// (the row may not exist yet, so a row lock cannot): an advisory lock held
// until the transaction ends. SQLite's write lock already does.
func (s *Store) lockRun(ctx context.Context, tx queryer, id string) error {
	if !s.pg {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('memlab run ' || $1, 0))`, id)
	return err
}

// now is the lease clock: this machine's on SQLite, the server's on
// PostgreSQL, whose leases are taken and renewed by processes on several
// machines whose clocks may disagree.
func (s *Store) now(ctx context.Context, q queryer) (time.Time, error) {
	if !s.pg {
		return time.Now(), nil
	}
	var ms int64
	if err := q.QueryRowContext(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&ms); err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms), nil
}

// text makes s storable in a PostgreSQL text column, which takes neither
// NUL bytes nor invalid UTF-8: both become U+FFFD. (A record's data is
// JSON, which escapes them; failures and labels are stored as they are.)
func (s *Store) text(v string) string {
	if !s.pg {
		return v
	}
	return strings.ToValidUTF8(strings.ReplaceAll(v, "\x00", "\uFFFD"), "\uFFFD")
}

// runIDTables lists the tables other than runs that have a run_id column.
func (s *Store) runIDTables(ctx context.Context, tx *sql.Tx) ([]string, error) {
	query := `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND m.name != 'runs' AND c.name = 'run_id' ORDER BY m.name`
	if s.pg {
		query = `SELECT table_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND column_name = 'run_id' AND table_name <> 'runs' ORDER BY table_name`
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, rows.Err()
}

// openPostgres opens the PostgreSQL run store of url (Open, OpenReadOnly).
func openPostgres(url string, readOnly bool) (*Store, error) {
	ctx := context.Background()
	how := ""
	if readOnly {
		how = " read-only"
	}
	db, name, err := pgdb.Open(ctx, url, readOnly)
	if err != nil {
		return nil, fmt.Errorf("runstore: open store %s%s: %w", name, how, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(time.Minute) // a shared server's connections are not kept idle
	s := &Store{path: name, db: db, pg: true, readOnly: readOnly}
	if readOnly {
		var v int
		v, err = pgdb.SchemaVersion(ctx, db, "run store", "meta", pgTables)
		switch {
		case err == nil && v == 0:
			err = fmt.Errorf("no run store in this database's schema (it has no meta table; memlab run -store URL creates one): %w", fs.ErrNotExist)
		case err == nil && v != SchemaVersion:
			err = fmt.Errorf("schema version %d, this memlab reads %d: open it once where it can be written (memlab run) to migrate it", v, SchemaVersion)
		}
	} else {
		s.wmu.Lock()
		_, err = pgdb.Migrate(ctx, db, "run store", "meta", pgTables, pgMigrations)
		if err == nil {
			err = s.upgradeRecords(ctx)
		}
		s.wmu.Unlock()
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("runstore: open store %s%s: %w", name, how, explainStore(name, err))
	}
	return s, nil
}
