package construct

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/runstore"
)

// SchemaVersion is the version of the build tables this package keeps in
// a run store's file (under "construct_schema_version" in its meta table,
// beside the run store's own version).
const SchemaVersion = 1

// migrations[v] upgrades the build tables from version v to v+1.
var migrations = []string{
	0: `
CREATE TABLE construct_builds (
	id           TEXT PRIMARY KEY NOT NULL, -- hash of the pipeline, its steps' prompts and models, params and seed
	pipeline     TEXT NOT NULL,
	spec         TEXT NOT NULL,             -- the build's identity as JSON (BuildSpec)
	status       TEXT NOT NULL,             -- running, incomplete, complete
	summary      TEXT NOT NULL DEFAULT '',  -- the last session's per-step table (JSON)
	created_at   INTEGER NOT NULL,          -- unix milliseconds
	updated_at   INTEGER NOT NULL,
	sessions     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE construct_items (
	key          TEXT PRIMARY KEY NOT NULL, -- hash of step, prompts, models, seed and input
	build_id     TEXT NOT NULL,             -- the build that made it
	step         TEXT NOT NULL,
	item         TEXT NOT NULL,             -- what it is made for ("segment 3")
	prompt_hash  TEXT NOT NULL,             -- the generating prompt's hash
	model        TEXT NOT NULL,             -- the generating model's target
	inputs       TEXT NOT NULL,             -- JSON list of the keys of the items it was made from
	input        TEXT NOT NULL,             -- the step's input (JSON)
	output       TEXT NOT NULL,             -- the accepted (or last, when rejected) output (JSON)
	status       TEXT NOT NULL,             -- accepted, rejected
	revisions    INTEGER NOT NULL,
	feedback     TEXT NOT NULL DEFAULT '',  -- the last check's feedback when rejected
	created_at   INTEGER NOT NULL
);
CREATE INDEX construct_items_build ON construct_items(build_id, step);
CREATE TABLE construct_calls (
	item_key     TEXT NOT NULL,             -- the item the call belongs to
	build_id     TEXT NOT NULL,             -- the build that made it
	seq          INTEGER NOT NULL,          -- its place among the item's calls
	kind         TEXT NOT NULL,             -- generate, check, revise, code_check
	round        INTEGER NOT NULL,          -- 0 for the first output, r for the r-th revision
	prompt       TEXT NOT NULL,             -- NAME vVERSION ('' for a code check)
	prompt_hash  TEXT NOT NULL,
	role         TEXT NOT NULL,
	model        TEXT NOT NULL,
	request_hash TEXT NOT NULL,             -- hash of the messages sent
	reply        TEXT NOT NULL,             -- the model's reply as written
	result       TEXT NOT NULL,             -- the decoded output or verdict (JSON)
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	cached       INTEGER NOT NULL,          -- 1 when the call cache served it
	latency_ms   INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,
	PRIMARY KEY (item_key, seq)
);
CREATE TABLE construct_failures (
	build_id     TEXT NOT NULL,
	item_key     TEXT NOT NULL,
	step         TEXT NOT NULL,
	item         TEXT NOT NULL,
	kind         TEXT NOT NULL,
	round        INTEGER NOT NULL,
	error        TEXT NOT NULL,
	at           INTEGER NOT NULL
);
`,
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("construct: migrations do not lead to SchemaVersion")
	}
}

// Store keeps builds, their items and every call in a run store's SQLite
// file (tables construct_*, migrated on their own version): an item is
// written when its output is accepted or rejected and each call when it
// returns, so a killed build resumes at the first unfinished item, and an
// item interrupted between its calls replays the calls it had made. It is
// safe for concurrent use.
type Store struct {
	path string
	db   *sql.DB
	wmu  sync.Mutex
}

