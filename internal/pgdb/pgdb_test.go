package pgdb

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/pgtest"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:s3cret@h:5432/db?sslmode=disable":          "postgres://u@h:5432/db?sslmode=disable",
		"postgresql://u@h/db":                                    "postgresql://u@h/db",
		"postgres://:only-pw@h/db":                               "postgres://h/db",
		"postgres://u:p@ss:w@rd@h/db":                            "postgres://u@h/db",
		"postgres://h/db?password=s3cret&search_path=lab":        "postgres://h/db?password=***&search_path=lab",
		"postgres://u:s3cret@h1:5432,h2:5433/db?sslpassword=k#x": "postgres://u@h1:5432,h2:5433/db?sslpassword=***#x",
		"postgres://u:s3cret@h":                                  "postgres://u@h",
		"/var/lib/memlab/runs.db":                                "/var/lib/memlab/runs.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(Redact(in), "s3cret") {
			t.Errorf("Redact(%q) keeps the password", in)
		}
	}
}

func TestIsURL(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://h/db": true, "POSTGRESQL://h/db": true, "postgres:///db?service=x": true,
		"runs.db": false, "/tmp/postgres://x": false, "sqlite://x": false, "": false,
	} {
		if IsURL(s) != want {
			t.Errorf("IsURL(%q) = %v", s, !want)
		}
	}
}

func TestRebind(t *testing.T) {
	got := Rebind(`SELECT '?', "a?" FROM t WHERE a = ? AND b IN (?, ?) AND c = '{"x":?}'`)
	want := `SELECT '?', "a?" FROM t WHERE a = $1 AND b IN ($2, $3) AND c = '{"x":?}'`
	if got != want {
		t.Errorf("Rebind = %s\nwant     %s", got, want)
	}
}

// serverParts splits the test server's URL into the URL without its
// password and the password.
func serverParts(t *testing.T) (*url.URL, string) {
	t.Helper()
	u, err := url.Parse(pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok {
		t.Skip(pgtest.Env + " has no password: the credentials from the environment cannot be told apart from the URL's")
	}
	u.User = url.User(u.User.Username())
	return u, pw
}

// TestCredentialsFromTheEnvironment: a URL without a password connects
// with the password of PGPASSWORD, of a password file (PGPASSFILE, as
// ~/.pgpass) or of a service file (PGSERVICEFILE with the URL's service);
// without any, the server refuses, and no error holds a password.
func TestCredentialsFromTheEnvironment(t *testing.T) {
	ctx := context.Background()
	bare, pw := serverParts(t)
	for _, k := range []string{"PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "PGSERVICE", "PGUSER", "PGHOST", "PGPORT", "PGDATABASE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir) // no ~/.pgpass of the machine's user
	open := func(u string) error {
		db, name, err := Open(ctx, u, false)
		if err == nil {
			db.Close()
		}
		if strings.Contains(name, pw) || err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("the password reached a name or an error: %q %v", name, err)
		}
		return err
	}
	if err := open(bare.String()); err == nil {
		t.Fatal("the server took a connection without a password: nothing below is tested")
	}

	t.Setenv("PGPASSWORD", pw)
	if err := open(bare.String()); err != nil {
		t.Errorf("PGPASSWORD: %v", err)
	}
	os.Unsetenv("PGPASSWORD")

	passfile := filepath.Join(dir, "pgpass")
	line := strings.Join([]string{bare.Hostname(), bare.Port(), strings.TrimPrefix(bare.Path, "/"), bare.User.Username(), pw}, ":")
	if err := os.WriteFile(passfile, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", passfile)
	if err := open(bare.String()); err != nil {
		t.Errorf("PGPASSFILE: %v", err)
	}
	os.Unsetenv("PGPASSFILE")

	service := filepath.Join(dir, "pg_service.conf")
	conf := "[memlab_test]\nhost=" + bare.Hostname() + "\nport=" + bare.Port() + "\ndbname=" + strings.TrimPrefix(bare.Path, "/") +
		"\nuser=" + bare.User.Username() + "\npassword=" + pw + "\n"
	if mode := bare.Query().Get("sslmode"); mode != "" {
		conf += "sslmode=" + mode + "\n"
	}
	if err := os.WriteFile(service, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGSERVICEFILE", service)
	if err := open("postgres:///?service=memlab_test"); err != nil {
		t.Errorf("PGSERVICEFILE and service=: %v", err)
	}
}

// TestOpenErrorsHideThePassword: a URL pgx cannot parse, a server that
// does not answer and a wrong password are errors that name the URL
// without its password.
func TestOpenErrorsHideThePassword(t *testing.T) {
	const pw = "sentinel-pw-3e9b-never-print"
	ctx := context.Background()
	for _, u := range []string{
		"postgres://u:" + pw + "@127.0.0.1:notaport/db",
		"postgres://u:" + pw + "@127.0.0.1:1/db?connect_timeout=2",
		"postgres://u:" + pw + "@127.0.0.1:1/db?sslmode=bogus",
	} {
		_, name, err := Open(ctx, u, false)
		if err == nil {
			t.Errorf("%s: opened", name)
			continue
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(name, pw) {
			t.Errorf("the password is in %q: %v", name, err)
		}
	}
	if os.Getenv(pgtest.Env) == "" {
		return
	}
	bare, _ := serverParts(t)
	bare.User = url.UserPassword(bare.User.Username(), pw)
	_, _, err := Open(ctx, bare.String(), false)
	if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("a wrong password: %v", err)
	}
}

// TestMigrateOnAnEmptySearchPath: a URL whose search_path names no
// schema that exists is an error saying so, not tables made elsewhere.
func TestMigrateOnAnEmptySearchPath(t *testing.T) {
	base := pgtest.ServerURL(t)
	u, err := pgtest.WithParam(base, "search_path", "no_such_schema_7c1d")
	if err != nil {
		t.Fatal(err)
	}
	db, _, err := Open(context.Background(), u, false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = Migrate(context.Background(), db, "run store", "meta", []string{"meta"}, []string{`CREATE TABLE x (y INTEGER)`})
	if err == nil || !strings.Contains(err.Error(), "no_such_schema_7c1d") {
		t.Errorf("migrate with a search_path of no schema: %v", err)
	}
}
