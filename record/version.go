package record

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// CodeVersion describes the running code: the main module's version and,
// when the binary was built with VCS stamping (go build's default), the
// revision, its time and "+dirty" for uncommitted changes, e.g.
// "(devel) a59c319e4f0a 2026-11-29T19:35:00Z +dirty". Without stamping
// (go run, -buildvcs=false) it asks git about the source tree the code was
// compiled from, when that tree is still there: "(devel) git:a59c319e4f0a
// +dirty". It is recorded with every run and record, not part of the run id.
func CodeVersion() string {
	codeVersionOnce.Do(func() { codeVersion = readCodeVersion() })
	return codeVersion
}

var (
	codeVersionOnce sync.Once
	codeVersion     string
)

func readCodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	parts := []string{bi.Main.Version}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		rev, dirty = gitRevision()
	}
	for _, p := range []string{rev, at, dirty} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	v := strings.TrimSpace(strings.Join(parts, " "))
	if v == "" {
		return "unknown"
	}
	return v
}

// gitRevision asks git for the revision and state of the tree this file
// was compiled from ("", "" when git or the tree is not there).
func gitRevision() (rev, dirty string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", ""
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(dir); err != nil {
		return "", ""
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", ""
	}
	rev = strings.TrimSpace(string(out))
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "", ""
	}
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		dirty = "+dirty"
	}
	return "git:" + rev, dirty
}
