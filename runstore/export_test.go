package runstore

import (
	"context"
	"database/sql"

	"github.com/memlab/memlab/internal/pgdb"
	"github.com/memlab/memlab/internal/sqlitedb"
)

// What the external tests (package runstore_test, which run runs.Run
// against a store) may see of the store's inside.

// DB is the store's database handle.
func (s *Store) DB() *sql.DB { return s.db }

// Exec runs query, written with ? placeholders, in the store's dialect.
func (s *Store) Exec(query string, args ...any) (sql.Result, error) {
	return s.db.Exec(s.q(query), args...)
}

// QueryRow runs query, written with ? placeholders, in the store's
// dialect.
func (s *Store) QueryRow(query string, args ...any) *sql.Row {
	return s.db.QueryRow(s.q(query), args...)
}

// Postgres reports whether the store is on PostgreSQL.
func (s *Store) Postgres() bool { return s.pg }

// Hostname is the host name leases are taken under.
var Hostname = hostname

// Migrations are the schema migrations.
var Migrations = migrations

// OpenAtVersion opens the new store at path (a file or a PostgreSQL URL)
// with the schema of version v only, as an older memlab left it: Open
// migrates it.
func OpenAtVersion(path string, v int) (*Store, error) {
	ctx := context.Background()
	if IsURL(path) {
		db, name, err := pgdb.Open(ctx, path, false)
		if err != nil {
			return nil, err
		}
		if _, err := pgdb.Migrate(ctx, db, "run store", "meta", pgTables, pgMigrations[:v]); err != nil {
			db.Close()
			return nil, err
		}
		return &Store{path: name, db: db, pg: true}, nil
	}
	db, abs, err := sqlitedb.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := sqlitedb.Migrate(ctx, db, "run store", migrations[:v]); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{path: abs, db: db}, nil
}

// Abandon stops renewing the lease without releasing it, as a process
// that dies does.
func (l *Lease) Abandon() {
	close(l.stop)
	<-l.done
}
