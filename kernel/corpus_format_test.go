package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The corpus of kernel/testdata/corpus: snippets a researcher types in a
// notebook, each a sequence of cells with the output compiled Go gives.
// The format is described in kernel/testdata/corpus/README.md.

const corpusDir = "testdata/corpus"

// snippet is one corpus entry: cells run in one fresh session.
type snippet struct {
	File     string   // file name under corpusDir, without ".txt": the category
	Name     string   // unique name in the corpus
	Line     int      // line of the "-- name --" header in File
	Status   string   // "pass" or "fails: KIND: CAUSE" as recorded
	Go       string   // "" or the Go version the snippet needs beyond 1.22 ("1.23")
	Cells    []string // cell sources, in order
	Want     string   // expected transcript: stdout, "=> value" lines, a "panic: " line
	HasWant  bool     // the snippet has a "// want:" line
	statusAt int      // line index (0-based) of the status line in the file, -1 when absent
	wantFrom int      // line index of the want section's first line
	wantTo   int      // line index one past its last non-blank line
}

// wantsPass reports whether the snippet is recorded as passing.
func (s *snippet) wantsPass() bool { return s.Status == "pass" }

const (
	cellSep  = "// %%"
	wantLine = "// want:"
)

// parseCorpusFile reads one corpus file: text before the first header is a
// description; each "-- name --" header starts a snippet whose first lines
// may be "status: ..." and "go: ..." attributes, then cells separated by
// "// %%" lines, then "// want:" and the expected transcript up to the next
// header (trailing blank lines dropped).
func parseCorpusFile(path string) ([]*snippet, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: read %s: %w", path, err)
	}
	lines := strings.Split(string(data), "\n")
	file := strings.TrimSuffix(filepath.Base(path), ".txt")
	var out []*snippet
	var cur *snippet
	var cell []string
	var want []string
	inWant, inAttrs := false, false
	flush := func() {
		if cur == nil {
			return
		}
		if inWant {
			for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
				want = want[:len(want)-1]
			}
			cur.wantTo = cur.wantFrom + len(want)
			cur.Want = strings.Join(want, "\n")
			if cur.Want != "" {
				cur.Want += "\n"
			}
		} else {
			cur.Cells = append(cur.Cells, strings.Join(cell, "\n"))
		}
		out = append(out, cur)
	}
	for i, l := range lines {
		if name, ok := headerName(l); ok {
			flush()
			cur = &snippet{File: file, Name: name, Line: i + 1, statusAt: -1}
			cell, want = nil, nil
			inWant, inAttrs = false, true
			continue
		}
		if cur == nil {
			continue // description
		}
		if inAttrs {
			if v, ok := strings.CutPrefix(l, "status:"); ok {
				cur.Status = strings.TrimSpace(v)
				cur.statusAt = i
				continue
			}
			if v, ok := strings.CutPrefix(l, "go:"); ok {
				cur.Go = strings.TrimSpace(v)
				continue
			}
			inAttrs = false
		}
		switch {
		case inWant:
			want = append(want, l)
		case strings.TrimSpace(l) == wantLine:
			cur.Cells = append(cur.Cells, strings.Join(cell, "\n"))
			cur.HasWant = true
			cur.wantFrom = i + 1
			inWant = true
		case strings.TrimSpace(l) == cellSep:
			cur.Cells = append(cur.Cells, strings.Join(cell, "\n"))
			cell = nil
		default:
			cell = append(cell, l)
		}
	}
	flush()
	return out, lines, nil
}

// headerName returns the name of a "-- name --" line.
func headerName(l string) (string, bool) {
	if !strings.HasPrefix(l, "-- ") || !strings.HasSuffix(l, " --") || len(l) < 7 {
		return "", false
	}
	return strings.TrimSpace(l[3 : len(l)-3]), true
}

// loadCorpus reads every file of the corpus, in name order, and checks that
// names are unique and every snippet has cells and a want section.
func loadCorpus() ([]*snippet, error) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("corpus: glob %s: %w", corpusDir, err)
	}
	sort.Strings(files)
	var all []*snippet
	seen := map[string]string{}
	for _, f := range files {
		sn, _, err := parseCorpusFile(f)
		if err != nil {
			return nil, err
		}
		for _, s := range sn {
			where := fmt.Sprintf("%s:%d", f, s.Line)
			if prev, dup := seen[s.Name]; dup {
				return nil, fmt.Errorf("corpus: %s: snippet %q already defined at %s", where, s.Name, prev)
			}
			seen[s.Name] = where
			if !s.HasWant {
				return nil, fmt.Errorf("corpus: %s: snippet %q has no %q line", where, s.Name, wantLine)
			}
			if s.Status != "pass" && !strings.HasPrefix(s.Status, "fails") {
				return nil, fmt.Errorf("corpus: %s: snippet %q: status %q is neither \"pass\" nor \"fails: ...\"", where, s.Name, s.Status)
			}
			for j, c := range s.Cells {
				if strings.TrimSpace(c) == "" {
					return nil, fmt.Errorf("corpus: %s: snippet %q: cell %d is empty", where, s.Name, j+1)
				}
			}
			all = append(all, s)
		}
	}
	return all, nil
}

// rewriteWants replaces the want sections of the snippets named in outs
// (all in one file) with those outputs.
func rewriteWants(path string, list []*snippet, outs map[string]string) error {
	_, lines, err := parseCorpusFile(path)
	if err != nil {
		return err
	}
	var res []string
	i := 0
	for _, s := range list {
		out, ok := outs[s.Name]
		if !ok {
			continue
		}
		res = append(res, lines[i:s.wantFrom]...)
		if t := strings.TrimRight(out, "\n"); t != "" {
			res = append(res, strings.Split(t, "\n")...)
		}
		i = s.wantTo
	}
	res = append(res, lines[i:]...)
	if err := os.WriteFile(path, []byte(strings.Join(res, "\n")), 0o644); err != nil {
		return fmt.Errorf("corpus: rewrite wants of %s: %w", path, err)
	}
	return nil
}
