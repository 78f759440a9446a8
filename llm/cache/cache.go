package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/internal/pgdb"
	"github.com/memlab/memlab/internal/sqlitedb"
)

// SchemaVersion is the version of the file layout this package writes.
// Opening a file with a higher version is an error.
const SchemaVersion = 1

// BusyTimeout is how long a statement waits for another process holding
// the file's write lock before it fails with SQLITE_BUSY.
const BusyTimeout = sqlitedb.BusyTimeout

// readConns is the size of the connection pool. Reads use any connection in
// parallel (WAL readers do not block each other nor the writer); writes are
// serialized by Cache.wsem before they reach the pool.
const readConns = 8

// ErrCorrupt marks (errors.Is) the errors of a cache file that is damaged
// ("database disk image is malformed"): the message names the file and
// says to run `memlab cache clear`. ErrReadOnly marks those of a cache
// that cannot be written (read-only media, no permission, OpenReadOnly).
// Neither is a model failure, and no retry mends them.
var (
	ErrCorrupt  = sqlitedb.ErrCorrupt
	ErrReadOnly = sqlitedb.ErrReadOnly
)

// explain marks err with ErrCorrupt or ErrReadOnly when that is its cause,
// naming the file and saying what to do.
func explain(path string, err error) error {
	if pgdb.IsURL(path) {
		return pgdb.Explain(path, "model-call cache", err,
			"set MEMLAB_CACHE (or -path) to a database and schema the role can write")
	}
	return sqlitedb.Explain(path, "model-call cache", err,
		fmt.Sprintf("run `memlab cache clear -path %s` (or delete the file) and rerun; the calls it held are made again", path),
		"set MEMLAB_CACHE (or -path) to a file on writable storage")
}

// Cache is an open cache file (or PostgreSQL database, see Open). It is
// safe for use by many goroutines; Close it when done (after every Do has
// returned).
type Cache struct {
	path     string // the file's absolute path, or the URL without its password
	db       *sql.DB
	pg       bool // PostgreSQL, else SQLite
	readOnly bool // OpenReadOnly: nothing is written, hits are not counted
	// wsem serializes this process's writes, so that its goroutines queue
	// in Go instead of in SQLite's busy handler (which sleeps and can give
	// up). Other processes are still handled by the busy timeout.
	wsem  chan struct{}
	stmts stmts
	hits  hitCounter

	mu    sync.Mutex
	calls map[string]*call // in-flight fills of Do, by key
}

// Open opens the cache file at path, creating it and its parent
// directories if needed, and brings its schema up to date. The file is in
// WAL mode with synchronous=NORMAL (see the package documentation for what
// that guarantees). Errors name the file.
//
// A path that is a postgres:// or postgresql:// URL opens the cache in
// that PostgreSQL database instead, in the tables cache_meta and
// cache_entries of the connection's current schema (so that it can share
// a database and schema with a run store): the same keys, entries and
// coalescing of calls in flight, and every committed Put is on the
// server's disk (PostgreSQL's default synchronous_commit). The password
// comes from the URL or from libpq's environment (PGPASSWORD, PGPASSFILE
// or ~/.pgpass, PGSERVICE with PGSERVICEFILE); Path and every error name
// the URL without it.
func Open(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("cache: open: empty path")
	}
	if pgdb.IsURL(path) {
		return openPostgres(path, false)
	}
	db, abs, err := sqlitedb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cache: open %q: %w", path, explain(absPath(path), err))
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	c := &Cache{path: abs, db: db, wsem: make(chan struct{}, 1), calls: map[string]*call{}}
	c.hits.pending = map[string]int64{}
	err = c.init(context.Background())
	if err == nil {
		err = c.prepare(context.Background())
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cache: open %q: %w", path, explain(abs, err))
	}
	return c, nil
}

// OpenReadOnly opens the existing cache file at path for reading only, on
// read-only media too: nothing is created, migrated or written (Get does
// not count hits; Put, Do's fills and Clear fail with ErrReadOnly). It is
// what `memlab cache stats` uses. On PostgreSQL every session is
// read-only, and a database (or schema) without a cache is an error
// wrapping fs.ErrNotExist.
func OpenReadOnly(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("cache: open: empty path")
	}
	if pgdb.IsURL(path) {
		return openPostgres(path, true)
	}
	db, abs, err := sqlitedb.OpenReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("cache: open %q read-only: %w", path, explain(absPath(path), err))
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	c := &Cache{path: abs, db: db, readOnly: true, wsem: make(chan struct{}, 1), calls: map[string]*call{}}
	c.hits.pending = map[string]int64{}
	v, err := sqlitedb.SchemaVersion(context.Background(), db, "cache")
	if err == nil && v != SchemaVersion {
		err = fmt.Errorf("schema version %d, this memlab's is %d: open it once with a memlab that can write it", v, SchemaVersion)
	}
	if err == nil {
		err = c.prepare(context.Background())
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cache: open %q read-only: %w", path, explain(abs, err))
	}
	return c, nil
}

// IsURL reports whether path names a PostgreSQL database (a postgres://
// or postgresql:// URL) rather than a cache file: Open and OpenReadOnly
// choose the back end by it.
func IsURL(path string) bool { return pgdb.IsURL(path) }

