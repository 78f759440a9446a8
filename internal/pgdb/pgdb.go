// Package pgdb opens memlab's PostgreSQL databases (the run store and the
// model-call cache on a server a team shares) the same way: pgx's
// database/sql driver (github.com/jackc/pgx/v5/stdlib), credentials from
// the URL or from libpq's environment (PGPASSWORD, PGPASSFILE or
// ~/.pgpass, PGSERVICE and PGSERVICEFILE: pgx reads them as libpq does), a
// name for messages and pages with the password removed (Redact), sessions
// that are read-only when asked, and a versioned schema brought up to date
// by numbered migrations in one transaction, under an advisory lock so
// that two processes opening a new database at once do not both create
// it. It is package sqlitedb's counterpart.
//
// Tables live in the connection's current schema (the first existing one
// of its search_path, "public" by default): a URL's search_path parameter
// (postgres://host/db?search_path=lab) keeps several stores in one
// database apart.
package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/memlab/memlab/internal/sqlitedb"
)

// ConnectTimeout bounds Open's first connection (a server that does not
// answer).
const ConnectTimeout = 30 * time.Second

// IsURL reports whether s names a PostgreSQL database: a URL whose scheme
// is postgres or postgresql (any case). Anything else is a file path.
func IsURL(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	scheme = strings.ToLower(scheme)
	return scheme == "postgres" || scheme == "postgresql"
}

// Redact returns the URL u without its credentials, fit to print, log and
// show in pages: the password of the userinfo is dropped (the user name
// stays, so that `-store` with it and PGPASSWORD or ~/.pgpass connects as
// the same role), and so are the values of the query parameters that hold
// one (password, sslpassword). Host, port, database and the other
// parameters stay. It works on text pgx would refuse, too (it never
// parses the URL strictly), so that an error about a bad URL can name it.
func Redact(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	head, rest := u[:i+3], u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		user := auth[:at]
		if c := strings.Index(user, ":"); c >= 0 {
			user = user[:c]
		}
		if user == "" {
			auth = auth[at+1:]
		} else {
			auth = user + auth[at:]
		}
	}
	if q := strings.Index(tail, "?"); q >= 0 {
		query, frag := tail[q+1:], ""
		if h := strings.Index(query, "#"); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		parts := strings.Split(query, "&")
		for j, p := range parts {
			name, _, _ := strings.Cut(p, "=")
			if n := strings.ToLower(name); n == "password" || n == "sslpassword" {
				parts[j] = name + "=***"
			}
		}
		tail = tail[:q+1] + strings.Join(parts, "&") + frag
	}
	return head + auth + tail
}

// redactedError is an error whose message had a password removed: it
// matches what the original matched with errors.Is, and does not unwrap to
// it, so that the original message cannot be printed.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// hide returns err with every occurrence of password (when not empty)
// and the credentials of the URL url replaced.
func hide(err error, url, password string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if url != "" {
		msg = strings.ReplaceAll(msg, url, Redact(url))
	}
	if password != "" {
		msg = strings.ReplaceAll(msg, password, "***")
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, orig: err}
}

// Open connects to the PostgreSQL database of url (postgres://...), with
// sessions that refuse every write when readOnly (the server's
// default_transaction_read_only), and checks that it answers. It returns
// the pool and url without its password (Redact). The caller sizes the
// pool. No error it returns holds the password, whether it came in the URL
// or from the environment.
func Open(ctx context.Context, url string, readOnly bool) (*sql.DB, string, error) {
	name := Redact(url)
	if !IsURL(url) {
		return nil, name, fmt.Errorf("%s is not a postgres:// or postgresql:// URL", name)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, name, hide(err, url, "")
	}
	password := cfg.Password
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "memlab"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, name, hide(err, url, password)
	}
	return db, name, nil
}

// IsReadOnly reports whether err is PostgreSQL refusing a write in a
// read-only transaction (SQLSTATE 25006), as it does in the sessions of
// Open(..., true) and on a hot standby.
func IsReadOnly(err error) bool { return sqlState(err) == "25006" }

// sqlState is the SQLSTATE of err, "" when it is not a server error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// IsUniqueViolation reports whether err is a unique or primary key
// violation (SQLSTATE 23505).
func IsUniqueViolation(err error) bool { return sqlState(err) == "23505" }

// classified is an error that Explain classified.
type classified struct {
	kind error
	msg  string
	err  error
}

func (e *classified) Error() string        { return e.err.Error() + ": " + e.msg }
func (e *classified) Unwrap() error        { return e.err }
func (e *classified) Is(target error) bool { return target == e.kind }

