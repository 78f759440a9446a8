package formats

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// sampleResult builds a hand-made result over the bundled sample: for each
// question of the sample, hits made from its gold traces (a chunk hit per
// trace, then an extracted-facts hit and a memory hit over two traces), an
// answer and a choice; the question at failAt is a failed record.
func sampleResult(t *testing.T, failAt int) (*datasets.Dataset, *record.Result) {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string]datasets.Trace{}
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			traces[c.ID+"/"+tr.ID] = tr
		}
	}
	r := &record.Result{Dataset: d.Name, System: "flat bm25/raw", Reader: "fake", K: 5}
	for i, q := range d.Questions {
		rec := record.Record{QuestionID: q.ID, CorpusID: q.CorpusID, Task: q.Task, System: r.System, Reader: r.Reader, K: r.K,
			Visible: len(d.Visible(q)), Correct: q.Correct, Choice: "A", Answer: "answer to " + q.Text}
		if i == failAt {
			rec.Failure = "read (free text): model timeout"
			rec.Answer, rec.Choice = "", ""
		}
		gold := q.GoldTraceIDs()
		for j, id := range gold {
			tr := traces[q.CorpusID+"/"+id]
			rec.Hits = append(rec.Hits, retrieval.Hit{UnitID: id, TraceIDs: []string{id}, Score: 1 / float64(j+1), Text: tr.Text, Kind: retrieval.KindChunk, Time: tr.Time})
		}
		if len(gold) > 0 {
			rec.Hits = append(rec.Hits, retrieval.Hit{UnitID: gold[0] + "#facts", TraceIDs: []string{gold[0]}, Score: 0.25, Text: "事实: <b>&</b> " + q.Text, Kind: retrieval.KindFacts})
		}
		if len(gold) > 1 {
			rec.Hits = append(rec.Hits, retrieval.Hit{UnitID: "mem-" + q.ID, TraceIDs: gold[:2], Score: 0.125, Text: "memory note", Kind: retrieval.KindMemory})
		}
		for _, h := range rec.Hits {
			rec.ContextIDs = append(rec.ContextIDs, h.UnitID)
		}
		rec.Ranked = retrieval.TraceRanking(rec.Hits)
		r.Records = append(r.Records, rec)
	}
	return d, r
}

func corpusRecords(r *record.Result, corpus string) []record.Record {
	var out []record.Record
	for _, rec := range r.Records {
		if rec.CorpusID == corpus && rec.Failure == "" {
			out = append(out, rec)
		}
	}
	return out
}

func TestCloneMemRoundTripPerCorpus(t *testing.T) {
	d, r := sampleResult(t, -1)
	for _, c := range d.Corpora {
		var buf bytes.Buffer
		if err := WriteCloneMemCorpus(&buf, d, r, c.ID); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		got, err := ReadCloneMem(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: read back: %v", c.ID, err)
		}
		want := corpusRecords(r, c.ID)
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: read %d records, want %d (>0)", c.ID, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.QuestionID != w.QuestionID || g.CorpusID != w.CorpusID || g.Answer != w.Answer ||
				g.Choice != w.Choice || g.Correct != w.Correct || g.Visible != w.Visible {
				t.Errorf("%s record %d: got %+v\nwant %+v", c.ID, i, g, w)
			}
			if !reflect.DeepEqual(g.Ranked, w.Ranked) {
				t.Errorf("%s record %d: ranked %v, want %v", c.ID, i, g.Ranked, w.Ranked)
			}
			if !reflect.DeepEqual(g.ContextIDs, w.ContextIDs) {
				t.Errorf("%s record %d: context ids %v, want %v", c.ID, i, g.ContextIDs, w.ContextIDs)
			}
			if len(g.Hits) != len(w.Hits) {
				t.Fatalf("%s record %d: %d hits, want %d", c.ID, i, len(g.Hits), len(w.Hits))
			}
			for j, wh := range w.Hits {
				gh := g.Hits[j]
				if gh.UnitID != wh.UnitID || gh.Kind != wh.Kind || gh.Text != wh.Text || gh.Score != wh.Score ||
					!gh.Time.Equal(wh.Time) || !reflect.DeepEqual(gh.TraceIDs, wh.TraceIDs) {
					t.Errorf("%s record %d hit %d: got %+v\nwant %+v", c.ID, i, j, gh, wh)
				}
			}
		}
	}
}

