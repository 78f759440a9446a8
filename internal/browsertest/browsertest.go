// Package browsertest renders pages in headless Chromium for tests: a page
// given as HTML or a URL becomes a PNG screenshot of a viewport of a given
// size, so a test can compare what a browser shows with what it expects
// (e.g. a figure's SVG with its PNG); a Session clicks, types and presses
// keys through pages as a person would and returns what each showed.
//
// It drives Debian's chromium (/usr/bin/chromium, or $MEMLAB_CHROMIUM)
// through playwright-core, installed by npm in this directory:
//
//	apt-get install -y --no-install-recommends chromium
//	(cd internal/browsertest && npm ci --no-audit --no-fund)
//
// Chromium runs with the network features off (the flags in screenshot.js)
// and a fresh profile per page. A test that needs a browser calls
// Screenshot, which skips the test, saying what is missing, when chromium,
// node or node_modules are absent, and under go test -short.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Chromium returns the browser binary the screenshots use: $MEMLAB_CHROMIUM
// when set, else /usr/bin/chromium.
func Chromium() string {
	if p := os.Getenv("MEMLAB_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// dir is this package's source directory, where screenshot.js and
// node_modules are.
func dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Missing says what a screenshot needs and this machine lacks (chromium,
// node, the npm install), or "" when nothing is missing.
func Missing() string {
	var miss []string
	if _, err := os.Stat(Chromium()); err != nil {
		miss = append(miss, "chromium at "+Chromium()+" (apt-get install -y --no-install-recommends chromium)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		miss = append(miss, "node on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir(), "node_modules", "playwright-core")); err != nil {
		miss = append(miss, "playwright-core (cd internal/browsertest && npm ci --no-audit --no-fund)")
	}
	return strings.Join(miss, "; ")
}

// Screenshot renders page in headless Chromium in a viewport of w x h CSS
// pixels at device scale 1 and returns the PNG screenshot. page is a URL
// (http:, https:, file: or data:) or else an HTML document, written to a
// temporary file first. It skips t under -short or when Missing reports
// something, and fails t when the browser fails (its output in the
// message). A page takes a few seconds: Chromium starts for each.
func Screenshot(t testing.TB, page string, w, h int) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("browsertest: headless Chromium skipped under -short")
	}
	if m := Missing(); m != "" {
		t.Skipf("browsertest: headless Chromium unavailable, missing %s", m)
	}
	if w <= 0 || h <= 0 {
		t.Fatalf("browsertest: viewport %d x %d, want positive sizes", w, h)
	}
	tmp := t.TempDir()
	url := page
	if !isURL(page) {
		p := filepath.Join(tmp, "page.html")
		if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
			t.Fatalf("browsertest: write page: %v", err)
		}
		url = "file://" + p
	}
	out := filepath.Join(tmp, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir(), "screenshot.js"), url, strconv.Itoa(w), strconv.Itoa(h), out)
	cmd.Dir = dir()
	cmd.Env = append(os.Environ(), "MEMLAB_CHROMIUM="+Chromium())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("browsertest: screenshot of %s at %d x %d: %v\n%s", short(page), w, h, err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("browsertest: screenshot of %s: %v", short(page), err)
	}
	return b
}

// isURL reports whether page is a URL rather than an HTML document.
func isURL(page string) bool {
	for _, p := range []string{"http://", "https://", "file://", "data:"} {
		if strings.HasPrefix(page, p) {
			return true
		}
	}
	return false
}

// short names a page in a message: a URL whole, a document by its start.
func short(page string) string {
	if isURL(page) || len(page) <= 60 {
		return strconv.Quote(page)
	}
	return strconv.Quote(page[:60]) + "..."
}

// Step is one action of a Session: exactly one of Goto (a URL), Click (a
// selector: a link or button, waiting up to 30 s for the page it loads),
// Check (a radio button or checkbox), Fill or Select (a selector, with
// Value), Press (a key: "j", "Enter"), Wait (milliseconds, for a page that
// updates itself), Text (record the page's visible text), Eval (a
// JavaScript expression evaluated in the page, its value recorded as JSON
// in Seen.Value: what the page's elements are, e.g. the naturalWidth of
// its images) or Shot (a full-page PNG screenshot to this file).
type Step struct {
	Goto   string `json:"goto,omitempty"`
	Click  string `json:"click,omitempty"`
	Check  string `json:"check,omitempty"`
	Fill   string `json:"fill,omitempty"`
	Select string `json:"select,omitempty"`
	Value  string `json:"value,omitempty"`
	Press  string `json:"press,omitempty"`
	Wait   int    `json:"wait,omitempty"`
	Text   bool   `json:"text,omitempty"`
	Eval   string `json:"eval,omitempty"`
	Shot   string `json:"shot,omitempty"`
}

// Seen is what a page showed after a step: its URL and, for a Text step,
// its visible text (document.body.innerText), for an Eval step the
// expression's value as JSON.
type Seen struct {
	URL   string `json:"url"`
	Text  string `json:"text"`
	Value string `json:"value"`
	Error string `json:"error"`
}

// Session runs steps in one page of headless Chromium with a viewport of
// w x h CSS pixels, as a person would (clicking links, filling forms,
// pressing keys), and returns what the page showed after each step. It
// skips t as Screenshot does, and fails t at the first step that fails
// (a selector that matches nothing within 10 s, a page that does not
// load), naming it.
func Session(t testing.TB, w, h int, steps ...Step) []Seen {
	t.Helper()
	if testing.Short() {
		t.Skip("browsertest: headless Chromium skipped under -short")
	}
	if m := Missing(); m != "" {
		t.Skipf("browsertest: headless Chromium unavailable, missing %s", m)
	}
	tmp := t.TempDir()
	spec, err := json.Marshal(map[string]any{"width": w, "height": h, "steps": steps})
	if err != nil {
		t.Fatalf("browsertest: steps: %v", err)
	}
	in, out := filepath.Join(tmp, "steps.json"), filepath.Join(tmp, "seen.json")
	if err := os.WriteFile(in, spec, 0o644); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir(), "session.js"), in, out)
	cmd.Dir = dir()
	cmd.Env = append(os.Environ(), "MEMLAB_CHROMIUM="+Chromium())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("browsertest: session of %d steps: %v\n%s", len(steps), err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("browsertest: session: %v", err)
	}
	var seen []Seen
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatalf("browsertest: session output %q: %v", b, err)
	}
	for _, s := range seen {
		if s.Error != "" {
			t.Fatalf("browsertest: %s (at %s)", s.Error, s.URL)
		}
	}
	if len(seen) != len(steps) {
		t.Fatalf("browsertest: %d of %d steps ran", len(seen), len(steps))
	}
	return seen
}
