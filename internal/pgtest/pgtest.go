// Package pgtest gives a test a PostgreSQL schema of its own on the
// server that MEMLAB_TEST_POSTGRES names, so that the tests of the run
// store and the model-call cache run on their PostgreSQL back end too, in
// parallel packages, without seeing each other's tables.
//
// Without MEMLAB_TEST_POSTGRES a test that needs the server is skipped,
// saying that the PostgreSQL back end is not tested and how to test it;
// with MEMLAB_REQUIRE_POSTGRES=1 (CI sets both) it fails instead, so that a
// lost variable cannot turn the back end's tests into silent skips.
// scripts/postgres-start.sh starts a throwaway server and prints the
// variable.
//
// It is imported by tests only; it must not be imported by non-test code.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// Env names the server's URL (a role that may create schemas in the
// database: its owner); RequireEnv, set to 1, makes a missing Env a
// failure instead of a skip.
const (
	Env        = "MEMLAB_TEST_POSTGRES"
	RequireEnv = "MEMLAB_REQUIRE_POSTGRES"
)

// ServerURL returns the URL of Env, skipping t (failing it under
// RequireEnv) when it is unset.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		msg := "the PostgreSQL back end is NOT tested: " + Env + " is unset (set it to postgres://USER:PASSWORD@HOST:PORT/DB of a role owning DB; " +
			"eval \"$(scripts/postgres-start.sh)\" starts a throwaway server and sets it)"
		if os.Getenv(RequireEnv) == "1" {
			t.Fatal(msg + "; " + RequireEnv + "=1 makes this a failure")
		}
		t.Skip(msg)
	}
	return u
}

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// URL creates a new, empty schema on the server of Env and returns a URL
// whose connections use it (its search_path parameter); the schema and
// everything in it are dropped when the test ends, after the cleanups
// registered later (the stores it opened are closed first). It skips t as
// ServerURL does.
func URL(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	var rnd [4]byte
	rand.Read(rnd[:])
	name := unsafeName.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	schema := "t_" + strings.Trim(name, "_") + "_" + hex.EncodeToString(rnd[:])
	db := Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("pgtest: create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	u, err := WithParam(base, "search_path", schema)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// WithParam returns the URL u with the query parameter name set to value.
func WithParam(u, name, value string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("pgtest: %s is not a URL: %w", Env, err)
	}
	q := p.Query()
	q.Set(name, value)
	p.RawQuery = q.Encode()
	return p.String(), nil
}

// Admin returns a connection pool to the database of Env, closed when the
// test ends; it skips t as ServerURL does.
func Admin(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", ServerURL(t))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db
}

// Open returns a connection pool to the schema of u (a URL of URL), closed
// when the test ends: the tables a test's store made, seen from outside.
func Open(t testing.TB, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db
}
