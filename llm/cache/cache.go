package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

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
	return sqlitedb.Explain(path, "model-call cache", err,
		fmt.Sprintf("run `memlab cache clear -path %s` (or delete the file) and rerun; the calls it held are made again", path),
		"set MEMLAB_CACHE (or -path) to a file on writable storage")
}

// Cache is an open cache file. It is safe for use by many goroutines; Close
// it when done (after every Do has returned).
type Cache struct {
	path     string
	db       *sql.DB
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
func Open(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("cache: open: empty path")
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
// what `memlab cache stats` uses.
func OpenReadOnly(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("cache: open: empty path")
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

// Path returns the absolute path of the cache file.
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

func init() {
	if len(migrations) != SchemaVersion {
		panic("cache: migrations do not lead to SchemaVersion")
	}
}

// init brings the schema to SchemaVersion (sqlitedb.Migrate) holding this
// process's write slot.
func (c *Cache) init(ctx context.Context) error {
	c.wsem <- struct{}{}
	defer func() { <-c.wsem }()
	_, err := sqlitedb.Migrate(ctx, c.db, "cache", migrations)
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
