package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/memlab/memlab/internal/pgdb"
)

// Kinds of entry llm stores.
const (
	KindChat  = "chat"
	KindEmbed = "embed"
)

// Sources of an entry returned by Get or Do.
const (
	// SourceStore: read from the file; no model call was made for it.
	SourceStore = "store"
	// SourceShared: produced by another caller's fill that was in flight
	// when Do was called; no model call was made for this caller.
	SourceShared = "shared"
	// SourceFill: produced by this caller's own fill (a model call).
	SourceFill = "fill"
)

// Entry is one cached model call.
type Entry struct {
	// Key is the entry's key (see Key). Do fills it in.
	Key string
	// Kind is KindChat or KindEmbed (any short string is stored).
	Kind string
	// Model and Endpoint name the model and the endpoint (never its API
	// key) that answered.
	Model    string
	Endpoint string
	// Request is the canonical request (see Canonical), kept for
	// debugging. The caller guarantees it holds no secret.
	Request []byte
	// Response is the answer, in whatever encoding the caller chose.
	Response []byte
	// PromptTokens and CompletionTokens are the usage of the original call.
	PromptTokens     int
	CompletionTokens int
	// Latency is the wall time of the original call.
	Latency time.Duration
	// CreatedAt is when the entry was stored (Put uses the current time
	// when it is zero); it is kept to the millisecond.
	CreatedAt time.Time

	// Source says where Get or Do got the entry: SourceStore,
	// SourceShared or SourceFill (ignored by Put).
	Source string
}

// Get returns the entry stored under key and counts a hit on it; ok is
// false (and err nil) when there is none. Hit counts are kept in memory and
// written in batches (see Stats), so that hits, the hot path of a rerun,
// are parallel reads and never wait for the writer.
func (c *Cache) Get(ctx context.Context, key string) (e Entry, ok bool, err error) {
	e, ok, err = c.lookup(ctx, key)
	if err != nil || !ok {
		return e, ok, err
	}
	c.countHits(ctx, key, 1)
	return e, true, nil
}

// lookup reads an entry without counting a hit.
func (c *Cache) lookup(ctx context.Context, key string) (Entry, bool, error) {
	e := Entry{Key: key, Source: SourceStore}
	var latencyUS, createdMS int64
	err := c.stmts.lookup.QueryRowContext(ctx, key).Scan(&e.Kind, &e.Model, &e.Endpoint, &e.Request, &e.Response,
		&e.PromptTokens, &e.CompletionTokens, &latencyUS, &createdMS)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("cache: get %s from %q: %w", key, c.path, explain(c.path, err))
	}
	e.Latency = time.Duration(latencyUS) * time.Microsecond
	e.CreatedAt = time.UnixMilli(createdMS)
	return e, true, nil
}

// Hit counts are flushed when this many are pending, or when the oldest
// pending one is this old (checked on the next hit), and by Stats, Clear
// and Close.
const (
	hitFlushCount = 256
	hitFlushAge   = 5 * time.Second
)

// hitCounter holds the hits counted in memory and not yet written.
type hitCounter struct {
	mu      sync.Mutex
	pending map[string]int64
	n       int64
	since   time.Time // when the oldest pending hit was counted
}

// countHits adds n hits to key, and writes the pending hits when there are
// enough of them or they are old enough. A failed write keeps them pending
// for the next flush (Stats and Close report the error): a hit count is a
// statistic and must not fail the caller who was served.
func (c *Cache) countHits(ctx context.Context, key string, n int64) {
	if c.readOnly {
		return
	}
	h := &c.hits
	h.mu.Lock()
	if h.n == 0 {
		h.since = time.Now()
	}
	h.pending[key] += n
	h.n += n
	due := h.n >= hitFlushCount || time.Since(h.since) >= hitFlushAge
	h.mu.Unlock()
	if due {
		_ = c.flushHits(ctx)
	}
}

// flushHits writes the pending hit counts in one transaction.
func (c *Cache) flushHits(ctx context.Context) error {
	h := &c.hits
	h.mu.Lock()
	batch := h.pending
	if len(batch) == 0 {
		h.mu.Unlock()
		return nil
	}
	h.pending, h.n = map[string]int64{}, 0
	h.mu.Unlock()

	err := c.writeHits(ctx, batch)
	if err != nil {
		// Put them back, to be written by a later flush.
		h.mu.Lock()
		if h.n == 0 {
			h.since = time.Now()
		}
		for k, n := range batch {
			h.pending[k] += n
			h.n += n
		}
		h.mu.Unlock()
		return fmt.Errorf("cache: count hits in %q: %w", c.path, explain(c.path, err))
	}
	return nil
}

func (c *Cache) writeHits(ctx context.Context, batch map[string]int64) error {
	if err := c.lockWrite(ctx); err != nil {
		return err
	}
	defer c.unlockWrite()
	var opts *sql.TxOptions
	if c.pg {
		opts = pgdb.ReadCommitted
	}
	tx, err := c.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st := tx.StmtContext(ctx, c.stmts.addHits)
	// In key order, so that two processes flushing hits of the same keys
	// lock the rows in the same order (PostgreSQL locks each row it
	// updates until the commit; another order could deadlock).
	for _, k := range slices.Sorted(maps.Keys(batch)) {
		if _, err := st.ExecContext(ctx, batch[k], k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Put stores e under e.Key and returns once the row is committed (see the
// package documentation for durability). Put is idempotent and first-wins:
// when the key is already stored, the stored entry is kept unchanged (its
// hits and creation time too) and Put returns nil. Keys are content
// addresses, so any stored answer is a valid one, and keeping the first
// keeps what earlier runs were served.
func (c *Cache) Put(ctx context.Context, e Entry) error {
	_, err := c.put(ctx, e)
	return err
}

// put stores e and reports whether a new row was written.
func (c *Cache) put(ctx context.Context, e Entry) (bool, error) {
	if e.Key == "" {
		return false, fmt.Errorf("cache: put into %q: empty key", c.path)
	}
	if c.readOnly {
		return false, c.errReadOnly("put " + e.Key)
	}
	created := e.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	if err := c.lockWrite(ctx); err != nil {
		return false, fmt.Errorf("cache: put %s into %q: %w", e.Key, c.path, err)
	}
	defer c.unlockWrite()
	res, err := c.stmts.put.ExecContext(ctx, e.Key, e.Kind, e.Model, e.Endpoint, nonNil(e.Request), nonNil(e.Response),
		e.PromptTokens, e.CompletionTokens, e.Latency.Microseconds(), created.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("cache: put %s into %q: %w", e.Key, c.path, explain(c.path, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("cache: put %s into %q: %w", e.Key, c.path, err)
	}
	return n == 1, nil
}

// stmts are the statements of the hot paths, prepared once (database/sql
// prepares them again on each pooled connection that runs them).
type stmts struct {
	lookup, addHits, put *sql.Stmt
}

func (c *Cache) prepare(ctx context.Context) error {
	for _, s := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&c.stmts.lookup, `SELECT kind, model, endpoint, request, response,
			prompt_tokens, completion_tokens, latency_us, created_at FROM {entries} WHERE key = ?`},
		{&c.stmts.addHits, `UPDATE {entries} SET hits = hits + ? WHERE key = ?`},
		{&c.stmts.put, `INSERT INTO {entries}(key, kind, model, endpoint,
			request, response, prompt_tokens, completion_tokens, latency_us, created_at, hits)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT(key) DO NOTHING`},
	} {
		st, err := c.db.PrepareContext(ctx, c.sql(s.query))
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		*s.dst = st
	}
	return nil
}

// nonNil keeps a nil slice from being stored as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
