package cache

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStatsAndClear(t *testing.T) { eachBackend(t, testStatsAndClear) }

func testStatsAndClear(t *testing.T, backend string) {
	ctx := context.Background()
	c, path := openOn(t, backend)
	pg := backend == "postgres"
	path = shownPath(path)

	s, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total.Entries != 0 || !s.Oldest.IsZero() || len(s.ByKind) != 0 || s.Path != path || s.FileBytes == 0 {
		t.Errorf("empty stats: %+v", s)
	}

	now := time.Now()
	old := now.Add(-48 * time.Hour).Truncate(time.Millisecond)
	entries := []Entry{
		{Key: "a", Kind: KindChat, Model: "gpt", Request: []byte("12345"), Response: []byte("1234567890"),
			PromptTokens: 100, CompletionTokens: 10, CreatedAt: old},
		{Key: "b", Kind: KindChat, Model: "qwen", Request: []byte("1"), Response: []byte("12"),
			PromptTokens: 20, CompletionTokens: 5, CreatedAt: now.Add(-time.Hour)},
		{Key: "c", Kind: KindEmbed, Model: "qwen", Request: []byte("123"), Response: bytes.Repeat([]byte("x"), 40_000),
			PromptTokens: 7, CreatedAt: now},
	}
	for _, e := range entries {
		if err := c.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "c", "c"} {
		if _, ok, err := c.Get(ctx, k); err != nil || !ok {
			t.Fatalf("Get %s: ok=%v err=%v", k, ok, err)
		}
	}
	s, err = c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantTotal := Group{Entries: 3, Bytes: 15 + 3 + 40_003, PromptTokens: 127, CompletionTokens: 15, Hits: 3}
	if s.Total != wantTotal {
		t.Errorf("Total = %+v, want %+v", s.Total, wantTotal)
	}
	if !s.Oldest.Equal(old) || !s.Newest.Equal(now.Truncate(time.Millisecond)) {
		t.Errorf("Oldest %v Newest %v, want %v %v", s.Oldest, s.Newest, old, now)
	}
	wantKind := []Group{
		{Name: "chat", Entries: 2, Bytes: 18, PromptTokens: 120, CompletionTokens: 15, Hits: 1},
		{Name: "embed", Entries: 1, Bytes: 40_003, PromptTokens: 7, Hits: 2},
	}
	wantModel := []Group{
		{Name: "gpt", Entries: 1, Bytes: 15, PromptTokens: 100, CompletionTokens: 10, Hits: 1},
		{Name: "qwen", Entries: 2, Bytes: 40_006, PromptTokens: 27, CompletionTokens: 5, Hits: 2},
	}
	if fmt.Sprint(s.ByKind) != fmt.Sprint(wantKind) {
		t.Errorf("ByKind = %+v\nwant %+v", s.ByKind, wantKind)
	}
	if fmt.Sprint(s.ByModel) != fmt.Sprint(wantModel) {
		t.Errorf("ByModel = %+v\nwant %+v", s.ByModel, wantModel)
	}

	var buf bytes.Buffer
	if err := s.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{path, "entries  3 (request+response 39.1 KiB)", "hits     3",
		"prompt 127, completion 15", "oldest", "kind   entries", "embed  1        39.1 KiB",
		"qwen   2        39.1 KiB  27"} {
		if !strings.Contains(text, want) {
			t.Errorf("stats text lacks %q:\n%s", want, text)
		}
	}

	// Older than a day: only "a" goes.
	removed, err := c.Clear(ctx, 24*time.Hour)
	if err != nil || removed != 1 {
		t.Fatalf("Clear(24h) = %d, %v; want 1", removed, err)
	}
	for k, want := range map[string]bool{"a": false, "b": true, "c": true} {
		if _, ok, _ := c.lookup(ctx, k); ok != want {
			t.Errorf("after Clear(24h): %s present=%v, want %v", k, ok, want)
		}
	}
	if removed, err := c.Clear(ctx, 24*time.Hour); err != nil || removed != 0 {
		t.Errorf("second Clear(24h) = %d, %v; want 0", removed, err)
	}
	if _, err := c.Clear(ctx, -time.Second); err == nil {
		t.Error("Clear with a negative age succeeded")
	}

	// Everything, and the file shrinks (PostgreSQL leaves the space to
	// autovacuum).
	before := fileBytes(t, c, path)
	removed, err = c.Clear(ctx, 0)
	if err != nil || removed != 2 {
		t.Fatalf("Clear(0) = %d, %v; want 2", removed, err)
	}
	after := fileBytes(t, c, path)
	if after >= before && !pg {
		t.Errorf("files are %d bytes after Clear, %d before: they did not shrink", after, before)
	}
	s, err = c.Stats(ctx)
	if err != nil || s.Total.Entries != 0 || s.FileBytes != after {
		t.Errorf("stats after Clear(0): %+v, %v", s, err)
	}
	// The cache still works.
	if err := c.Put(ctx, entries[0]); err != nil {
		t.Fatal(err)
	}
}

// fileBytes is the size of the database, its WAL and shm files (on
// PostgreSQL, of c's table of entries).
func fileBytes(t *testing.T, c *Cache, path string) int64 {
	t.Helper()
	var n int64
	if c.pg {
		if err := c.db.QueryRow(`SELECT pg_total_relation_size('cache_entries')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func TestSizeText(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 20, "5.0 MiB"}, {3 << 30, "3.0 GiB"}}
	for _, tt := range tests {
		if got := sizeText(tt.n); got != tt.want {
			t.Errorf("sizeText(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
