package cache

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
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// SchemaVersion is the version of the file layout this package writes.
// Opening a file with a higher version is an error.
const SchemaVersion = 1

// BusyTimeout is how long a statement waits for another process holding
// the file's write lock before it fails with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// readConns is the size of the connection pool. Reads use any connection in
// parallel (WAL readers do not block each other nor the writer); writes are
// serialized by Cache.wsem before they reach the pool.
const readConns = 8

// Cache is an open cache file. It is safe for use by many goroutines; Close
// it when done (after every Do has returned).
type Cache struct {
	path string
	db   *sql.DB
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
func Open(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("cache: open: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cache: open %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("cache: open %q: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("cache: open %q: %w", path, err)
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
		return nil, fmt.Errorf("cache: open %q: %w", path, err)
	}
	return c, nil
}

// dsn builds the driver's data source name for an absolute path: a file:
// URI (so that '?', '#' and '%' in the path are escaped, not parsed) with
// the pragmas every pooled connection runs when it is opened.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	q := []string{
		"_pragma=busy_timeout(" + strconv.FormatInt(BusyTimeout.Milliseconds(), 10) + ")",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=mmap_size(268435456)",
		// Explicit transactions take the write lock at BEGIN, so a
		// transaction never has to upgrade a read lock (which fails with
		// SQLITE_BUSY without waiting when another writer got in first).
		"_txlock=immediate",
	}
	return u.String() + "?" + strings.Join(q, "&")
}

// Path returns the absolute path of the cache file.
func (c *Cache) Path() string { return c.path }

// Close writes the pending hit counts and closes the file. The last
// connection to close checkpoints the write-ahead log into the file and
// removes it. Close does not wait for fills started by Do; calls made after
// Close return errors.
func (c *Cache) Close() error {
	ferr := c.flushHits(context.Background())
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

func init() {
	if len(migrations) != SchemaVersion {
		panic("cache: migrations do not lead to SchemaVersion")
	}
}

// init checks the journal mode and brings the schema to SchemaVersion in
// one write transaction, so two processes opening a new file at once do
// not both create it.
func (c *Cache) init(ctx context.Context) error {
	var mode string
	if err := c.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal (is the file on a network file system?)", mode)
	}
	c.wsem <- struct{}{}
	defer func() { <-c.wsem }()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var hasMeta, tables int
	err = tx.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE name = 'meta'), count(*)
		FROM sqlite_schema WHERE type = 'table'`).Scan(&hasMeta, &tables)
	if err != nil {
		return err
	}
	version := 0
	if hasMeta == 0 {
		if tables > 0 {
			return errors.New("not a memlab cache: the database has tables but no meta table")
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`); err != nil {
			return err
		}
	} else {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v)
		if err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		version, err = strconv.Atoi(v)
		if err != nil || version < 0 {
			return fmt.Errorf("bad schema version %q in meta table", v)
		}
	}
	if version > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this memlab's %d: use a newer memlab or another cache file", version, SchemaVersion)
	}
	if version == SchemaVersion {
		return nil
	}
	for v := version; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO meta(name, value) VALUES ('schema_version', ?)
		ON CONFLICT(name) DO UPDATE SET value = excluded.value`, strconv.Itoa(SchemaVersion))
	if err != nil {
		return err
	}
	return tx.Commit()
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