// absPath is path made absolute, or path when that fails.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// errReadOnly is the error of a write to a cache opened read-only.
func (c *Cache) errReadOnly(op string) error {
	return fmt.Errorf("cache: %s: the model-call cache file %s is open read-only (%w)", op, c.path, ErrReadOnly)
}

// Path returns the absolute path of the cache file, or the PostgreSQL
// URL of the cache without its password.
func (c *Cache) Path() string { return c.path }

// Close writes the pending hit counts and closes the file. The last
// connection to close checkpoints the write-ahead log into the file and
// removes it. Close does not wait for fills started by Do; calls made after
// Close return errors.
func (c *Cache) Close() error {
	ferr := explain(c.path, c.flushHits(context.Background()))
	if err := c.db.Close(); err != nil {
		return fmt.Errorf("cache: close %q: %w", c.path, err)
	}
	return ferr
}

// migrations[v] upgrades a file from schema version v to v+1; version 0 is
// a new, empty file.
var migrations = []string{
	0: `
CREATE TABLE entries (
	key               TEXT PRIMARY KEY NOT NULL,
	kind              TEXT NOT NULL,
	model             TEXT NOT NULL,
	endpoint          TEXT NOT NULL,
	request           BLOB NOT NULL,
	response          BLOB NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	latency_us        INTEGER NOT NULL,
	created_at        INTEGER NOT NULL, -- unix milliseconds
	hits              INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_created_at ON entries(created_at);
`,
}

// pgMigrations[v] upgrades a PostgreSQL cache from schema version v to
// v+1: the SQLite schema in PostgreSQL's types, its tables named with
// cache_ so that a run store can share the schema.
var pgMigrations = []string{
	0: `
CREATE TABLE cache_entries (
	key               TEXT COLLATE "C" PRIMARY KEY NOT NULL,
	kind              TEXT NOT NULL,
	model             TEXT NOT NULL,
	endpoint          TEXT NOT NULL,
	request           BYTEA NOT NULL,
	response          BYTEA NOT NULL,
	prompt_tokens     BIGINT NOT NULL,
	completion_tokens BIGINT NOT NULL,
	latency_us        BIGINT NOT NULL,
	created_at        BIGINT NOT NULL, -- unix milliseconds
	hits              BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX cache_entries_created_at ON cache_entries(created_at);
`,
}

// pgMeta and pgTables are the PostgreSQL cache's version table and its
// tables.
const pgMeta = "cache_meta"

var pgTables = []string{pgMeta, "cache_entries"}

func init() {
	if len(migrations) != SchemaVersion || len(pgMigrations) != SchemaVersion {
		panic("cache: migrations do not lead to SchemaVersion")
	}
}

// openPostgres opens the cache in the PostgreSQL database of url (Open,
// OpenReadOnly).
func openPostgres(url string, readOnly bool) (*Cache, error) {
	ctx := context.Background()
	how := ""
	if readOnly {
		how = " read-only"
	}
	db, name, err := pgdb.Open(ctx, url, readOnly)
	if err != nil {
		return nil, fmt.Errorf("cache: open %s%s: %w", name, how, err)
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	db.SetConnMaxIdleTime(time.Minute) // a shared server's connections are not kept idle
	c := &Cache{path: name, db: db, pg: true, readOnly: readOnly, wsem: make(chan struct{}, 1), calls: map[string]*call{}}
	c.hits.pending = map[string]int64{}
	if readOnly {
		var v int
		v, err = pgdb.SchemaVersion(ctx, db, "cache", pgMeta, pgTables)
		switch {
		case err == nil && v == 0:
			err = fmt.Errorf("no model-call cache in this database's schema yet (no %s table): %w", pgMeta, fs.ErrNotExist)
		case err == nil && v != SchemaVersion:
			err = fmt.Errorf("schema version %d, this memlab's is %d: open it once with a memlab that can write it", v, SchemaVersion)
		}
	} else {
		err = c.init(ctx)
	}
	if err == nil {
		err = c.prepare(ctx)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cache: open %s%s: %w", name, how, explain(name, err))
	}
	return c, nil
}

// sql returns query in the cache's dialect: {entries} becomes the table of
// entries (entries, or cache_entries on PostgreSQL) and, on PostgreSQL, the
// ? placeholders $1, $2, ...
func (c *Cache) sql(query string) string {
	if !c.pg {
		return strings.ReplaceAll(query, "{entries}", "entries")
	}
	return pgdb.Rebind(strings.ReplaceAll(query, "{entries}", "cache_entries"))
}

// init brings the schema to SchemaVersion (sqlitedb.Migrate) holding this
// process's write slot.
func (c *Cache) init(ctx context.Context) error {
	c.wsem <- struct{}{}
	defer func() { <-c.wsem }()
	var err error
	if c.pg {
		_, err = pgdb.Migrate(ctx, c.db, "cache", pgMeta, pgTables, pgMigrations)
	} else {
		_, err = sqlitedb.Migrate(ctx, c.db, "cache", migrations)
	}
	return err
}

// lockWrite takes this process's write slot, or fails when ctx ends first.
func (c *Cache) lockWrite(ctx context.Context) error {
	select {
	case c.wsem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cache) unlockWrite() { <-c.wsem }
