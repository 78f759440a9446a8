package runstore

import "database/sql"

// What the external tests (package runstore_test, which run runs.Run
// against a store) may see of the store's inside.

// DB is the store's database handle.
func (s *Store) DB() *sql.DB { return s.db }

// Hostname is the host name leases are taken under.
var Hostname = hostname

// Migrations are the schema migrations.
var Migrations = migrations

// Abandon stops renewing the lease without releasing it, as a process
// that dies does.
func (l *Lease) Abandon() {
	close(l.stop)
	<-l.done
}
