package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// corpusResult is what one snippet did in a session.
type corpusResult struct {
	Got   string // the transcript
	Pass  bool
	Kind  string // "" when it passed; else compile error, internal error, panic, wrong output, timeout
	Cause string // the error's message, normalized (cell and line numbers, names of values left out)
	Cell  int    // the cell that failed (0 for wrong output)
	Msg   string // the full error
	Took  time.Duration
}

// status is the snippet's status line for this result.
func (r corpusResult) status() string {
	if r.Pass {
		return "pass"
	}
	if r.Cause == "" || r.Cause == r.Kind {
		return "fails: " + r.Kind
	}
	return "fails: " + r.Kind + ": " + r.Cause
}

// runSnippet runs s's cells in a fresh session with memlab's symbols and
// builds the transcript the want section is compared with: each cell's
// stdout, then "=> VALUE" for its trailing value; a panic ends the
// transcript with its "panic: ..." message; any other error fails the
// snippet.
func runSnippet(t testing.TB, s *snippet, literal bool) corpusResult {
	sess, err := NewSession(Options{Symbols: []interp.Exports{stdlib.Symbols}, Dir: t.TempDir(), Literal: literal})
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	var b strings.Builder
	res := corpusResult{}
	start := time.Now()
	for i, c := range s.Cells {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r := sess.Exec(ctx, c)
		cancel()
		b.WriteString(r.Stdout)
		if r.Err == nil {
			if r.Value != "" {
				b.WriteString("=> " + r.Value + "\n")
			}
			continue
		}
		var ce *CellError
		if !errors.As(r.Err, &ce) {
			res.Kind, res.Cause, res.Cell, res.Msg = "internal error", "not a *CellError: "+r.Err.Error(), i+1, r.Err.Error()
			break
		}
		if ce.Kind == "panic" {
			b.WriteString(ce.Msg + "\n")
			if !sameTranscript(b.String(), s.Want) {
				res.Kind, res.Cause, res.Cell, res.Msg = "panic", normalizeCause(ce.Msg), i+1, r.Err.Error()
			}
			break
		}
		res.Kind, res.Cause, res.Cell, res.Msg = classify(ce), normalizeCause(ce.Msg), i+1, r.Err.Error()
		break
	}
	res.Got = b.String()
	if res.Kind == "" {
		if sameTranscript(res.Got, s.Want) {
			res.Pass = true
		} else {
			res.Kind = "wrong output"
		}
	}
	res.Took = time.Since(start)
	return res
}

// classify names the kind of a cell error that is not an expected panic.
func classify(ce *CellError) string {
	switch {
	case ce.Kind == "interrupted":
		return "timeout"
	case strings.Contains(ce.Msg, "internal error"):
		return "internal error"
	case ce.Kind == "compile" || ce.Kind == "syntax":
		return "compile error"
	}
	return ce.Kind
}

var (
	causeSelectorRE  = regexp.MustCompile(`undefined selector:? (\w+)\.\w+`)
	causeTypeParamRE = regexp.MustCompile(`undefined type for [A-Z]\w*`)
	causePosRE       = regexp.MustCompile(`^(\d+:\d+: )+`)
	causeInternalRE  = regexp.MustCompile(`internal error "(.*?)"\)`)
	causeNumRE       = regexp.MustCompile(`\b\d+\b`)
)