// OpenStore opens the build tables in the run store file at path: the
// file is opened (created or migrated) as a run store first, so one file
// holds a project's runs and builds. A PostgreSQL run store is not
// supported here.
func OpenStore(path string) (*Store, error) {
	if runstore.IsURL(path) {
		return nil, fmt.Errorf("construct: open store %s: builds are kept in an SQLite run store file only, not on PostgreSQL: give -store a file (or -no-store)", llm.RedactURLs(path))
	}
	rs, err := runstore.Open(path)
	if err != nil {
		return nil, fmt.Errorf("construct: open store: %w", err)
	}
	rs.Close()
	db, abs, err := sqlitedb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("construct: open store %q: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	if _, err := sqlitedb.MigrateNamed(context.Background(), db, "run store", "construct_schema_version", migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("construct: open store %q: %w", abs, err)
	}
	return &Store{path: abs, db: db}, nil
}

// Path is the store file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// BuildInfo is a stored build.
type BuildInfo struct {
	ID, Pipeline, Status string
	Spec                 json.RawMessage
	// Summary is the per-step table of the last session (JSON of
	// []StepStats).
	Summary            json.RawMessage
	Created, Updated   time.Time
	Sessions           int
	Items, Rejected    int
	Revisions, Failure int
}

// Builds lists the stored builds, newest first.
func (s *Store) Builds() ([]BuildInfo, error) {
	rows, err := s.db.Query(`SELECT b.id, b.pipeline, b.status, b.spec, b.summary, b.created_at, b.updated_at, b.sessions,
		(SELECT count(*) FROM construct_items i WHERE i.build_id = b.id),
		(SELECT count(*) FROM construct_items i WHERE i.build_id = b.id AND i.status = 'rejected'),
		(SELECT coalesce(sum(revisions), 0) FROM construct_items i WHERE i.build_id = b.id),
		(SELECT count(*) FROM construct_failures f WHERE f.build_id = b.id)
		FROM construct_builds b ORDER BY b.updated_at DESC, b.id`)
	if err != nil {
		return nil, fmt.Errorf("construct: builds in %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []BuildInfo
	for rows.Next() {
		var b BuildInfo
		var spec, summary string
		var c, u int64
		if err := rows.Scan(&b.ID, &b.Pipeline, &b.Status, &spec, &summary, &c, &u, &b.Sessions, &b.Items, &b.Rejected, &b.Revisions, &b.Failure); err != nil {
			return nil, fmt.Errorf("construct: builds in %s: %w", s.path, err)
		}
		b.Spec, b.Created, b.Updated = json.RawMessage(spec), time.UnixMilli(c), time.UnixMilli(u)
		if summary != "" {
			b.Summary = json.RawMessage(summary)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// begin records a session of build id (created on its first).
func (s *Store) begin(ctx context.Context, id, pipeline string, spec []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	now := time.Now().UnixMilli()
	_, err := s.db.ExecContext(ctx, `INSERT INTO construct_builds(id, pipeline, spec, status, created_at, updated_at, sessions)
		VALUES (?, ?, ?, 'running', ?, ?, 1)
		ON CONFLICT(id) DO UPDATE SET status = 'running', updated_at = excluded.updated_at, sessions = sessions + 1`,
		id, pipeline, string(spec), now, now)
	if err != nil {
		return fmt.Errorf("construct: begin build %s in %s: %w", id, s.path, err)
	}
	return nil
}

// finish records how a session of build id ended.
func (s *Store) finish(id, status string, summary []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.db.Exec(`UPDATE construct_builds SET status = ?, summary = ?, updated_at = ? WHERE id = ?`,
		status, string(summary), time.Now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("construct: finish build %s in %s: %w", id, s.path, err)
	}
	return nil
}

// StoredItem is a finished item as stored.
type StoredItem struct {
	Key, BuildID, Step, Item string
	PromptHash, Model        string
	Inputs                   []string
	Input, Output            json.RawMessage
	Status                   string
	Revisions                int
	Feedback                 string
}

// item returns the stored item of key, false when there is none.
func (s *Store) item(ctx context.Context, key string) (StoredItem, bool, error) {
	var it StoredItem
	var inputs, in, out string
	err := s.db.QueryRowContext(ctx, `SELECT key, build_id, step, item, prompt_hash, model, inputs, input, output, status, revisions, feedback
		FROM construct_items WHERE key = ?`, key).Scan(&it.Key, &it.BuildID, &it.Step, &it.Item, &it.PromptHash, &it.Model,
		&inputs, &in, &out, &it.Status, &it.Revisions, &it.Feedback)
	if errors.Is(err, sql.ErrNoRows) {
		return it, false, nil
	}
	if err != nil {
		return it, false, fmt.Errorf("construct: read item %s in %s: %w", key, s.path, err)
	}
	if err := json.Unmarshal([]byte(inputs), &it.Inputs); err != nil {
		return it, false, fmt.Errorf("construct: item %s in %s: bad inputs: %w", key, s.path, err)
	}
	it.Input, it.Output = json.RawMessage(in), json.RawMessage(out)
	return it, true, nil
}

// Items returns the items build id made (those it reused from another
// build are not listed), in step and item order; step "" lists every step.
func (s *Store) Items(id, step string) ([]StoredItem, error) {
	rows, err := s.db.Query(`SELECT key, build_id, step, item, prompt_hash, model, inputs, input, output, status, revisions, feedback
		FROM construct_items WHERE build_id = ? AND (? = '' OR step = ?) ORDER BY step, item, key`, id, step, step)
	if err != nil {
		return nil, fmt.Errorf("construct: items of %s in %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var out []StoredItem
	for rows.Next() {
		var it StoredItem
		var inputs, in, o string
		if err := rows.Scan(&it.Key, &it.BuildID, &it.Step, &it.Item, &it.PromptHash, &it.Model, &inputs, &in, &o, &it.Status, &it.Revisions, &it.Feedback); err != nil {
			return nil, fmt.Errorf("construct: items of %s in %s: %w", id, s.path, err)
		}
		if err := json.Unmarshal([]byte(inputs), &it.Inputs); err != nil {
			return nil, fmt.Errorf("construct: item %s in %s: bad inputs: %w", it.Key, s.path, err)
		}
		it.Input, it.Output = json.RawMessage(in), json.RawMessage(o)
		out = append(out, it)
	}
	return out, rows.Err()
}

func (s *Store) putItem(ctx context.Context, it StoredItem) error {
	inputs, err := json.Marshal(it.Inputs)
	if err != nil {
		return err
	}
	if it.Inputs == nil {
		inputs = []byte("[]")
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.db.ExecContext(ctx, `INSERT INTO construct_items(key, build_id, step, item, prompt_hash, model, inputs, input, output, status, revisions, feedback, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING`,
		it.Key, it.BuildID, it.Step, it.Item, it.PromptHash, it.Model, string(inputs), string(it.Input), string(it.Output),
		it.Status, it.Revisions, it.Feedback, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("construct: write item %s (%s, %s) in %s: %w", it.Key, it.Step, it.Item, s.path, err)
	}
	return nil
}

// StoredCall is one call of an item as stored (a code check is a call
// with no prompt, model or tokens).
type StoredCall struct {
	ItemKey, BuildID                string
	Seq                             int
	Kind                            string
	Round                           int
	Prompt, PromptHash, Role, Model string
	RequestHash                     string
	Reply                           string
	Result                          json.RawMessage
	PromptTokens, CompletionTokens  int
	Cached                          bool
	Latency                         time.Duration
}

// calls returns the stored calls of an item, in order.
func (s *Store) calls(ctx context.Context, itemKey string) ([]StoredCall, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, round, prompt, prompt_hash, role, model, request_hash, reply, result,
		prompt_tokens, completion_tokens, cached, latency_ms FROM construct_calls WHERE item_key = ? ORDER BY seq`, itemKey)
	if err != nil {
		return nil, fmt.Errorf("construct: calls of item %s in %s: %w", itemKey, s.path, err)
	}
	defer rows.Close()
	var out []StoredCall
	for rows.Next() {
		c := StoredCall{ItemKey: itemKey}
		var result string
		var cached int
		var ms int64
		if err := rows.Scan(&c.Seq, &c.Kind, &c.Round, &c.Prompt, &c.PromptHash, &c.Role, &c.Model, &c.RequestHash, &c.Reply, &result,
			&c.PromptTokens, &c.CompletionTokens, &cached, &ms); err != nil {
			return nil, fmt.Errorf("construct: calls of item %s in %s: %w", itemKey, s.path, err)
		}
		c.Result, c.Cached, c.Latency = json.RawMessage(result), cached == 1, time.Duration(ms)*time.Millisecond
		out = append(out, c)
	}
	return out, rows.Err()
}

// Calls returns the calls build id made (those of items it has not
// finished too), by item and order.
func (s *Store) Calls(id string) ([]StoredCall, error) {
	rows, err := s.db.Query(`SELECT DISTINCT item_key FROM construct_calls WHERE build_id = ? ORDER BY item_key`, id)
	if err != nil {
		return nil, fmt.Errorf("construct: calls of %s in %s: %w", id, s.path, err)
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	var out []StoredCall
	for _, k := range keys {
		cs, err := s.calls(context.Background(), k)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			c.BuildID = id
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *Store) putCall(ctx context.Context, c StoredCall) error {
	result := string(c.Result)
	if result == "" {
		result = "null"
	}
	cached := 0
	if c.Cached {
		cached = 1
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.db.ExecContext(ctx, `INSERT INTO construct_calls(item_key, build_id, seq, kind, round, prompt, prompt_hash, role, model, request_hash, reply, result,
		prompt_tokens, completion_tokens, cached, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(item_key, seq) DO UPDATE SET kind = excluded.kind, round = excluded.round, prompt = excluded.prompt,
		prompt_hash = excluded.prompt_hash, role = excluded.role, model = excluded.model, request_hash = excluded.request_hash,
		reply = excluded.reply, result = excluded.result, prompt_tokens = excluded.prompt_tokens,
		completion_tokens = excluded.completion_tokens, cached = excluded.cached, latency_ms = excluded.latency_ms`,
		c.ItemKey, c.BuildID, c.Seq, c.Kind, c.Round, c.Prompt, c.PromptHash, c.Role, c.Model, c.RequestHash, c.Reply, result,
		c.PromptTokens, c.CompletionTokens, cached, c.Latency.Milliseconds(), time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("construct: write call %d of item %s in %s: %w", c.Seq, c.ItemKey, s.path, err)
	}
	return nil
}

// Failure is a failed call as stored.
type Failure struct {
	BuildID, ItemKey, Step, Item, Kind string
	Round                              int
	Error                              string
	At                                 time.Time
}

func (s *Store) putFailure(f Failure) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.db.Exec(`INSERT INTO construct_failures(build_id, item_key, step, item, kind, round, error, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		f.BuildID, f.ItemKey, f.Step, f.Item, f.Kind, f.Round, f.Error, f.At.UnixMilli())
	if err != nil {
		return fmt.Errorf("construct: write failure of item %s in %s: %w", f.ItemKey, s.path, err)
	}
	return nil
}

// Failures returns the failed calls of build id, oldest first.
func (s *Store) Failures(id string) ([]Failure, error) {
	rows, err := s.db.Query(`SELECT build_id, item_key, step, item, kind, round, error, at FROM construct_failures
		WHERE build_id = ? ORDER BY at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("construct: failures of %s in %s: %w", id, s.path, err)
	}
	defer rows.Close()
	var out []Failure
	for rows.Next() {
		var f Failure
		var at int64
		if err := rows.Scan(&f.BuildID, &f.ItemKey, &f.Step, &f.Item, &f.Kind, &f.Round, &f.Error, &at); err != nil {
			return nil, err
		}
		f.At = time.UnixMilli(at)
		out = append(out, f)
	}
	return out, rows.Err()
}

// Build returns the stored build whose id is id or starts with it (at
// least 4 characters).
func (s *Store) Build(id string) (BuildInfo, error) {
	all, err := s.Builds()
	if err != nil {
		return BuildInfo{}, err
	}
	var match []BuildInfo
	for _, b := range all {
		if b.ID == id {
			return b, nil
		}
		if len(id) >= 4 && strings.HasPrefix(b.ID, id) {
			match = append(match, b)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return BuildInfo{}, fmt.Errorf("construct: no build %q in %s", id, s.path)
	}
	return BuildInfo{}, fmt.Errorf("construct: build id %q is ambiguous in %s (%d builds)", id, s.path, len(match))
}