func TestCloneMemExactShape(t *testing.T) {
	d, r := sampleResult(t, -1)
	var buf bytes.Buffer
	if err := WriteCloneMemCorpus(&buf, d, r, "p02_zh"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// Chinese text and HTML-like characters are written as is, as Python's
	// json.dump(ensure_ascii=False) does.
	for _, want := range []string{"你们公司搞大小周，你自己怎么看？", "事实: <b>&</b>"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, `\u`) {
		t.Errorf("output has \\u escapes:\n%s", out[:300])
	}
	var top map[string]map[string]any
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	// Keys are the SOURCE question ids: the loader renamed p02's "q01" to
	// "p02_zh/q01" and kept "q01" in Extra["id"].
	entry, ok := top["q01"]
	if !ok {
		t.Fatalf("no key q01; keys %v", keysOf(top))
	}
	wantKeys := []string{"choices", "correct_choice_id", "evidence_used", "generated_answer", "gold_answer", "id",
		"memlab_corpus_id", "memlab_question_id", "num_contexts_processed", "predicted_choice_id", "question",
		"question_time", "ranked_items", "subquestions"}
	if got := keysOf(entry); !reflect.DeepEqual(got, wantKeys) {
		t.Errorf("entry keys %v, want %v", got, wantKeys)
	}
	if entry["id"] != "q01" || entry["memlab_question_id"] != "p02_zh/q01" || entry["memlab_corpus_id"] != "p02_zh" {
		t.Errorf("ids: %v %v %v", entry["id"], entry["memlab_question_id"], entry["memlab_corpus_id"])
	}
	if entry["question_time"] != "2023-09-20T21:00:00" {
		t.Errorf("question_time %v: want the release's 2023-09-20T21:00:00", entry["question_time"])
	}
	if entry["gold_answer"] == "" || entry["correct_choice_id"] == "" || entry["predicted_choice_id"] != "A" ||
		entry["generated_answer"] != "answer to 你们公司搞大小周，你自己怎么看？" {
		t.Errorf("generation keys: %v %v %v %v", entry["gold_answer"], entry["correct_choice_id"], entry["predicted_choice_id"], entry["generated_answer"])
	}
	if entry["subquestions"] != nil {
		t.Errorf("subquestions %v, want null", entry["subquestions"])
	}
	choices := entry["choices"].([]any)
	if len(choices) == 0 || keysOf(choices[0].(map[string]any))[0] != "id" {
		t.Errorf("choices %v: want a list of {id, text}", choices)
	}
	items := entry["ranked_items"].([]any)
	if len(items) < 2 {
		t.Fatalf("ranked_items %v", items)
	}
	first := items[0].(map[string]any)
	wantItem := []string{"chunk_id", "content", "rank", "res_type", "score", "timestamp", "trace_ids", "unit_id"}
	if got := keysOf(first); !reflect.DeepEqual(got, wantItem) {
		t.Errorf("item keys %v, want %v", got, wantItem)
	}
	if first["res_type"] != "chunk" || first["rank"] != 0.0 || first["chunk_id"] != "9bffc3f3-cad7-4321-a016-49af453daa45" ||
		first["timestamp"] != "2023-07-16 22:30:00" {
		t.Errorf("first item %v", first)
	}
	second := items[1].(map[string]any)
	if second["res_type"] != "extract_facts" || second["chunk_id"] != "9bffc3f3-cad7-4321-a016-49af453daa45" || second["rank"] != 1.0 {
		t.Errorf("second item: want extract_facts on the trace id, got %v", second)
	}
	if ev := entry["evidence_used"].(string); !strings.HasPrefix(ev, "---- idx 1 ----\n") || !strings.Contains(ev, "\n\n---- idx 2 ----\n事实") {
		t.Errorf("evidence_used %q", ev)
	}
	// The raw text keeps the key order of the official scripts.
	order := []string{`"res_type"`, `"rank"`, `"chunk_id"`, `"content"`, `"timestamp"`}
	last := -1
	for _, k := range order {
		i := strings.Index(out, k)
		if i <= last {
			t.Errorf("key %s out of order", k)
		}
		last = i
	}
}

func keysOf[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestCloneMemMemoryHitAndFailures(t *testing.T) {
	d, r := sampleResult(t, 1)
	var buf bytes.Buffer
	if err := WriteCloneMemCorpus(&buf, d, r, "p01_en"); err != nil {
		t.Fatal(err)
	}
	var top map[string]map[string]any
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top[d.Questions[1].ID]; ok {
		t.Errorf("failed record %s was written", d.Questions[1].ID)
	}
	if len(top) != len(corpusRecords(r, "p01_en")) {
		t.Errorf("%d entries, want %d", len(top), len(corpusRecords(r, "p01_en")))
	}
	// q02 of p01 failed; find a question with two gold traces for the memory hit.
	for _, rec := range corpusRecords(r, "p01_en") {
		if len(rec.Hits) == 0 || rec.Hits[len(rec.Hits)-1].Kind != retrieval.KindMemory {
			continue
		}
		items := top[rec.QuestionID]["ranked_items"].([]any)
		m := items[len(items)-1].(map[string]any)
		if m["res_type"] != "memory" || m["chunk_id"] != "mem-"+rec.QuestionID || m["timestamp"] != "" {
			t.Errorf("memory item %v: want res_type memory, chunk_id the unit id, empty timestamp", m)
		}
		if ids := m["trace_ids"].([]any); len(ids) != 2 {
			t.Errorf("memory item trace_ids %v", ids)
		}
		return
	}
	t.Fatal("no record with a memory hit")
}

func TestCloneMemWholeDatasetAndDir(t *testing.T) {
	d, r := sampleResult(t, -1)
	var buf bytes.Buffer
	err := WriteCloneMem(&buf, d, r)
	if err == nil || !strings.Contains(err.Error(), `source question id "q01" already written`) {
		t.Fatalf("two corpora sharing q01 in one file: err %v", err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	paths, err := WriteCloneMemDir(dir, d, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "memlab_p01_en_flat-bm25-raw-k5.json"), filepath.Join(dir, "memlab_p02_zh_flat-bm25-raw-k5.json")}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	f, err := os.Open(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadCloneMem(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(corpusRecords(r, "p02_zh")) || recs[0].CorpusID != "p02_zh" {
		t.Errorf("read %d records from %s", len(recs), paths[1])
	}
	// One corpus alone is fine in one file.
	one := &record.Result{System: r.System, K: r.K, Records: corpusRecords(r, "p01_en")}
	if err := WriteCloneMem(&buf, d, one); err != nil {
		t.Errorf("single corpus: %v", err)
	}
}

func TestCloneMemFileNameRules(t *testing.T) {
	cases := []struct {
		c    *datasets.Corpus
		want string
		err  string
	}{
		{&datasets.Corpus{ID: "11ccc069-2a93-4e9d-af03-cdacb0b8d568_en", Language: "en"}, "memlab_11ccc069-2a93-4e9d-af03-cdacb0b8d568_en_a-b-k10.json", ""},
		{&datasets.Corpus{ID: "p9"}, "memlab_p9_a-b-k10.json", ""},
		{&datasets.Corpus{ID: "my_person_en", Language: "en"}, "", "contains \"_\""},
		{&datasets.Corpus{ID: "a/b"}, "", "path separator"},
	}
	for _, tc := range cases {
		got, err := CloneMemFileName(tc.c, "a b", 10)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.c.ID, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.c.ID, got, err, tc.want)
		}
	}
}

func TestCloneMemEmptyAndForeign(t *testing.T) {
	d, _ := sampleResult(t, -1)
	var buf bytes.Buffer
	if err := WriteCloneMem(&buf, d, &record.Result{}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{}\n" {
		t.Errorf("empty result wrote %q", buf.String())
	}
	recs, err := ReadCloneMem(&buf)
	if err != nil || len(recs) != 0 {
		t.Errorf("empty read: %v, %v", recs, err)
	}

	// A file as eval_flat.py writes it, wrapped in "results", with an
	// expansion item and no memlab keys; key order is kept.
	foreign := `{"results": {
  "qb": {"question": "Q?", "question_time": "2022-03-28T22:00:00", "num_contexts_processed": 9, "subquestions": null,
         "ranked_items": [
           {"res_type": "chunk", "rank": 0, "chunk_id": "t7", "content": "raw", "timestamp": "2022-03-01 10:00:00", "subquestion": "Q?", "subquestion_id": 0},
           {"res_type": "extract_facts", "rank": 0, "chunk_id": "t7", "content": "facts", "timestamp": "2022-03-01 10:00:00"},
           {"res_type": "chunk", "rank": 1, "chunk_id": "t2", "content": "raw2", "timestamp": ""}]},
  "qa": {"ranked_items": []}
}}`
	recs, err = ReadCloneMem(strings.NewReader(foreign))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].QuestionID != "qb" || recs[1].QuestionID != "qa" {
		t.Fatalf("records %+v", recs)
	}
	r0 := recs[0]
	if r0.Visible != 9 || !reflect.DeepEqual(r0.Ranked, []string{"t7", "t2"}) || len(r0.Hits) != 3 {
		t.Errorf("record: %+v", r0)
	}
	if h := r0.Hits[1]; h.Kind != "extract_facts" || h.UnitID != "t7" || !reflect.DeepEqual(h.TraceIDs, []string{"t7"}) ||
		!h.Time.Equal(time.Date(2022, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("expansion hit %+v", h)
	}
	if !r0.Hits[2].Time.IsZero() {
		t.Errorf("empty timestamp read as %v", r0.Hits[2].Time)
	}
}

func TestCloneMemTimestamps(t *testing.T) {
	cases := []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, ""},
		{time.Date(2023, 1, 8, 21, 14, 0, 0, time.UTC), "2023-01-08 21:14:00"},
		{time.Date(2023, 1, 8, 21, 14, 0, 5000, time.UTC), "2023-01-08 21:14:00.000005"},
		{time.Date(2023, 1, 8, 21, 14, 0, 0, time.FixedZone("", 8*3600)), "2023-01-08 21:14:00+08:00"},
	}
	for _, tc := range cases {
		got := formatTime(tc.t, cloneMemItemTime)
		if got != tc.want {
			t.Errorf("format %v: %q, want %q", tc.t, got, tc.want)
			continue
		}
		if got == "" {
			continue
		}
		back, err := parseItemTime(got)
		if err != nil || !back.Equal(tc.t) {
			t.Errorf("parse %q: %v, %v; want %v", got, back, err, tc.t)
		}
	}
}

func TestReadCloneMemBadInput(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"malformed", "{\n  \"q1\": {\"ranked_items\": [}\n}", []string{"invalid JSON at line 2:column 27"}},
		{"truncated", "{\n  \"q1\": {", []string{"invalid JSON at line 2"}},
		{"list", `[{"ranked_items": []}]`, []string{"want a JSON object, got a list"}},
		{"trailing", "{}\n{}", []string{"line 2:column 1", "after the top-level value"}},
		{"no ranked_items", `{"q1": {"ranked_items": []}, "q2": {"question": "x"}}`, []string{`record 1 ("q2", at line 1:column 36)`, `missing field "ranked_items"`}},
		{"no chunk_id", `{"q1": {"ranked_items": [{"res_type": "chunk", "content": "x"}]}}`, []string{`record 0 ("q1"`, `ranked_items[0]: missing field "chunk_id"`}},
		{"null res_type", `{"q1": {"ranked_items": [{"res_type": null, "chunk_id": "a", "content": "x"}]}}`, []string{`ranked_items[0]: res_type: want a string, got null`}},
		{"bad value", `{"q1": 3}`, []string{`record 0 ("q1"`, "want an object, got a number"}},
		{"bad answer", `{"q1": {"ranked_items": [], "generated_answer": 3}}`, []string{"generated_answer: want a string, got a number"}},
		{"bad time", `{"q1": {"ranked_items": [{"res_type": "chunk", "chunk_id": "a", "content": "x", "timestamp": "yesterday"}]}}`, []string{`timestamp "yesterday"`}},
	}
	for _, tc := range cases {
		_, err := ReadCloneMem(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "formats: read clonemem: ") {
			t.Errorf("%s: error %q lacks the package prefix", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

// knowMeLike is a tiny KnowMe-shaped dataset: ids per task, kept in
// Extra["id"], one ordering question, Chinese text.
func knowMeLike() *datasets.Dataset {
	return &datasets.Dataset{Name: "km", Format: datasets.FormatKnowMe,
		Corpora: []*datasets.Corpus{{ID: "dataset1", Language: "zh"}},
		Questions: []datasets.Question{
			{ID: "Temporal Reasoning/3", CorpusID: "dataset1", Task: "Temporal Reasoning", Text: "他什么时候搬到上海？",
				Answer: "2019年3月", Extra: map[string]any{"id": 3}},
			{ID: "Logical Event Ordering/1", CorpusID: "dataset1", Task: "Logical Event Ordering", Text: "Order the moves.",
				Answer:   "left home\narrived \"north\"",
				Ordering: []datasets.RankedEvent{{Rank: 1, Event: "left home", Reasoning: "first"}, {Rank: 2, Event: `arrived "north"`, Reasoning: "then"}},
				Extra:    map[string]any{"id": 1}},
			{ID: "Information Extraction/3", CorpusID: "dataset1", Task: "Information Extraction", Text: "Who?",
				Answer: "Ana", Extra: map[string]any{"id": "3"}},
		}}
}

func knowMeResult(d *datasets.Dataset) *record.Result {
	r := &record.Result{Dataset: d.Name, System: "naive-rag", K: 50}
	answers := []string{"2019年3月左右 <大约>", "left home, then arrived north", ""}
	for i, q := range d.Questions {
		r.Records = append(r.Records, record.Record{QuestionID: q.ID, Task: q.Task, Answer: answers[i]})
	}
	return r
}

func TestKnowMeWriteShapeAndRoundTrip(t *testing.T) {
	d := knowMeLike()
	r := knowMeResult(d)
	r.Records[2].Failure = "retrieve: index missing"
	var buf bytes.Buffer
	if err := WriteKnowMe(&buf, d, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "他什么时候搬到上海？") || !strings.Contains(out, "<大约>") || strings.Contains(out, `\u`) {
		t.Errorf("text not kept as is:\n%s", out)
	}
	var raw []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 2 {
		t.Fatalf("%d items, want 2 (the failed record left out)", len(raw))
	}
	want := []string{"id", "model_answer", "question", "reference_answer", "task_type"}
	for i, it := range raw {
		if got := keysOf(it); !reflect.DeepEqual(got, want) {
			t.Errorf("item %d keys %v, want %v", i, got, want)
		}
	}
	if raw[0]["id"] != 3.0 || raw[0]["task_type"] != "Temporal Reasoning" || raw[0]["reference_answer"] != "2019年3月" {
		t.Errorf("item 0 %v: want the numeric source id 3", raw[0])
	}
	steps, ok := raw[1]["reference_answer"].([]any)
	if !ok || len(steps) != 2 || keysOf(steps[0].(map[string]any))[0] != "event" {
		t.Errorf("ordering reference %v: want the released list of {rank, event, reasoning}", raw[1]["reference_answer"])
	}
	if i, j := strings.Index(out, `"id"`), strings.Index(out, `"task_type"`); i > j {
		t.Errorf("id after task_type")
	}

	items, err := ReadKnowMe(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("read %d items", len(items))
	}
	if it := items[0]; it.ID != "3" || it.QuestionID != "Temporal Reasoning/3" || it.Reference != "2019年3月" || it.ModelAnswer != r.Records[0].Answer || it.Question != d.Questions[0].Text {
		t.Errorf("item 0 %+v", it)
	}
	if it := items[1]; it.QuestionID != d.Questions[1].ID || it.Reference != d.Questions[1].Answer || !reflect.DeepEqual(it.Ordering, d.Questions[1].Ordering) {
		t.Errorf("item 1 %+v", it)
	}
}

func TestKnowMeWriteErrorsAndEmpty(t *testing.T) {
	d := knowMeLike()
	var buf bytes.Buffer
	if err := WriteKnowMe(&buf, d, &record.Result{}); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("empty: %q, %v", buf.String(), err)
	}
	items, err := ReadKnowMe(&buf)
	if err != nil || len(items) != 0 {
		t.Errorf("empty read: %v, %v", items, err)
	}
	d.Questions[0].Extra = nil
	err = WriteKnowMe(&buf, d, knowMeResult(d))
	if err == nil || !strings.Contains(err.Error(), `records[0]: question "Temporal Reasoning/3" has no source id`) {
		t.Errorf("no source id: %v", err)
	}
	err = WriteKnowMe(&buf, d, &record.Result{Records: []record.Record{{QuestionID: "nope"}}})
	if err == nil || !strings.Contains(err.Error(), `question "nope" is not in dataset "km"`) {
		t.Errorf("unknown question: %v", err)
	}
	if err := WriteKnowMe(&buf, nil, nil); err == nil {
		t.Error("nil dataset: no error")
	}
}

// A result file shaped as evaluate/run_eval.py writes it.
const knowMeScoresFile = `{
  "meta": {"judge_model": "gpt-4o", "total_items": 4, "evaluated_items": 1, "average_score": 5.0},
  "details": [
    {"id": 3, "task_type": "Temporal Reasoning", "score": 5, "reasoning": "完全正确", "status": "success"},
    {"id": 1, "task_type": "Logical Event Ordering", "score": 0, "reasoning": "Evaluation Error: timeout", "status": "error"},
    {"id": "7", "error": "Task type not found in prompt file", "status": "skipped"},
    {"id": 4, "task_type": "Temporal Reasoning", "score": null, "reasoning": null, "status": "success"}
  ]
}`

func TestReadKnowMeScores(t *testing.T) {
	s, err := ReadKnowMeScores(strings.NewReader(knowMeScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.JudgeModel != "gpt-4o" || s.TotalItems != 4 || s.EvaluatedItems != 1 || s.AverageScore != 5 || len(s.Details) != 4 {
		t.Fatalf("meta %+v", s)
	}
	want := []KnowMeScore{
		{ID: "3", Task: "Temporal Reasoning", QuestionID: "Temporal Reasoning/3", Scored: true, Score: 5, Reasoning: "完全正确", Status: "success"},
		{ID: "1", Task: "Logical Event Ordering", QuestionID: "Logical Event Ordering/1", Reasoning: "Evaluation Error: timeout", Status: "error"},
		{ID: "7", Status: "skipped", Error: "Task type not found in prompt file"},
		{ID: "4", Task: "Temporal Reasoning", QuestionID: "Temporal Reasoning/4", Status: "success"},
	}
	for i, w := range want {
		if !reflect.DeepEqual(s.Details[i], w) {
			t.Errorf("details[%d] = %+v, want %+v", i, s.Details[i], w)
		}
	}
	by := s.ByQuestionID()
	if len(by) != 3 || !by["Temporal Reasoning/3"].Scored || by["Logical Event Ordering/1"].Scored {
		t.Errorf("by question %v", by)
	}
	// A bare details list reads too.
	list := knowMeScoresFile[strings.Index(knowMeScoresFile, "[") : strings.LastIndex(knowMeScoresFile, "]")+1]
	s2, err := ReadKnowMeScores(strings.NewReader(list))
	if err != nil || len(s2.Details) != 4 || s2.JudgeModel != "" {
		t.Errorf("bare list: %+v, %v", s2, err)
	}
}

func TestKnowMeRoundTripThroughScores(t *testing.T) {
	// Input written by memlab, scored as the script would, read back and
	// joined to the memlab records by question id.
	d := knowMeLike()
	r := knowMeResult(d)
	var buf bytes.Buffer
	if err := WriteKnowMe(&buf, d, r); err != nil {
		t.Fatal(err)
	}
	var in []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &in); err != nil {
		t.Fatal(err)
	}
	var details []map[string]any
	for i, it := range in {
		details = append(details, map[string]any{"id": it["id"], "task_type": it["task_type"], "score": i + 3, "reasoning": "ok", "status": "success"})
	}
	res, _ := json.Marshal(map[string]any{"meta": map[string]any{"judge_model": "gpt-4o"}, "details": details})
	s, err := ReadKnowMeScores(bytes.NewReader(res))
	if err != nil {
		t.Fatal(err)
	}
	by := s.ByQuestionID()
	for i, rec := range r.Records {
		sc, ok := by[rec.QuestionID]
		if !ok || !sc.Scored || sc.Score != float64(i+3) {
			t.Errorf("record %s: score %+v (found %v), want %d", rec.QuestionID, sc, ok, i+3)
		}
	}
}

func TestReadKnowMeBadInput(t *testing.T) {
	cases := []struct {
		name  string
		read  func(string) error
		in    string
		wants []string
	}{
		{"scores malformed", readScores, "{\n \"details\": [\n  {\"id\": 1,,}]}", []string{"formats: read knowme scores: invalid JSON at line 3:column 12"}},
		{"scores no details", readScores, `{"meta": {}}`, []string{`missing field "details"`}},
		{"scores details not list", readScores, `{"details": {}}`, []string{"$.details", "want a JSON list"}},
		{"scores missing status", readScores, `{"details": [{"id": 1, "status": "success", "task_type": "T", "score": 1}, {"id": 2, "task_type": "T", "score": 1}]}`, []string{"details[1]", `missing field "status"`}},
		{"scores missing score", readScores, `{"details": [{"id": 2, "task_type": "T", "status": "success"}]}`, []string{"details[0]", `missing field "score"`}},
		{"scores missing task", readScores, `{"details": [{"id": 2, "score": 1, "status": "success"}]}`, []string{"details[0]", `missing field "task_type"`}},
		{"scores bad status", readScores, `{"details": [{"id": 2, "status": "done"}]}`, []string{`status: want success, error or skipped, got "done"`}},
		{"scores bad score", readScores, `{"details": [{"id": 2, "task_type": "T", "score": "5", "status": "success"}]}`, []string{"score: want a number or null, got a string"}},
		{"scores bad id", readScores, `{"details": [{"id": [1], "status": "skipped"}]}`, []string{"id: want a number or a string, got a list"}},
		{"scores string top", readScores, `"x"`, []string{"want a JSON list, got a string"}},
		{"input malformed", readInput, "[\n{\"id\": 1\n", []string{"formats: read knowme: invalid JSON at line 3"}},
		{"input missing model_answer", readInput, `[{"id": 1, "task_type": "T", "question": "q", "reference_answer": "a", "model_answer": "m"}, {"id": 2, "task_type": "T", "question": "q", "reference_answer": "a"}]`, []string{"record 1 (at line 1:column 94)", `missing field "model_answer"`}},
		{"input bad reference", readInput, `[{"id": 1, "task_type": "T", "question": "q", "reference_answer": 5, "model_answer": "m"}]`, []string{"record 0", "reference_answer: want a string or a list"}},
		{"input object", readInput, `{"id": 1}`, []string{"want a JSON list, got an object"}},
	}
	for _, tc := range cases {
		err := tc.read(tc.in)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func readScores(s string) error {
	_, err := ReadKnowMeScores(strings.NewReader(s))
	return err
}

func readInput(s string) error {
	_, err := ReadKnowMe(strings.NewReader(s))
	return err
}

func TestNonFiniteScoreOmitted(t *testing.T) {
	d, r := sampleResult(t, -1)
	r.Records[0].Hits[0].Score = math.NaN()
	one := &record.Result{System: "x", K: 1, Records: r.Records[:1]}
	var buf bytes.Buffer
	if err := WriteCloneMem(&buf, d, one); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadCloneMem(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Hits[0].Score != 0 || recs[0].Hits[1].Score != r.Records[0].Hits[1].Score {
		t.Errorf("scores %v %v", recs[0].Hits[0].Score, recs[0].Hits[1].Score)
	}
}