// Explain returns err, from the database named name (Redact's) holding a
// memlab kind ("run store", "model-call cache"), marked with
// sqlitedb.ErrReadOnly when the server refused a write because the session
// or the server is read-only, followed by a sentence naming the database
// and what to do (fixReadOnly); and marked with sqlitedb.ErrFull when the
// server's disk is full (SQLSTATE 53100). Other errors, and nil, are
// returned as they are.
func Explain(name, kind string, err error, fixReadOnly string) error {
	if err == nil || errors.Is(err, sqlitedb.ErrReadOnly) {
		return err
	}
	switch sqlState(err) {
	case "25006":
		return &classified{sqlitedb.ErrReadOnly, fmt.Sprintf("the %s database %s is read-only: %s", kind, name, fixReadOnly), err}
	case "53100":
		return &classified{errFull, fmt.Sprintf("the disk of the %s database %s is full", kind, name), err}
	}
	return err
}

// errFull marks a full disk; only its message is used.
var errFull = errors.New("database or disk is full")

// ReadCommitted is the isolation of every write transaction: each
// statement sees what was committed before it began, so that a statement
// run after a lock is taken (an advisory lock, SELECT ... FOR UPDATE) sees
// the state that lock protects. A database whose default isolation is
// repeatable read or serializable would otherwise read a snapshot taken
// before the lock.
var ReadCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

// lockKey is the advisory lock of the schema migrations of kind in the
// current schema.
const lockKey = `hashtextextended('memlab schema of ' || $1 || ' in ' || current_schema(), 0)`

// Migrate brings the schema of kind ("run store", "cache") in the
// connection's current schema to len(migrations), in one transaction
// holding an advisory lock, so that two processes opening a new database
// at once do not both create it. migrations[v] upgrades from version v to
// v+1 (one or more statements); version 0 is a schema without the kind's
// tables. The version lives in the table meta (name, value) under
// "schema_version". tables are the kind's tables (meta among them): when
// some exist but not meta, the schema holds something else under those
// names, an error; tables of other names (another kind, another program)
// are left alone. It returns the version the schema had before.
func Migrate(ctx context.Context, db *sql.DB, kind, meta string, tables []string, migrations []string) (int, error) {
	target := len(migrations)
	tx, err := db.BeginTx(ctx, ReadCommitted)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if err := checkSchema(ctx, tx); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(`+lockKey+`)`, kind); err != nil {
		return 0, fmt.Errorf("lock the schema: %w", err)
	}
	version, err := schemaVersion(ctx, tx, kind, meta, tables)
	if err != nil {
		return 0, err
	}
	if version > target {
		return version, fmt.Errorf("schema version %d is newer than this memlab's %d: use a newer memlab or another %s database (or schema)", version, target, kind)
	}
	if version == target {
		return version, nil
	}
	if version == 0 {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+meta+` (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`); err != nil {
			return 0, err
		}
	}
	for v := version; v < target; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return version, fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO `+meta+`(name, value) VALUES ('schema_version', $1)
		ON CONFLICT(name) DO UPDATE SET value = excluded.value`, strconv.Itoa(target))
	if err != nil {
		return version, err
	}
	return version, tx.Commit()
}

// checkSchema fails when the connection has no current schema (its
// search_path names none that exists).
func checkSchema(ctx context.Context, q queryer) error {
	var schema sql.NullString
	var path string
	if err := q.QueryRowContext(ctx, `SELECT current_schema(), current_setting('search_path')`).Scan(&schema, &path); err != nil {
		return err
	}
	if !schema.Valid {
		return fmt.Errorf("no schema to keep the tables in: the search_path (%s) names no schema that exists; create it (CREATE SCHEMA) or fix the URL's search_path", path)
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SchemaVersion reads the schema version of kind in the connection's
// current schema without writing: 0 when none of its tables is there.
// meta and tables are as for Migrate.
func SchemaVersion(ctx context.Context, db *sql.DB, kind, meta string, tables []string) (int, error) {
	if err := checkSchema(ctx, db); err != nil {
		return 0, err
	}
	return schemaVersion(ctx, db, kind, meta, tables)
}

func schemaVersion(ctx context.Context, q queryer, kind, meta string, tables []string) (int, error) {
	var hasMeta, ours int
	err := q.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE c.relname = $1), count(*)
		FROM pg_catalog.pg_class c
		WHERE c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = current_schema())
		AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname = ANY($2)`, meta, tables).Scan(&hasMeta, &ours)
	if err != nil {
		return 0, err
	}
	if hasMeta == 0 {
		if ours > 0 {
			return 0, fmt.Errorf("not a memlab %s: the schema has tables of its names (%s) but no %s table", kind, strings.Join(tables, ", "), meta)
		}
		return 0, nil
	}
	var v string
	if err := q.QueryRowContext(ctx, `SELECT value FROM `+meta+` WHERE name = 'schema_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	version, err := strconv.Atoi(v)
	if err != nil || version < 0 {
		return 0, fmt.Errorf("bad schema version %q in the %s table", v, meta)
	}
	return version, nil
}

// Rebind turns the ? placeholders of query into PostgreSQL's $1, $2, ...
// (outside quoted strings and identifiers), so that one query text serves
// SQLite and PostgreSQL.
func Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
