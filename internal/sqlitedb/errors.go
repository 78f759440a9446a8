package sqlitedb

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrCorrupt and ErrReadOnly mark (errors.Is) the errors of a file that
// no retry mends: the file is damaged, or it cannot be written.
var (
	ErrCorrupt  = errors.New("corrupt")
	ErrReadOnly = errors.New("read-only")
)

// fileError is an error that Explain classified.
type fileError struct {
	kind error
	msg  string
	err  error
}

func (e *fileError) Error() string        { return e.err.Error() + ": " + e.msg }
func (e *fileError) Unwrap() error        { return e.err }
func (e *fileError) Is(target error) bool { return target == e.kind }

// Explain returns err, from opening, reading or writing the SQLite file at
// abs (a memlab kind: "model-call cache", "run store"), marked with
// ErrCorrupt or ErrReadOnly when that is what it says, followed by a
// sentence naming the file and what to do (fixCorrupt, fixReadOnly). Other
// errors, and nil, are returned as they are.
func Explain(abs, kind string, err error, fixCorrupt, fixReadOnly string) error {
	if err == nil || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrReadOnly) {
		return err
	}
	switch c := primaryCode(err); {
	case IsCorrupt(err):
		return &fileError{ErrCorrupt, fmt.Sprintf("the %s file %s is corrupt: %s", kind, abs, fixCorrupt), err}
	case c == sqlite3.SQLITE_READONLY:
		return &fileError{ErrReadOnly, fmt.Sprintf("the %s file %s is read-only: %s", kind, abs, fixReadOnly), err}
	case c == sqlite3.SQLITE_CANTOPEN || c == sqlite3.SQLITE_PERM || c == sqlite3.SQLITE_IOERR:
		if cause := ReadOnlyCause(abs); cause != nil {
			return &fileError{ErrReadOnly, fmt.Sprintf("the %s file %s is read-only (%v): %s", kind, abs, cause, fixReadOnly), err}
		}
	}
	return err
}

// primaryCode is the primary SQLite result code of err (0 when err is not
// an SQLite error).
func primaryCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// IsCorrupt reports whether err says the file is damaged: SQLITE_CORRUPT
// ("database disk image is malformed") or SQLITE_NOTADB ("file is not a
// database").
func IsCorrupt(err error) bool {
	c := primaryCode(err)
	return c == sqlite3.SQLITE_CORRUPT || c == sqlite3.SQLITE_NOTADB
}

// IsReadOnly reports whether err is SQLite refusing a write to a file it
// opened read-only (SQLITE_READONLY).
func IsReadOnly(err error) bool { return primaryCode(err) == sqlite3.SQLITE_READONLY }

// ReadOnlyCause returns why the SQLite file at abs cannot be written,
// nil when it can: the file (when it exists) cannot be opened for writing,
// or its directory, where SQLite keeps the write-ahead log, takes no new
// file (a read-only file system, missing permission).
func ReadOnlyCause(abs string) error {
	if f, err := os.OpenFile(abs, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if readOnlyErr(err) {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(abs), ".memlab-write-check-*")
	if err != nil {
		if readOnlyErr(err) {
			return err
		}
		return nil
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

func readOnlyErr(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// OpenReadOnly opens the existing SQLite file at path for reading only: no
// schema migration, no write, nothing created. A WAL file on read-only
// media (where SQLite cannot make the shared-memory index a reader needs)
// is opened as immutable, which is exact when the file has no
// write-ahead log left beside it; when it has one (the last process using
// it was killed), that is an error naming the log. It returns the pool
// and the file's absolute path.
func OpenReadOnly(path string) (*sql.DB, string, error) {
	if path == "" {
		return nil, "", errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, "", err
	}
	db, err := openRO(abs, "mode=ro")
	if err == nil {
		return db, abs, nil
	}
	if primaryCode(err) != sqlite3.SQLITE_CANTOPEN {
		return nil, "", err
	}
	// Read-only media: no -shm can be made.
	if fi, serr := os.Stat(abs + "-wal"); serr == nil && fi.Size() > 0 {
		return nil, "", fmt.Errorf("%w; its write-ahead log %s holds transactions a read-only copy cannot read: copy the files to writable storage", err, abs+"-wal")
	}
	db, err2 := openRO(abs, "mode=ro", "immutable=1")
	if err2 != nil {
		return nil, "", err2
	}
	return db, abs, nil
}

// openRO opens abs with the URI parameters params and checks that it
// reads.
func openRO(abs string, params ...string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", readDSN(abs, params...))
	if err != nil {
		return nil, err
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
