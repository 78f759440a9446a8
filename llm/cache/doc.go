// Package cache is memlab's durable, content-addressed cache of model calls:
// one SQLite file (modernc.org/sqlite, pure Go), or the tables cache_meta
// and cache_entries of a PostgreSQL database (Open with a postgres:// URL),
// that maps a key derived from everything that shapes a model's answer to
// the answer's bytes. Every model
// call of memlab goes through it, so a rerun of a finished notebook makes no
// model call at all.
//
// The package stores opaque bytes: it knows nothing of chat or embedding
// requests, so package llm can import it. llm decides what a request and a
// response look like; this package decides how they are keyed, stored,
// shared between concurrent callers and reported.
//
// # Keys
//
// [Key] is the hex SHA-256 of [Canonical] JSON of a value the caller builds
// from the output-affecting fields of a call only: model and endpoint
// identity, messages or inputs, sampling parameters (temperature, top-p,
// max tokens, seed, stop), response format and schema, and any sample or
// epoch index. Timeouts, retry counts, concurrency limits and API keys must
// never be part of it: they do not change the answer, and a key must never
// be written to disk. The same value passed to [Canonical] is what callers
// store as [Entry.Request] for debugging.
//
// # Durability
//
// The file is opened in WAL mode with synchronous=NORMAL. A [Cache.Put]
// returns only after its transaction committed to the write-ahead log, so
// every completed Put survives the process being killed (kill -9, a panic,
// an OOM kill): the package's crash test kills a writer mid-stream and finds
// every acknowledged entry intact. Only a power loss or an operating-system
// crash can lose the most recent commits (NORMAL does not fsync the log on
// each commit); the file itself stays consistent even then, and a lost entry
// only costs one repeated model call.
//
// # Concurrency
//
// A [Cache] is safe for use by many goroutines. Reads run in parallel on a
// small connection pool; writes are serialized inside the process (SQLite
// has one writer at a time), so goroutines never see SQLITE_BUSY from each
// other. Several processes may open the same file: they wait for each other
// through SQLite's busy timeout.
//
// [Cache.Do] is the get-or-call entry point: it serves a stored entry, or
// runs the caller's fill function once however many goroutines ask for the
// same key at the same time, stores a successful result, and shares it.
// Errors are never cached.
//
// # Hits
//
// Each entry counts how often it was served without a model call (by Get,
// or by Do to callers that shared another caller's fill). To keep hits
// parallel reads, the counts are kept in memory and written in one
// transaction every 256 hits or 5 s (checked on the next hit), and by
// Stats, Clear and Close. A killed process loses its unwritten hit counts,
// never an entry.
//
// # Damage and read-only media
//
// An error that comes from the file rather than from a call is marked:
// [ErrCorrupt] when SQLite finds the file damaged (the message names it and
// says to run `memlab cache clear`, which removes a damaged file), and
// [ErrReadOnly] when it cannot be written. Neither is a model failure: the
// llm client's per-question tallies report them (llm.Tally.CacheError) and
// a run stops on them instead of recording failed questions. [OpenReadOnly]
// reads a cache on read-only media (`memlab cache stats`).
//
// # PostgreSQL
//
// With a postgres:// or postgresql:// URL the cache lives in the
// connection's current schema, beside a run store if one is there: the
// same keys, entries, hit counting and coalescing of calls in flight (in
// each process; two processes may still both fill a key, and the first
// Put wins). Every Put is a committed transaction on the server (its
// synchronous_commit, on by default, puts it on the server's disk before
// Put returns). Hits are flushed in key order so that two processes never
// deadlock on each other's rows. Clear deletes rows and leaves the space
// to autovacuum. OpenReadOnly's sessions are read-only on the server.
//
// # Schema
//
// The file holds a meta table with the schema version and an entries table
// (key, kind, model, endpoint, request, response, token counts, latency,
// creation time, hit count). Opening a file written by a newer memlab with
// an unknown schema version is an error rather than a silent downgrade.
package cache
