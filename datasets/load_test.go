package datasets

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// persona is a minimal valid CloneMem persona file.
const persona = `{"person_id": "p", "context": [{"id": "a", "medium": "diary", "event_date": "2020-01-01", "content": "x"}],
 "questions": [{"id": "q", "question": "?", "question_type": "pattern", "question_time": "2020-02-01", "answer": "y", "dimension": "opinion"}]}`

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		load func() (*Dataset, error)
		want []string // substrings of the error message
		is   error
	}{
		{"missing path", func() (*Dataset, error) { return Load("testdata/nope") }, []string{`datasets: load "testdata/nope"`}, fs.ErrNotExist},
		{"missing path knowme", func() (*Dataset, error) { return LoadKnowMe("testdata/nope") }, []string{`datasets: load knowme "testdata/nope"`}, fs.ErrNotExist},
		{"malformed file", func() (*Dataset, error) { return Load("testdata/bad/malformed.json") },
			[]string{"testdata/bad/malformed.json:4:16: malformed JSON", "after object key:value pair"}, nil},
		{"malformed in a directory", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{
				"input/s.json":             {Data: []byte("[\n  {\"id\": 1,}\n]")},
				"question/T_question.json": {Data: []byte("[]")},
			}, ".", "mem")
		}, []string{`datasets: load knowme "mem"`, "mem/input/s.json:2:12: malformed JSON"}, nil},
		{"truncated file", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{"p.json": {Data: []byte("{\"context\": [\n")}}, "p.json", "p.json")
		}, []string{"p.json:2:1: malformed JSON"}, nil},
		{"trailing data", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{"p.json": {Data: []byte(persona + "\n  }")}}, "p.json", "p.json")
		}, []string{"p.json:3:3: malformed JSON: unexpected data after the top-level value"}, nil},
		{"chinese before the error", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{"p.json": {Data: []byte("{\"名字\": 爱}")}}, "p.json", "p.json")
		}, []string{"p.json:1:8: malformed JSON"}, nil},
		{"unknown format: list file", func() (*Dataset, error) { return Load("testdata/bad/list.json") },
			[]string{"unknown format", "looked for a CloneMem persona file", "KnowMe-Bench directory", "got a JSON list"}, nil},
		{"unknown format: directory without json", func() (*Dataset, error) { return Load("testdata/bad/notformat") },
			[]string{`datasets: load "testdata/bad/notformat": unknown format`, "input/ and question/", "found no .json file"}, nil},
		{"unknown format: other json", func() (*Dataset, error) { return Load("testdata/bad/otherjson") },
			[]string{"unknown format", "testdata/bad/otherjson/data.json is a JSON object with keys foo"}, nil},
		{"unknown format: not json", func() (*Dataset, error) { return Load("testdata/bad/notformat/notes.txt") },
			[]string{"unknown format"}, nil},
		{"shape: list as clonemem", func() (*Dataset, error) { return LoadCloneMem("testdata/bad/list.json") },
			[]string{`datasets: load clonemem "testdata/bad/list.json": $: want a CloneMem persona object, got a JSON list`}, nil},
		{"shape: questions not a list", func() (*Dataset, error) { return Load("testdata/bad/questions_string.json") },
			[]string{"$.questions: want a list of questions, got a JSON string"}, nil},
		{"shape: clonemem dir as knowme", func() (*Dataset, error) { return LoadKnowMe("testdata/clonemem") },
			[]string{"not a KnowMe-Bench directory: want input/ and question/"}, nil},
		{"shape: stream not a list", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{"input/s.json": {Data: []byte(`{"id": 1}`)}, "question/T_questions.json": {Data: []byte("[]")}}, ".", "mem")
		}, []string{"mem/input/s.json: $: want a list of stream entries"}, nil},
		{"empty persona", func() (*Dataset, error) { return Load("testdata/bad/empty_persona.json") },
			[]string{"empty dataset: 0 traces, 0 questions"}, nil},
		{"no questions", func() (*Dataset, error) {
			return LoadFS(fstest.MapFS{"input/s.json": {Data: []byte(`[{"id": 1, "timestamp": ""}]`)}, "question/T_questions.json": {Data: []byte("[]")}}, ".", "mem")
		}, []string{"empty dataset: 1 traces, 0 questions"}, nil},
		{"bad format name", func() (*Dataset, error) {
			return LoadFormatFS(fstest.MapFS{"p.json": {Data: []byte(persona)}}, "p.json", "", "mem0")
		},
			[]string{`unknown format "mem0"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.load()
			if err == nil {
				t.Fatalf("no error; dataset %+v", d)
			}
			if d != nil {
				t.Errorf("dataset %+v returned with error", d)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "datasets: load") {
				t.Errorf("error %q does not start with the package and operation", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", msg, tt.is)
			}
		})
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncdé\nf")
	tests := []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {7, 2, 4}, {8, 3, 1}, {9, 3, 2}, {99, 3, 2}, {-1, 1, 1},
	}
	for _, tt := range tests {
		if l, c := lineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct{ path, format string }{
		{"testdata/clonemem", FormatCloneMem},
		{"testdata/clonemem/alice_p001_benchmark_en.json", FormatCloneMem},
		{"testdata/clonemem_lang", FormatCloneMem},
		{"testdata/knowme", FormatKnowMe},
		{"testdata/knowme_variant", FormatKnowMe},
	}
	for _, tt := range tests {
		d, err := Load(tt.path)
		if err != nil {
			t.Errorf("Load(%q): %v", tt.path, err)
			continue
		}
		if d.Format != tt.format {
			t.Errorf("Load(%q) format %q, want %q", tt.path, d.Format, tt.format)
		}
	}
}

func TestFingerprint(t *testing.T) {
	load := func(fsys fstest.MapFS) string {
		t.Helper()
		d, err := LoadFS(fsys, ".", "mem")
		if err != nil {
			t.Fatal(err)
		}
		return d.Fingerprint
	}
	base := fstest.MapFS{"a_benchmark_en.json": {Data: []byte(persona)}, "README.md": {Data: []byte("x")}}
	fp := load(base)
	same := load(fstest.MapFS{"a_benchmark_en.json": {Data: []byte(persona)}, "README.md": {Data: []byte("changed")}})
	renamed := load(fstest.MapFS{"b_benchmark_en.json": {Data: []byte(persona)}})
	edited := load(fstest.MapFS{"a_benchmark_en.json": {Data: []byte(persona + " ")}})
	if fp != same {
		t.Errorf("fingerprint changed with a file that is not loaded")
	}
	if fp == renamed || fp == edited {
		t.Errorf("fingerprint did not change with a file's name or bytes")
	}
	if fp != load(base) {
		t.Errorf("fingerprint not deterministic")
	}
}

func TestAdmit(t *testing.T) {
	at := time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)
	traces := []Trace{
		{ID: "before", Time: at.Add(-time.Hour)},
		{ID: "equal", Time: at},
		{ID: "after", Time: at.Add(time.Second)},
		{ID: "unknown"},
		{ID: "other-zone-equal", Time: at.In(time.FixedZone("CST", 8*3600))},
		{ID: "other-zone-after", Time: time.Date(2023, 6, 1, 20, 0, 1, 0, time.FixedZone("CST", 8*3600))},
	}
	ids := func(ts []Trace) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.ID)
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"boundary equal is visible, unknown time visible", at, "before,equal,unknown,other-zone-equal"},
		{"zero asked-at sees all", time.Time{}, "before,equal,after,unknown,other-zone-equal,other-zone-after"},
		{"before everything: only unknown", at.Add(-24 * time.Hour), "unknown"},
	}
	for _, tt := range tests {
		if got := ids(Admit(traces, tt.at)); got != tt.want {
			t.Errorf("%s: Admit = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestVisible(t *testing.T) {
	d, err := Load("testdata/clonemem")
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ts []Trace) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.ID)
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		qid, want string
	}{
		// asked 2023-08-01 12:00: t3 (2023-07-01 10:00+02:00) is visible; unknown-time traces t4, t5 and "" too
		{"q1", "t1,t2,t3,t4,t5,t3,"},
		// no asked-at time (empty question_time): everything
		{"q4", "t1,t2,t3,t4,t5,t3,"},
		// zh corpus asked 2023-05-01: all three traces are earlier
		{"p001_zh/q1", "z1,z2,z3"},
	}
	for _, tt := range tests {
		q := questionByID(t, d, tt.qid)
		if got := ids(d.Visible(q)); got != tt.want {
			t.Errorf("Visible(%s) = %s, want %s", tt.qid, got, tt.want)
		}
	}
	// A question dated before some traces sees fewer of them.
	q := questionByID(t, d, "q1")
	q.AskedAt = time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC) // equal to t3's date
	if got := ids(d.Visible(q)); got != "t1,t2,t3,t4,t5," {
		t.Errorf("Visible at t3's time = %s", got)
	}
	q.CorpusID = "nobody"
	if got := d.Visible(q); got != nil {
		t.Errorf("Visible of an unknown corpus = %v, want nil", got)
	}
}

func TestTraceTexts(t *testing.T) {
	d := &Dataset{Corpora: []*Corpus{{ID: "a", Traces: []Trace{{ID: "1", Text: "x"}, {ID: "2", Text: "y"}}}, {ID: "b", Traces: []Trace{{ID: "3", Text: "z"}}}}}
	if got := strings.Join(d.TraceTexts(), ","); got != "x,y,z" {
		t.Errorf("TraceTexts = %q", got)
	}
}
