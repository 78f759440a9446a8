package cache

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/pgtest"
)

// TestOpenErrorsPostgres: a PostgreSQL cache of a newer schema, or a
// schema holding a table of the cache's names that is not one, is refused
// naming the URL without its password; tables of other names (a run
// store's, sharing the schema) are left alone.
func TestOpenErrorsPostgres(t *testing.T) {
	newer := pgtest.URL(t)
	c, err := Open(newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`UPDATE cache_meta SET value = '99' WHERE name = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	for _, open := range []func(string) (*Cache, error){Open, OpenReadOnly} {
		if _, err := open(newer); err == nil || !strings.Contains(err.Error(), "schema version 99") || !strings.Contains(err.Error(), shownPath(newer)) {
			t.Errorf("newer schema: %v", err)
		}
	}

	foreign := pgtest.URL(t)
	if _, err := pgtest.Open(t, foreign).Exec(`CREATE TABLE cache_entries (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(foreign); err == nil || !strings.Contains(err.Error(), "not a memlab cache") {
		t.Errorf("a table of the cache's name that is not one: %v", err)
	}

	shared := pgtest.URL(t)
	if _, err := pgtest.Open(t, shared).Exec(`CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);
		INSERT INTO meta VALUES ('schema_version', '3'); CREATE TABLE runs (id TEXT)`); err != nil {
		t.Fatal(err)
	}
	c, err = Open(shared)
	if err != nil {
		t.Fatalf("a cache beside a run store's tables: %v", err)
	}
	defer c.Close()
	if err := c.Put(context.Background(), testEntry(1)); err != nil {
		t.Fatal(err)
	}
}

// TestSentinelNotStoredPostgres: what a PostgreSQL cache stores of calls
// made with an API key holds the prompts and never the key (the key is no
// part of an entry: see TestSentinelNotOnDisk for the file).
func TestSentinelNotStoredPostgres(t *testing.T) {
	const apiKey = "sk-SENTINEL-5d1e-do-not-store-pg"
	const prompt = "PLANTED-PROMPT-pg-8c1f"
	ctx := context.Background()
	c, path := openOn(t, "postgres")
	for i := 0; i < 20; i++ {
		canon, err := Canonical(map[string]any{"model": "m", "messages": []msg{{"user", fmt.Sprintf("%s %d", prompt, i)}}})
		if err != nil {
			t.Fatal(err)
		}
		e := Entry{Key: KeyOf(canon), Kind: KindChat, Model: "m", Endpoint: "remote", Request: canon, Response: []byte(`{"content":"ok"}`)}
		fill := func(context.Context) (Entry, error) {
			_ = apiKey // what the caller sends with the call, not what it stores
			return e, nil
		}
		if _, _, err := c.Do(ctx, e.Key, fill); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var all string
	err := pgtest.Open(t, path).QueryRow(`SELECT string_agg(e::text || convert_from(e.request, 'UTF8'), ' ') FROM cache_entries e`).Scan(&all)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(all, apiKey) {
		t.Error("the api key is in the cache's rows")
	}
	if !strings.Contains(all, prompt+" 19") {
		t.Error("the planted prompt is not in the rows: the scan proves nothing")
	}
}

// TestHitsOfTwoProcessesPostgres: two caches on one PostgreSQL schema
// (two processes) counting hits of the same keys flush them without a
// deadlock and lose none.
func TestHitsOfTwoProcessesPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, path := openOn(t, "postgres")
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const keys, rounds = 50, 20
	for i := range keys {
		if err := a.Put(ctx, testEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 2)
	for _, c := range []*Cache{a, b} {
		go func() {
			for range rounds {
				for i := range keys {
					if _, ok, err := c.Get(ctx, testEntry(i).Key); err != nil || !ok {
						errs <- fmt.Errorf("get %d: %v %v", i, ok, err)
						return
					}
				}
				if err := c.flushHits(ctx); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, err := a.Stats(ctx)
	if err != nil || s.Total.Hits != 2*keys*rounds {
		t.Errorf("%d hits (%v), want %d", s.Total.Hits, err, 2*keys*rounds)
	}
}
