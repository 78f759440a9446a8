// Package runstore is the run store: an SQLite file (WAL, safe for several
// goroutines and processes) or a PostgreSQL database (shared by the
// processes of several machines) that keeps every run's spec and every
// question's record as the question completes, so that a killed run
// resumes where it stopped and a finished one makes no model call.
//
// Open and OpenReadOnly take a file path or a postgres:// (postgresql://)
// URL (IsURL): one Store type, whose queries are written once and rebound
// to PostgreSQL's placeholders, with each back end's migrations to the
// same schema versions (PostgreSQL's in BIGINT, TEXT and DOUBLE
// PRECISION columns, ids compared byte by byte). On PostgreSQL a lease is
// taken in a read-committed transaction holding an advisory lock on the
// run id (two processes starting a new run at once) and the run's row
// (FOR UPDATE), its heartbeat is the server's clock (the machines' clocks
// may disagree), and a read-only store's sessions refuse every write.
// Path names the URL without its password.
//
// Open creates or migrates a store (SchemaVersion; older files are
// migrated, newer ones refused; schema 3 keeps each record's JSON format,
// and Open rewrites the records of format 1, judge values and verdicts
// apart, in record.JSONFormat, one list of scores), OpenReadOnly reads one
// on read-only media.
// Runs, Run (by id, id prefix or label), Records, Failures and Delete read
// and manage what it holds. A run being executed holds a Lease (Begin,
// Release): another live process cannot run the same run at once, and a
// dead holder's lease is taken over. Load, Put and Rewrite are the
// executing side's reads and writes (package runs uses them; Rewrite is a
// rejudge's; Lease.Put checks that the lease still holds). The store also
// keeps each run's code version, sessions, wall time, spending
// (retrieval.Meter) and the history of failed attempts.
//
// # The work queue
//
// A run can instead be done by many workers at once (queue.go): Enqueue
// records it with its Job (how a worker rebuilds it: catalog spec
// strings, k, parameters, the dataset's path, no secret) and its work
// items (a question, or a persona's questions), and a Claimer claims
// items in short read-committed transactions (on PostgreSQL FOR UPDATE
// SKIP LOCKED, so no item is claimed twice and no claimer waits for
// another; the runs of the largest items first), renews every claim it
// holds in one statement every lease/3 on the server's clock, and a
// Claim writes its records (Put) and finishes (Done) in transactions that
// check the claim still holds, fenced by the item's claim count: a worker
// whose lease ran out and whose item another took writes nothing more
// (ErrClaimLost). The items of a worker that dies are claimed again once
// its lease runs out. A run is worked either through Begin or through
// the queue, never both (claims take the run's advisory lock shared,
// Begin exclusive, and each sees the other). On SQLite the file's write
// lock serializes the claims: the workers of one machine.
//
// # Dependencies
//
// runstore imports record (what it stores) and the database layers
// (internal/sqlitedb, internal/pgdb on pgx). It must not import runs, reports, formats, display
// or kernel: runs executes against a store, never the reverse.
package runstore