// normalizeCause shortens an error message to what groups snippets failing
// the same way: positions dropped, numbers become N, an internal error is
// the text of yaegi's panic, other messages lose the hints after the first
// " (" or ";".
func normalizeCause(msg string) string {
	msg = strings.TrimPrefix(msg, "panic: ")
	msg = causePosRE.ReplaceAllString(msg, "")
	if m := causeInternalRE.FindStringSubmatch(msg); m != nil {
		// yaegi failed to compile this code (internal error "..."): keep the panic's text
		msg = m[1]
	} else {
		if i := strings.Index(msg, " ("); i > 0 {
			msg = msg[:i]
		}
		if i := strings.Index(msg, ";"); i > 0 {
			msg = msg[:i]
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	msg = causeSelectorRE.ReplaceAllString(msg, "undefined selector: $1.*")
	msg = causeTypeParamRE.ReplaceAllString(msg, "undefined type for a type parameter")
	if strings.HasPrefix(msg, "not a generic type: func") {
		msg = "not a generic type: func..."
	}
	msg = causeNumRE.ReplaceAllString(msg, "N")
	if len(msg) > 90 {
		msg = msg[:90] + "..."
	}
	return msg
}

// TestCorpus runs every corpus snippet through a Session (Options.Literal
// false: the kernel as it ships) and fails for each snippet whose status is
// "pass" and that fails; snippets recorded as failing that pass now are
// logged, to be flipped. MEMLAB_CORPUS_REPORT=1 also runs the corpus with
// Literal true and prints the markdown table of both (corpusReport);
// MEMLAB_CORPUS_UPDATE=1 rewrites every status line from this run.
func TestCorpus(t *testing.T) {
	all, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("the corpus is empty")
	}
	update := os.Getenv("MEMLAB_CORPUS_UPDATE") == "1"
	fail := t.Errorf
	if update {
		fail = t.Logf // the statuses are being rewritten from this run
	}
	results := map[string]corpusResult{}
	var newly []string
	for _, s := range all {
		r := runSnippet(t, s, false)
		results[s.Name] = r
		if r.Took > time.Second {
			t.Logf("%s (%s.txt:%d) took %v: keep snippets under a second", s.Name, s.File, s.Line, r.Took.Round(time.Millisecond))
		}
		switch {
		case s.wantsPass() && !r.Pass:
			fail("%s (%s.txt:%d) is recorded as passing but fails: %s: %s\ngot:\n%s\nwant:\n%s", s.Name, s.File, s.Line, r.Kind, r.Msg, r.Got, s.Want)
		case !s.wantsPass() && r.Pass:
			newly = append(newly, s.Name)
		case !r.Pass && os.Getenv("MEMLAB_CORPUS_VERBOSE") == "1":
			t.Logf("%s (%s.txt:%d) fails as recorded: %s\n%s\ngot:\n%s\nwant:\n%s", s.Name, s.File, s.Line, r.status(), r.Msg, r.Got, s.Want)
		}
	}
	if len(newly) > 0 {
		t.Logf("%d snippets recorded as failing pass now; flip their status to pass (MEMLAB_CORPUS_UPDATE=1 does): %s", len(newly), strings.Join(newly, ", "))
	}
	if update {
		if err := updateStatuses(all, results); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("MEMLAB_CORPUS_REPORT") == "1" {
		before := map[string]corpusResult{}
		for _, s := range all {
			before[s.Name] = runSnippet(t, s, true)
		}
		fmt.Println(corpusReport(all, before, results))
	}
	passed := 0
	for _, r := range results {
		if r.Pass {
			passed++
		}
	}
	t.Logf("corpus: %d of %d snippets pass (%.0f%%)", passed, len(all), 100*float64(passed)/float64(len(all)))
}

// updateStatuses writes each snippet's observed status into its file.
func updateStatuses(all []*snippet, results map[string]corpusResult) error {
	byFile := map[string][]*snippet{}
	for _, s := range all {
		byFile[s.File] = append(byFile[s.File], s)
	}
	for file, list := range byFile {
		path := filepath.Join(corpusDir, file+".txt")
		_, lines, err := parseCorpusFile(path)
		if err != nil {
			return err
		}
		var out []string
		i := 0
		for _, s := range list {
			for ; i < s.Line; i++ { // up to and with the header
				out = append(out, lines[i])
			}
			out = append(out, "status: "+results[s.Name].status())
			if s.statusAt >= 0 {
				i = s.statusAt + 1 // drop the old status line
			}
		}
		out = append(out, lines[i:]...)
		if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			return fmt.Errorf("corpus: update %s: %w", path, err)
		}
	}
	return nil
}

// corpusReport is the markdown report of a corpus run before (Literal) and
// after: pass rates by category, failures by kind and cause, and one row per
// snippet.
func corpusReport(all []*snippet, before, after map[string]corpusResult) string {
	var b strings.Builder
	rate := func(n, of int) string {
		return fmt.Sprintf("%d/%d (%.0f%%)", n, of, 100*float64(n)/float64(max(of, 1)))
	}
	type tally struct{ n, before, after int }
	cats := map[string]*tally{}
	var catNames []string
	total := tally{}
	beyond := tally{}
	for _, s := range all {
		c := cats[s.File]
		if c == nil {
			c = &tally{}
			cats[s.File] = c
			catNames = append(catNames, s.File)
		}
		for _, t := range []*tally{c, &total} {
			t.n++
			if before[s.Name].Pass {
				t.before++
			}
			if after[s.Name].Pass {
				t.after++
			}
		}
		if s.Go == "" {
			beyond.n++
			if before[s.Name].Pass {
				beyond.before++
			}
			if after[s.Name].Pass {
				beyond.after++
			}
		}
	}
	b.WriteString("## Corpus pass rate\n\n| category | snippets | before (Literal) | after |\n| --- | --- | --- | --- |\n")
	for _, c := range catNames {
		t := cats[c]
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", c, t.n, rate(t.before, t.n), rate(t.after, t.n))
	}
	fmt.Fprintf(&b, "| **all** | %d | %s | %s |\n", total.n, rate(total.before, total.n), rate(total.after, total.n))
	fmt.Fprintf(&b, "| Go 1.22 only | %d | %s | %s |\n", beyond.n, rate(beyond.before, beyond.n), rate(beyond.after, beyond.n))

	for _, side := range []struct {
		name string
		res  map[string]corpusResult
	}{{"before (Literal)", before}, {"after", after}} {
		kinds := map[string]int{}
		causes := map[string][]string{}
		for _, s := range all {
			r := side.res[s.Name]
			if r.Pass {
				continue
			}
			kinds[r.Kind]++
			key := r.Kind
			if r.Cause != "" {
				key += ": " + r.Cause
			}
			causes[key] = append(causes[key], s.Name)
		}
		fmt.Fprintf(&b, "\n## Failures %s by kind\n\n| kind | snippets |\n| --- | --- |\n", side.name)
		for _, k := range sortedKeys(kinds) {
			fmt.Fprintf(&b, "| %s | %d |\n", k, kinds[k])
		}
		fmt.Fprintf(&b, "\n## Failures %s by cause\n\n| cause | n | snippets |\n| --- | --- | --- |\n", side.name)
		keys := sortedKeys(causes)
		sort.SliceStable(keys, func(i, j int) bool { return len(causes[keys[i]]) > len(causes[keys[j]]) })
		for _, k := range keys {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", strings.ReplaceAll(k, "|", `\|`), len(causes[k]), strings.Join(causes[k], ", "))
		}
	}
	b.WriteString("\n## Snippets\n\n| snippet | category | go | before (Literal) | after |\n| --- | --- | --- | --- | --- |\n")
	cell := func(r corpusResult) string {
		if r.Pass {
			return "pass"
		}
		return strings.ReplaceAll(strings.TrimPrefix(r.status(), "fails: "), "|", `\|`)
	}
	for _, s := range all {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.Name, s.File, s.Go, cell(before[s.Name]), cell(after[s.Name]))
	}
	return b.String()
}
