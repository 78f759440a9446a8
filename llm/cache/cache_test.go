package cache

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/pgdb"
	"github.com/memlab/memlab/internal/pgtest"
)

func openTemp(t testing.TB) (*Cache, string) {
	t.Helper()
	return openOn(t, "sqlite")
}

// backends are the cache's back ends: an SQLite file, and a PostgreSQL
// schema on the server of pgtest.Env (its tests are skipped, loudly, when
// that is unset).
var backends = []string{"sqlite", "postgres"}

// eachBackend runs f as a subtest of t on each back end.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}

// newPath returns where a new cache on backend goes: a file in a
// temporary directory, or the URL of a new PostgreSQL schema.
func newPath(t testing.TB, backend string) string {
	t.Helper()
	if backend == "postgres" {
		return pgtest.URL(t)
	}
	return filepath.Join(t.TempDir(), "sub", "dir", "cache.db")
}

// openOn opens a new cache on backend, closed at the test's end, and
// returns it with its path (newPath).
func openOn(t testing.TB, backend string) (*Cache, string) {
	t.Helper()
	path := newPath(t, backend)
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

// shownPath is how a cache at path names itself (Path, errors): a URL
// without its password.
func shownPath(path string) string {
	if pgdb.IsURL(path) {
		return pgdb.Redact(path)
	}
	return path
}

func testEntry(i int) Entry {
	return Entry{
		Key: fmt.Sprintf("key-%04d", i), Kind: KindChat, Model: "m", Endpoint: "local",
		Request:      []byte(fmt.Sprintf(`{"n":%d}`, i)),
		Response:     bytes.Repeat([]byte{byte(i)}, 100+i),
		PromptTokens: 10 + i, CompletionTokens: 2 * i,
		Latency: time.Duration(i)*time.Millisecond + 1500*time.Microsecond,
	}
}

func equalStored(t *testing.T, got, want Entry) {
	t.Helper()
	if got.Key != want.Key || got.Kind != want.Kind || got.Model != want.Model || got.Endpoint != want.Endpoint ||
		!bytes.Equal(got.Request, want.Request) || !bytes.Equal(got.Response, want.Response) ||
		got.PromptTokens != want.PromptTokens || got.CompletionTokens != want.CompletionTokens ||
		got.Latency != want.Latency {
		t.Errorf("entry %s:\n got %+v\nwant %+v", want.Key, got, want)
	}
}

func TestPutGet(t *testing.T) { eachBackend(t, testPutGet) }

func testPutGet(t *testing.T, backend string) {
	ctx := context.Background()
	c, path := openOn(t, backend)
	if c.Path() != shownPath(path) {
		t.Errorf("Path() = %q, want %q", c.Path(), shownPath(path))
	}
	if _, ok, err := c.Get(ctx, "nothing"); ok || err != nil {
		t.Fatalf("Get of a missing key: ok=%v err=%v, want a miss", ok, err)
	}
	created := time.UnixMilli(1_700_000_000_123)
	e := testEntry(3)
	e.CreatedAt = created
	if err := c.Put(ctx, e); err != nil {
		t.Fatal(err)
	}
	for hit := int64(1); hit <= 3; hit++ {
		got, ok, err := c.Get(ctx, e.Key)
		if err != nil || !ok {
			t.Fatalf("Get %d: ok=%v err=%v", hit, ok, err)
		}
		equalStored(t, got, e)
		if !got.CreatedAt.Equal(created) {
			t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, created)
		}
		if got.Source != SourceStore {
			t.Errorf("Get %d: Source=%q, want %q", hit, got.Source, SourceStore)
		}
		if h := storedHits(t, c, e.Key); h != hit {
			t.Errorf("after Get %d: %d hits stored, want %d", hit, h, hit)
		}
	}
	// Nil request and response come back empty, not as an error.
	if err := c.Put(ctx, Entry{Key: "empty", Kind: KindEmbed}); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := c.Get(ctx, "empty"); err != nil || !ok || len(got.Response) != 0 || got.CreatedAt.IsZero() {
		t.Errorf("empty entry: %+v ok=%v err=%v", got, ok, err)
	}
	if err := c.Put(ctx, Entry{Kind: KindChat}); err == nil || !strings.Contains(err.Error(), "empty key") {
		t.Errorf("Put without key: err = %v, want an empty key error", err)
	}

	// Reopen: the entry and its hits persist, including the hit counted
	// in memory since the last flush, written by Close.
	if _, _, err := c.Get(ctx, e.Key); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	got, ok, err := c2.Get(ctx, e.Key)
	if err != nil || !ok {
		t.Fatalf("after reopen: ok=%v err=%v", ok, err)
	}
	equalStored(t, got, e)
	if h := storedHits(t, c2, e.Key); h != 5 {
		t.Errorf("after reopen %d hits, want 5", h)
	}
}

