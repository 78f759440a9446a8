package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
)

// memlabModulePath is memlab's module path.
const memlabModulePath = "github.com/memlab/memlab"

// findMemlabSource returns the root of memlab's source that `kernel
// extend` builds from, in this order: flagSrc (-src) when given; else
// $MEMLAB_SRC; else the directory this binary was compiled from (a
// checkout for a development build, the module cache for `go install
// ...@VERSION`, the replaced directory for a binary kernel extend built),
// when it is still there; else the module of the binary's version, which
// go mod download fetches into the module cache. A directory is memlab's
// source when its go.mod declares memlab's module. The error says what was
// tried and to pass -src.
func findMemlabSource(flagSrc string) (string, error) {
	if flagSrc != "" {
		if err := isMemlabRoot(flagSrc); err != nil {
			return "", fmt.Errorf("-src %s: %w", flagSrc, err)
		}
		return filepath.Abs(flagSrc)
	}
	if d := os.Getenv("MEMLAB_SRC"); d != "" {
		if err := isMemlabRoot(d); err != nil {
			return "", fmt.Errorf("$MEMLAB_SRC %s: %w", d, err)
		}
		return filepath.Abs(d)
	}
	var tried []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		d := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if isMemlabRoot(d) == nil {
			return d, nil
		}
		tried = append(tried, "the directory it was built from, "+d+", is not there")
	} else {
		tried = append(tried, "it was built with -trimpath, which drops the directory it was built from")
	}
	v := memlabVersion()
	switch {
	case v == "" || v == "(devel)" || strings.Contains(v, "+"):
		tried = append(tried, fmt.Sprintf("its version %q is not a published version of %s", v, memlabModulePath))
	default:
		d, err := downloadModule(memlabModulePath + "@" + v)
		if err == nil && isMemlabRoot(d) == nil {
			return d, nil
		}
		tried = append(tried, fmt.Sprintf("go mod download %s@%s: %v", memlabModulePath, v, err))
	}
	return "", fmt.Errorf("cannot find memlab's source, which kernel extend builds from: %s; pass -src DIR "+
		"(a checkout of %s, best at this binary's version) or set MEMLAB_SRC", strings.Join(tried, "; "), memlabModulePath)
}

var moduleLineRE = regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?\s*$`)

// isMemlabRoot returns nil when dir holds a go.mod of memlab's module.
func isMemlabRoot(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("not memlab's source: %w", err)
	}
	m := moduleLineRE.FindSubmatch(b)
	if m == nil || string(m[1]) != memlabModulePath {
		return fmt.Errorf("not memlab's source: its go.mod is not that of module %s", memlabModulePath)
	}
	return nil
}

// memlabVersion is the version of memlab's module this binary was built
// from: the main module's, or that of the dependency (a binary kernel
// extend built), "" when unknown.
func memlabVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if bi.Main.Path == memlabModulePath {
		return bi.Main.Version
	}
	for _, m := range bi.Deps {
		if m.Path == memlabModulePath {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}

// downloadModule runs go mod download for mod (PATH@VERSION) and returns
// its directory in the module cache.
func downloadModule(mod string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = os.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(o.Bytes(), &info)
	if info.Error != "" {
		return "", fmt.Errorf("%s", info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(e.String()))
	}
	return info.Dir, nil
}
