package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/pgtest"
)

// fillAndDamage stores n entries of about 2 KB in a new cache file, closes
// it, overwrites one 4 KB page in the middle of the file and returns the
// path.
func fillAndDamage(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calls.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		e := testEntry(i)
		e.Response = bytes.Repeat([]byte(fmt.Sprintf("answer %d ", i)), 200)
		if err := c.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	damagePage(t, path)
	return path
}

// damagePage overwrites the page in the middle of the SQLite file at path.
func damagePage(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024), fi.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptPageIsNamed: a damaged page makes the lookups that read it
// fail with ErrCorrupt, and the message names the file and says to run
// `memlab cache clear` (before: "database disk image is malformed (11)"
// alone, which a run recorded as one more failed question).
func TestCorruptPageIsNamed(t *testing.T) {
	path := fillAndDamage(t, 300)
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: %v, want ErrCorrupt", what, err)
		}
		for _, want := range []string{path, "is corrupt", "memlab cache clear -path " + path} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", what, err, want)
			}
		}
	}
	c, err := Open(path)
	if err != nil {
		check("open", err)
		return
	}
	defer c.Close()
	var first error
	for i := 0; i < 300 && first == nil; i++ {
		_, _, first = c.Get(ctx, testEntry(i).Key)
	}
	check("get", first)
	_, err = c.Stats(ctx)
	check("stats", err)
	ro, err := OpenReadOnly(path)
	if err == nil {
		_, err = ro.Stats(ctx)
		ro.Close()
	}
	check("read-only stats", err)
}

// TestReadOnlyCacheReadsAndRefusesWrites: a cache opened read-only serves
// its entries and stats and writes nothing; every write fails with
// ErrReadOnly and says "read-only". (SQLite enforces the read-only open,
// so this holds for root as well.)
func TestReadOnlyCacheReadsAndRefusesWrites(t *testing.T) {
	eachBackend(t, testReadOnlyCacheReadsAndRefusesWrites)
}

func testReadOnlyCacheReadsAndRefusesWrites(t *testing.T, backend string) {
	ctx := context.Background()
	c, path := openOn(t, backend)
	for i := 0; i < 5; i++ {
		if err := c.Put(ctx, testEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	before := cacheState(t, backend, path)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := ro.Get(ctx, testEntry(3).Key)
	if err != nil || !ok {
		t.Fatalf("get: ok=%v err=%v", ok, err)
	}
	equalStored(t, e, testEntry(3))
	st, err := ro.Stats(ctx)
	if err != nil || st.Total.Entries != 5 {
		t.Errorf("stats: %+v %v", st.Total, err)
	}
	for what, err := range map[string]error{
		"put":   ro.Put(ctx, testEntry(9)),
		"clear": func() error { _, err := ro.Clear(ctx, 0); return err }(),
		"fill": func() error {
			_, _, err := ro.Do(ctx, testEntry(7).Key, func(context.Context) (Entry, error) { return testEntry(7), nil })
			return err
		}(),
	} {
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), shownPath(path)) {
			t.Errorf("%s on a read-only cache: %v, want ErrReadOnly naming the file", what, err)
		}
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := cacheState(t, backend, path); after != before {
		t.Errorf("the read-only cache changed the cache:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := OpenReadOnly(newPath(t, backend)); err == nil {
		t.Error("OpenReadOnly of a missing cache succeeded")
	} else if backend == "postgres" && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReadOnly of a schema without a cache: %v, want an error wrapping fs.ErrNotExist", err)
	}
	if backend == "postgres" {
		// Below the cache's own checks, the server refuses a write of its sessions.
		ro, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		_, err = ro.db.Exec(`UPDATE cache_entries SET hits = hits + 1`)
		if err == nil || !strings.Contains(err.Error(), "read-only transaction") {
			t.Errorf("a write on a read-only session: %v, want the server's refusal", err)
		}
		if !errors.Is(explain(ro.path, err), ErrReadOnly) {
			t.Errorf("the server's refusal is not marked ErrReadOnly: %v", explain(ro.path, err))
		}
	}
}

// cacheState is what the cache at path holds: the bytes of an SQLite
// file, or the rows of a PostgreSQL cache.
func cacheState(t *testing.T, backend, path string) string {
	t.Helper()
	if backend == "sqlite" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))
	}
	var state string
	err := pgtest.Open(t, path).QueryRow(`SELECT count(*) || ':' || coalesce(sum(hits), 0) || ':' ||
		coalesce(md5(string_agg(key || encode(response, 'hex'), ',' ORDER BY key)), '') FROM cache_entries`).Scan(&state)
	if err != nil {
		t.Fatal(err)
	}
	return state
}
