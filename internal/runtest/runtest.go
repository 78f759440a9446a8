// Package runtest holds the fixtures shared by the tests of runs, runstore,
// reports and formats: the bundled sample with a flat BM25 system, a tiny
// one-persona dataset, a run store in a temporary directory, a model client
// on the fake OpenAI-compatible server, and a comparison of records that
// ignores what a rerun may change (latency, cache hits).
//
// It is imported by tests only; it must not be imported by non-test code.
package runtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// SampleFlat returns the bundled sample and a flat BM25 system over it.
func SampleFlat(t testing.TB) (*datasets.Dataset, retrieval.System) {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	return d, flat
}

// OpenStore opens a run store in a temporary directory, closed at the
// test's end.
func OpenStore(t testing.TB) *runstore.Store {
	t.Helper()
	s, err := runstore.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Backends are the run store's back ends: an SQLite file, and a
// PostgreSQL schema on the server of pgtest.Env (its tests are skipped,
// loudly, when that is unset).
var Backends = []string{"sqlite", "postgres"}

// StorePath returns where a new, empty run store on backend goes: a file
// in a temporary directory, or the URL of a new PostgreSQL schema
// (pgtest.URL), dropped at the test's end.
func StorePath(t testing.TB, backend string) string {
	t.Helper()
	switch backend {
	case "sqlite":
		return filepath.Join(t.TempDir(), "runs.db")
	case "postgres":
		return pgtest.URL(t)
	}
	t.Fatalf("runtest: no back end %q", backend)
	return ""
}

// OpenStoreOn opens a new run store on backend (StorePath), closed at the
// test's end.
func OpenStoreOn(t testing.TB, backend string) *runstore.Store {
	t.Helper()
	s, err := runstore.Open(StorePath(t, backend))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// EachBackend runs f as a subtest of t on each of Backends.
func EachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}

// Day is noon of day d of January 2024, UTC.
func Day(d int) time.Time { return time.Date(2024, 1, d, 12, 0, 0, 0, time.UTC) }

// Tiny is a one-corpus dataset whose questions exercise gold, no gold and
// temporal admission.
func Tiny() *datasets.Dataset {
	c := &datasets.Corpus{ID: "p1", Name: "Ana", Language: "en", Traces: []datasets.Trace{
		{ID: "t1", Time: Day(1), Medium: "diary", Text: "I adopted a grey cat named Miso today."},
		{ID: "t2", Time: Day(2), Medium: "diary", Text: "Went hiking in the rain, soaked but happy."},
		{ID: "t3", Time: Day(9), Medium: "diary", Text: "Miso the cat knocked my coffee over again."},
	}}
	return &datasets.Dataset{Name: "tiny", Format: datasets.FormatCloneMem, Fingerprint: "f", Corpora: []*datasets.Corpus{c},
		Questions: []datasets.Question{
			{ID: "q1", CorpusID: "p1", Task: "single_point_factual", AskedAt: Day(3), Text: "What is the name of your cat?",
				Answer: "My cat is called Miso.", Evidence: []datasets.EvidenceGroup{{Statement: "She adopted a cat named Miso.", TraceIDs: []string{"t1"}}},
				Choices: []datasets.Choice{{ID: "A", Text: "Miso"}, {ID: "B", Text: "Tofu"}, {ID: "E", Text: "Cannot be determined based on available information"}}, Correct: "A"},
			{ID: "q2", CorpusID: "p1", Task: "unanswerable", AskedAt: Day(3), Text: "Which marathon did you run?",
				Answer: "I have not run one."},
		}}
}

// FakeClient returns a client whose every role (model "m-ROLE") is on a
// fake server that answers with responder, one attempt per call.
func FakeClient(t testing.TB, responder llmtest.Responder) *llm.Client {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{Responder: responder})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return ClientOn(t, srv)
}

// ClientOn returns a client whose every role (model "m-ROLE") is on srv,
// one attempt per call and no cache, so every call is a request srv counts.
func ClientOn(t testing.TB, srv *llmtest.Server) *llm.Client {
	t.Helper()
	return ClientOnLimit(t, srv, 0)
}

// ClientOnLimit is ClientOn with the endpoint's max_concurrency set (0 =
// the default), for measuring how a run fills an endpoint's limit.
func ClientOnLimit(t testing.TB, srv *llmtest.Server, maxConcurrency int) *llm.Client {
	t.Helper()
	src := "[endpoint fake]\nbase_url = " + srv.URL() + "\nmax_attempts = 1\n"
	if maxConcurrency > 0 {
		src += fmt.Sprintf("max_concurrency = %d\n", maxConcurrency)
	}
	for _, r := range llm.Roles() {
		src += fmt.Sprintf("[role %s]\nendpoint = fake\nmodel = m-%s\n", r, r)
	}
	cfg, err := llm.ParseConfig("t", strings.NewReader(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// SameRecords compares records ignoring latency (in all and by stage)
// and how many calls the cache served (a resumed run finds in the cache
// the calls it made before a kill).
func SameRecords(t testing.TB, a, b []record.Record) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d records, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Latency, y.Latency = 0, 0
		x.Stages, y.Stages = record.StageLatency{}, record.StageLatency{}
		for _, u := range []*record.Usage{&x.Usage, &y.Usage} {
			u.Retrieve.Cached, u.Read.Cached, u.Judge.Cached = 0, 0, 0
		}
		xj, _ := record.Marshal(x)
		yj, _ := record.Marshal(y)
		if !bytes.Equal(xj, yj) {
			t.Fatalf("record %d differs:\n%s\n%s", i, xj, yj)
		}
	}
}

// FailOn is a system whose retrieval fails on the question Bad.
type FailOn struct {
	retrieval.System
	Bad string
}

// Retrieve fails on Bad, else asks the system.
func (f FailOn) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if q.ID == f.Bad {
		return nil, errors.New("index unavailable")
	}
	return f.System.Retrieve(ctx, q, k)
}

// LengthJudge is an LLM judge stand-in for runs (runs.Judge): it scores an
// answer by its length (0-5) on the KnowMe scale and fails, as an
// unreadable reply would, on questions whose id ends in "3".
type LengthJudge struct{ JudgeName string }

// Name is the judge's name.
func (j LengthJudge) Name() string { return j.JudgeName }

// Judge scores answer.
func (j LengthJudge) Judge(_ context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	v := judge.Verdict{Judge: j.JudgeName, Metric: judge.MetricKnowMeScore, Min: 0, Max: 5, Attempts: 1}
	if strings.HasSuffix(q.ID, "3") {
		v.Score, v.Failure, v.Error = math.NaN(), judge.FailureNoJSON, "no JSON"
		return []judge.Verdict{v}
	}
	v.Score = float64(len(answer) % 6)
	return []judge.Verdict{v}
}

// Offline is the value of r's exact metric or proxy named metric
// (Record.Offline), NaN when r has none.
func Offline(r record.Record, metric string) float64 {
	if s, ok := r.Offline(metric); ok {
		return s.Value
	}
	return math.NaN()
}

// DamageMiddle overwrites the middle third of the pages of the SQLite file
// at path, whatever they hold, as a damaged disk would: a model-call
// cache so damaged makes a run or a rejudge stop with cache.ErrCorrupt.
func DamageMiddle(t testing.TB, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	from, to := fi.Size()/3/4096*4096, 2*fi.Size()/3/4096*4096
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, int(to-from)/4), from); err != nil {
		t.Fatal(err)
	}
}
