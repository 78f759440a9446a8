package main

import (
	"strings"
	"testing"
)

// TestDryRunAsksNothingOutsideRuns is issue 15's item 4: a notebook that
// embeds (a dense index) and chats before runs.Run, run under -dry-run
// with every role on the fake server. The server receives no request at
// all; the run's estimate is printed with the calls refused outside it
// and one total, and the last line, on exit 0, is that total, not a panic.
func TestDryRunAsksNothingOutsideRuns(t *testing.T) {
	srv := fakeServer(t)
	dir := t.TempDir()
	code, out, stderr := memlab(t, "run", "-dry-run", "-quiet", "-o", dir, "testdata/dryrun_embed.go")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	if st := srv.Stats(); st.Total != 0 {
		t.Errorf("the dry run sent %d requests to the endpoint: %v", st.Total, st.ByPath)
	}
	for _, want := range []string{"naive rag not built:", "no_calls", "chat before the run: llm: no_calls",
		"| outside runs (refused) |", "| total |"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// The sample's 91 traces of p01_en in batches of 64: the first corpus's
	// index is refused whole (2 calls), then the chat.
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "dry run total") || strings.Contains(strings.ToLower(last), "panic") {
		t.Errorf("last line %q: want the dry run's total", last)
	}
	if strings.Contains(stderr, "panic") {
		t.Errorf("stderr reads like a panic on exit 0:\n%s", stderr)
	}
}

// TestDryRunReachesTheWorkerProcess: a dry run is a property of the
// process and of the worker processes it starts (they inherit
// MEMLAB_DRY_RUN): the notebook run in a worker sends nothing either, and
// the worker reports what it refused.
func TestDryRunReachesTheWorkerProcess(t *testing.T) {
	srv := fakeServer(t)
	t.Setenv("MEMLAB_DRY_RUN", "1")
	code, out, stderr := memlab(t, "run", "-no-store", "-quiet", "-o", t.TempDir(), "testdata/dryrun_embed.go")
	// The last cell fails (no records): outside -dry-run that is an error.
	if code != 1 || !strings.Contains(out, "chat before the run: llm: no_calls") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if st := srv.Stats(); st.Total != 0 {
		t.Errorf("the worker sent %d requests to the endpoint: %v", st.Total, st.ByPath)
	}
	if !strings.Contains(stderr, "model calls refused by the dry run in this process:") || !strings.Contains(stderr, "role embedder") {
		t.Errorf("stderr does not report the refused calls:\n%s", stderr)
	}
}
