// Package sqlitedb opens memlab's SQLite files (the model-call cache and the
// run store) the same way: pure-Go SQLite (modernc.org/sqlite), WAL mode,
// synchronous=NORMAL, a busy timeout, write transactions that take the lock
// at BEGIN, and a versioned schema brought up to date by numbered
// migrations in one transaction.
//
// WAL with synchronous=NORMAL keeps every committed transaction across a
// crash or kill of the process (the write-ahead log is in the OS's page
// cache); only a power loss or OS crash can lose the last transactions.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// BusyTimeout is how long a statement waits for another process holding
// the file's write lock before it fails with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// Open opens (creating it and its parent directories if needed) the SQLite
// file at path with memlab's pragmas, checks that it is in WAL mode and
// returns the pool and the file's absolute path. The caller sizes the pool.
func Open(path string) (*sql.DB, string, error) {
	if path == "" {
		return nil, "", errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, "", err
	}
	db, err := sql.Open("sqlite", DSN(abs))
	if err != nil {
		return nil, "", err
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, "", err
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, "", fmt.Errorf("journal mode is %q, want wal (is the file on a network file system?)", mode)
	}
	return db, abs, nil
}

// DSN builds the driver's data source name for an absolute path: a file:
// URI (so that '?', '#' and '%' in the path are escaped, not parsed) with
// the pragmas every pooled connection runs when it is opened.
func DSN(abs string) string {
	return buildDSN(abs,
		"_pragma=busy_timeout("+strconv.FormatInt(BusyTimeout.Milliseconds(), 10)+")",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=mmap_size(268435456)",
		// Explicit transactions take the write lock at BEGIN, so a
		// transaction never has to upgrade a read lock (which fails with
		// SQLITE_BUSY without waiting when another writer got in first).
		"_txlock=immediate",
	)
}

// readDSN is the data source name of a reader of abs: the URI parameters
// params (mode=ro, immutable=1) and no pragma that writes.
func readDSN(abs string, params ...string) string {
	return buildDSN(abs, append(params,
		"_pragma=busy_timeout("+strconv.FormatInt(BusyTimeout.Milliseconds(), 10)+")")...)
}

func buildDSN(abs string, q ...string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String() + "?" + strings.Join(q, "&")
}

// Migrate brings the schema of db to len(migrations) in one write
// transaction, so two processes opening a new file at once do not both
// create it. migrations[v] upgrades a file from version v to v+1; version
// 0 is a new, empty file. The version lives in a meta(name, value) table
// under "schema_version". kind names the file in errors ("cache", "run
// store"). It returns the version the file had before.
func Migrate(ctx context.Context, db *sql.DB, kind string, migrations []string) (int, error) {
	return MigrateNamed(ctx, db, kind, "schema_version", migrations)
}

// MigrateNamed is Migrate for a set of tables that shares a file with
// others and keeps its own version under name in the meta table (e.g.
// "construct_schema_version" beside a run store's "schema_version"); a
// file with tables and no meta table is still refused.
func MigrateNamed(ctx context.Context, db *sql.DB, kind, name string, migrations []string) (int, error) {
	target := len(migrations)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var hasMeta, tables int
	err = tx.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE name = 'meta'), count(*)
		FROM sqlite_schema WHERE type = 'table'`).Scan(&hasMeta, &tables)
	if err != nil {
		return 0, err
	}
	version := 0
	if hasMeta == 0 {
		if tables > 0 {
			return 0, fmt.Errorf("not a memlab %s: the database has tables but no meta table", kind)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`); err != nil {
			return 0, err
		}
	} else {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = ?`, name).Scan(&v)
		switch {
		case errors.Is(err, sql.ErrNoRows) && name != "schema_version":
			v = "0" // tables of their own, not created yet in this file
		case err != nil:
			return 0, fmt.Errorf("read %s: %w", strings.ReplaceAll(name, "_", " "), err)
		}
		version, err = strconv.Atoi(v)
		if err != nil || version < 0 {
			return 0, fmt.Errorf("bad %s %q in meta table", strings.ReplaceAll(name, "_", " "), v)
		}
	}
	if version > target {
		return version, fmt.Errorf("schema version %d is newer than this memlab's %d: use a newer memlab or another %s file", version, target, kind)
	}
	if version == target {
		return version, nil
	}
	for v := version; v < target; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return version, fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO meta(name, value) VALUES (?, ?)
		ON CONFLICT(name) DO UPDATE SET value = excluded.value`, name, strconv.Itoa(target))
	if err != nil {
		return version, err
	}
	return version, tx.Commit()
}

// SchemaVersion reads the schema version of a memlab file (kind names it
// in errors) without writing: 0 for an empty database.
func SchemaVersion(ctx context.Context, db *sql.DB, kind string) (int, error) {
	var hasMeta, tables int
	err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE name = 'meta'), count(*)
		FROM sqlite_schema WHERE type = 'table'`).Scan(&hasMeta, &tables)
	if err != nil {
		return 0, err
	}
	if hasMeta == 0 {
		if tables > 0 {
			return 0, fmt.Errorf("not a memlab %s: the database has tables but no meta table", kind)
		}
		return 0, nil
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	version, err := strconv.Atoi(v)
	if err != nil || version < 0 {
		return 0, fmt.Errorf("bad schema version %q in meta table", v)
	}
	return version, nil
}
