// Package runstore is the run store: an SQLite file (WAL, safe for several
// goroutines and processes) that keeps every run's spec and every
// question's record as the question completes, so that a killed run
// resumes where it stopped and a finished one makes no model call.
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
// rejudge's). The store also keeps each run's code version, sessions, wall
// time, spending (retrieval.Meter) and the history of failed attempts.
//
// # Dependencies
//
// runstore imports record (what it stores) and the SQLite layer
// (internal/sqlitedb). It must not import runs, reports, formats, display
// or kernel: runs executes against a store, never the reverse.
package runstore
