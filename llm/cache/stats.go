package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"text/tabwriter"
	"time"
)

// Stats describes the content of a cache file.
type Stats struct {
	// Path is the absolute path of the file (or the URL of the
	// PostgreSQL database, without its password).
	Path string
	// Total sums all entries (its Name is empty).
	Total Group
	// Oldest and Newest are the creation times of the oldest and newest
	// entries (zero when there are none).
	Oldest, Newest time.Time
	// ByKind and ByModel break the totals down, sorted by name.
	ByKind  []Group
	ByModel []Group
	// FileBytes is the size on disk of the file, its write-ahead log and
	// its shared-memory index together (on PostgreSQL, of the table of
	// entries with its indexes and TOAST data).
	FileBytes int64
}

// Group holds the totals of a set of entries.
type Group struct {
	// Name is the kind or model ("" for the totals).
	Name    string
	Entries int64
	// Bytes counts request and response bytes.
	Bytes            int64
	PromptTokens     int64
	CompletionTokens int64
	// Hits is the number of times entries were served without a call.
	Hits int64
}

// groupCols are the totals of a group of entries (sums cast to BIGINT:
// PostgreSQL's sum of BIGINT is NUMERIC).
const groupCols = `count(*), CAST(coalesce(sum(length(request) + length(response)), 0) AS BIGINT),
	CAST(coalesce(sum(prompt_tokens), 0) AS BIGINT), CAST(coalesce(sum(completion_tokens), 0) AS BIGINT),
	CAST(coalesce(sum(hits), 0) AS BIGINT)`

// Stats writes the pending hit counts and reads the totals of the file.
// Hits counted by other processes are included once they flushed them
// (every 256 hits or 5 s, and when they close the cache); a process that is
// killed loses its unwritten hit counts, never an entry.
func (c *Cache) Stats(ctx context.Context) (Stats, error) {
	if err := c.flushHits(ctx); err != nil {
		return Stats{}, err
	}
	s := Stats{Path: c.path}
	var oldest, newest sql.NullInt64
	err := c.db.QueryRowContext(ctx, c.sql(`SELECT `+groupCols+`, min(created_at), max(created_at) FROM {entries}`)).
		Scan(&s.Total.Entries, &s.Total.Bytes, &s.Total.PromptTokens, &s.Total.CompletionTokens, &s.Total.Hits, &oldest, &newest)
	if err != nil {
		return Stats{}, fmt.Errorf("cache: stats of %q: %w", c.path, explain(c.path, err))
	}
	if oldest.Valid {
		s.Oldest = time.UnixMilli(oldest.Int64)
		s.Newest = time.UnixMilli(newest.Int64)
	}
	if s.ByKind, err = c.groups(ctx, "kind"); err != nil {
		return Stats{}, err
	}
	if s.ByModel, err = c.groups(ctx, "model"); err != nil {
		return Stats{}, err
	}
	if c.pg {
		if err := c.db.QueryRowContext(ctx, `SELECT pg_total_relation_size('cache_entries')`).Scan(&s.FileBytes); err != nil {
			return Stats{}, fmt.Errorf("cache: stats of %q: size: %w", c.path, err)
		}
		return s, nil
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(c.path + suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Stats{}, fmt.Errorf("cache: stats of %q: %w", c.path, err)
		}
		s.FileBytes += fi.Size()
	}
	return s, nil
}