func TestPutFirstWins(t *testing.T) { eachBackend(t, testPutFirstWins) }

func testPutFirstWins(t *testing.T, backend string) {
	ctx := context.Background()
	c, _ := openOn(t, backend)
	first := testEntry(1)
	if err := c.Put(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(ctx, first.Key); err != nil {
		t.Fatal(err)
	}
	second := testEntry(2)
	second.Key = first.Key
	if err := c.Put(ctx, second); err != nil {
		t.Fatalf("second Put of a key: %v, want nil", err)
	}
	got, _, err := c.Get(ctx, first.Key)
	if err != nil {
		t.Fatal(err)
	}
	equalStored(t, got, first)
	if h := storedHits(t, c, first.Key); h != 2 {
		t.Errorf("%d hits, want 2 (the second Put must not reset them)", h)
	}
}

// storedHits flushes the pending hit counts and reads those of key.
func storedHits(t *testing.T, c *Cache, key string) int64 {
	t.Helper()
	if err := c.flushHits(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := c.db.QueryRow(c.sql(`SELECT hits FROM {entries} WHERE key = ?`), key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHitsFlushedInBatches(t *testing.T) { eachBackend(t, testHitsFlushedInBatches) }

func testHitsFlushedInBatches(t *testing.T, backend string) {
	ctx := context.Background()
	c, _ := openOn(t, backend)
	if err := c.Put(ctx, testEntry(1)); err != nil {
		t.Fatal(err)
	}
	read := func() (n int64) {
		if err := c.db.QueryRow(c.sql(`SELECT hits FROM {entries}`)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := 0; i < hitFlushCount-1; i++ {
		if _, _, err := c.Get(ctx, testEntry(1).Key); err != nil {
			t.Fatal(err)
		}
	}
	if n := read(); n != 0 {
		t.Errorf("%d hits written before the batch was full, want 0", n)
	}
	if _, _, err := c.Get(ctx, testEntry(1).Key); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != hitFlushCount {
		t.Errorf("%d hits written once the batch was full, want %d", n, hitFlushCount)
	}
	// An old pending hit is written with the next one.
	if _, _, err := c.Get(ctx, testEntry(1).Key); err != nil {
		t.Fatal(err)
	}
	c.hits.mu.Lock()
	c.hits.since = time.Now().Add(-hitFlushAge)
	c.hits.mu.Unlock()
	if _, _, err := c.Get(ctx, testEntry(1).Key); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != hitFlushCount+2 {
		t.Errorf("%d hits written after an old pending one, want %d", n, hitFlushCount+2)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()

	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("this is not sqlite\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}

	newer := filepath.Join(dir, "newer.db")
	c, err := Open(newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	c.Close()

	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE people (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		desc, path string
		want       []string
	}{
		{"empty path", "", []string{"cache: open: empty path"}},
		{"not a database", notDB, []string{"cache: open ", "text.db", "not a database"}},
		{"newer schema", newer, []string{"cache: open ", "newer.db", "schema version 99 is newer than this memlab's 1"}},
		{"another application's database", foreign, []string{"foreign.db", "not a memlab cache"}},
		{"parent is a file", filepath.Join(blocker, "c.db"), []string{"cache: open ", "file/c.db"}},
	}
	for _, tt := range tests {
		c, err := Open(tt.path)
		if err == nil {
			c.Close()
			t.Errorf("%s: Open succeeded, want an error", tt.desc)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tt.desc, err, w)
			}
		}
	}
}

func TestOpenOddPath(t *testing.T) {
	// '?', '#' and '%' must be part of the file name, not of the URI.
	path := filepath.Join(t.TempDir(), "a?b#c%20d.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), testEntry(1)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the file was not created under its own name: %v", err)
	}
}

func TestSchemaOnReopen(t *testing.T) {
	_, path := openTemp(t)
	c, err := Open(path) // a second handle on an existing file
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v, mode, sync string
	if err := c.db.QueryRow(`SELECT value FROM meta WHERE name = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := c.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := c.db.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if v != "1" || mode != "wal" || sync != "1" {
		t.Errorf("schema %s, journal %s, synchronous %s; want 1, wal, 1 (NORMAL)", v, mode, sync)
	}
}

func TestConcurrentPut(t *testing.T) { eachBackend(t, testConcurrentPut) }

func testConcurrentPut(t *testing.T, backend string) {
	ctx := context.Background()
	c, path := openOn(t, backend)
	// A second handle on the same file stands for another process.
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 32, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := c
			if g%4 == 0 {
				h = other
			}
			for i := 0; i < each; i++ {
				n := g*each + i
				if err := h.Put(ctx, testEntry(n)); err != nil {
					errs <- err
				}
				if _, ok, err := h.Get(ctx, testEntry(n).Key); err != nil || !ok {
					errs <- fmt.Errorf("get back %d: ok=%v err=%v", n, ok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := other.Close(); err != nil { // writes its pending hit counts
		t.Fatal(err)
	}
	s, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total.Entries != goroutines*each || s.Total.Hits != goroutines*each {
		t.Errorf("entries %d hits %d, want %d each", s.Total.Entries, s.Total.Hits, goroutines*each)
	}
}

func TestSentinelNotOnDisk(t *testing.T) {
	const apiKey = "sk-SENTINEL-7f3a9c1e-do-not-store"
	const prompt = "PLANTED-PROMPT-4b2d"
	// What a caller holds: the request plus the secret it is sent with.
	type call struct {
		Model    string
		Messages []msg
		APIKey   string
		Timeout  time.Duration
	}
	// What it keys and stores: output-affecting fields only.
	type keyParts struct {
		Model    string
		Messages []msg
	}
	ctx := context.Background()
	c, path := openTemp(t)
	for i := 0; i < 20; i++ {
		req := call{Model: "m", Messages: []msg{{"user", fmt.Sprintf("%s %d", prompt, i)}}, APIKey: apiKey, Timeout: time.Minute}
		canon, err := Canonical(keyParts{req.Model, req.Messages})
		if err != nil {
			t.Fatal(err)
		}
		e := Entry{Key: KeyOf(canon), Kind: KindChat, Model: req.Model, Endpoint: "remote", Request: canon,
			Response: []byte(`{"content":"ok"}`)}
		if _, _, err := c.Do(ctx, e.Key, func(context.Context) (Entry, error) { return e, nil }); err != nil {
			t.Fatal(err)
		}
	}
	scan := func(stage string) {
		t.Helper()
		var all []byte
		for _, suffix := range []string{"", "-wal", "-shm"} {
			b, err := os.ReadFile(path + suffix)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(apiKey)) {
				t.Errorf("%s: the api key is in %s", stage, filepath.Base(path+suffix))
			}
			all = append(all, b...)
		}
		// The control: the scan does see what was stored.
		if !bytes.Contains(all, []byte(prompt+" 19")) {
			t.Errorf("%s: the planted prompt is not in the files: the scan proves nothing", stage)
		}
	}
	scan("open") // the rows are in the -wal file
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	scan("closed") // checkpointed into the .db file
}