// groups totals the entries by column col ("kind" or "model").
func (c *Cache) groups(ctx context.Context, col string) ([]Group, error) {
	order := col
	if c.pg {
		order += ` COLLATE "C"` // byte order, as SQLite's
	}
	rows, err := c.db.QueryContext(ctx, c.sql(`SELECT `+col+`, `+groupCols+` FROM {entries} GROUP BY `+col+` ORDER BY `+order))
	if err != nil {
		return nil, fmt.Errorf("cache: stats of %q by %s: %w", c.path, col, explain(c.path, err))
	}
	defer rows.Close()
	var gs []Group
	for rows.Next() {
		var g Group
		if err := rows.Scan(&g.Name, &g.Entries, &g.Bytes, &g.PromptTokens, &g.CompletionTokens, &g.Hits); err != nil {
			return nil, fmt.Errorf("cache: stats of %q by %s: %w", c.path, col, explain(c.path, err))
		}
		gs = append(gs, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cache: stats of %q by %s: %w", c.path, col, explain(c.path, err))
	}
	return gs, nil
}

// WriteText writes s as the text of `memlab cache stats`.
func (s Stats) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cache\t%s\n", s.Path)
	fmt.Fprintf(tw, "on disk\t%s\n", sizeText(s.FileBytes))
	fmt.Fprintf(tw, "entries\t%d (request+response %s)\n", s.Total.Entries, sizeText(s.Total.Bytes))
	fmt.Fprintf(tw, "hits\t%d\n", s.Total.Hits)
	fmt.Fprintf(tw, "tokens\tprompt %d, completion %d\n", s.Total.PromptTokens, s.Total.CompletionTokens)
	if s.Total.Entries > 0 {
		const layout = "2006-01-02 15:04:05 MST"
		fmt.Fprintf(tw, "oldest\t%s\n", s.Oldest.Format(layout))
		fmt.Fprintf(tw, "newest\t%s\n", s.Newest.Format(layout))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("cache: write stats: %w", err)
	}
	for _, t := range []struct {
		title  string
		groups []Group
	}{{"kind", s.ByKind}, {"model", s.ByModel}} {
		if len(t.groups) == 0 {
			continue
		}
		fmt.Fprintf(tw, "\n%s\tentries\tbytes\tprompt tokens\tcompletion tokens\thits\n", t.title)
		for _, g := range t.groups {
			name := g.Name
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\n", name, g.Entries, sizeText(g.Bytes), g.PromptTokens, g.CompletionTokens, g.Hits)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("cache: write stats: %w", err)
		}
	}
	return nil
}

// sizeText writes n bytes in binary units.
func sizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Clear removes the entries created more than olderThan ago, or every
// entry when olderThan is 0, and returns how many it removed. It then
// rewrites the file (VACUUM) and truncates the write-ahead log, so that the
// file shrinks. A negative olderThan is an error. On PostgreSQL the rows
// are deleted and left to the server's autovacuum, whose space the next
// entries reuse: a VACUUM FULL would lock the table against every other
// process using the cache.
func (c *Cache) Clear(ctx context.Context, olderThan time.Duration) (removed int64, err error) {
	if olderThan < 0 {
		return 0, fmt.Errorf("cache: clear %q: negative age %v", c.path, olderThan)
	}
	if c.readOnly {
		return 0, c.errReadOnly("clear")
	}
	if err := c.flushHits(ctx); err != nil {
		return 0, err
	}
	if err := c.lockWrite(ctx); err != nil {
		return 0, fmt.Errorf("cache: clear %q: %w", c.path, err)
	}
	defer c.unlockWrite()
	var res sql.Result
	if olderThan == 0 {
		res, err = c.db.ExecContext(ctx, c.sql(`DELETE FROM {entries}`))
	} else {
		cutoff := time.Now().Add(-olderThan).UnixMilli()
		res, err = c.db.ExecContext(ctx, c.sql(`DELETE FROM {entries} WHERE created_at < ?`), cutoff)
	}
	if err != nil {
		return 0, fmt.Errorf("cache: clear %q: %w", c.path, explain(c.path, err))
	}
	if removed, err = res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("cache: clear %q: %w", c.path, err)
	}
	if removed == 0 || c.pg {
		return removed, nil
	}
	if _, err := c.db.ExecContext(ctx, `VACUUM`); err != nil {
		return removed, fmt.Errorf("cache: clear %q: vacuum: %w", c.path, explain(c.path, err))
	}
	// The result row says whether other readers kept the log from being
	// truncated; that is not an error (the next checkpoint will do it).
	if _, err := c.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return removed, fmt.Errorf("cache: clear %q: checkpoint: %w", c.path, err)
	}
	return removed, nil
}
