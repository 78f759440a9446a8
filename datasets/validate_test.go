package datasets

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
)

// defectAt returns the defects of kind at file and path.
func defectAt(r Report, kind, file, path string) []Defect {
	var out []Defect
	for _, d := range r.Defects {
		if d.Kind == kind && d.File == file && d.Path == path {
			out = append(out, d)
		}
	}
	return out
}

// TestValidateCloneMemDefects: dates going backwards in a context, evidence
// dated after its question, numbers and lists where text is expected, a
// byte-order mark (accepted) and bytes that are not UTF-8, each reported with
// its file and JSON path.
func TestValidateCloneMemDefects(t *testing.T) {
	const persona = `{"person_id": "p1", "person_name": "Ana",
 "context": [
  {"id": "t1", "medium": "diary", "event_date": "2023-01-05T09:00:00", "content": "Ran in the park."},
  {"id": "t2", "medium": "diary", "event_date": "2023-01-03T09:00:00", "content": 42},
  {"id": "t3", "medium": ["memo"], "event_date": "2023-01-10T09:00:00", "content": "Bought shoes."}
 ],
 "questions": [
  {"id": "q1", "question": ["Where", "did I run?"], "question_type": "single_point_factual", "dimension": "experience",
   "question_time": "2023-01-06T00:00:00", "answer": 7,
   "evidence": [{"statement": "Ran in the park", "digital_trace_ids": ["t1", "t3"]}]}
 ]}`
	fsys := fstest.MapFS{
		"a_p1_benchmark_en.json": {Data: []byte("\ufeff" + persona)},
		"b_p2_benchmark_en.json": {Data: []byte(strings.Replace(strings.Replace(persona, `"p1"`, `"p2"`, 1), "Ran in the park.", "Ran in the \xff park.", 1))},
	}
	d, err := LoadFS(fsys, ".", "mem")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	const a, b = "a_p1_benchmark_en.json", "b_p2_benchmark_en.json"
	want := []struct {
		kind, file, path, msg string
	}{
		{DefectEncoding, a, "", "byte-order mark"},
		{DefectEncoding, b, "$.context[0].content", "not UTF-8"},
		{DefectBackwardsTime, a, "$.context[1].event_date", `goes back: "2023-01-03T09:00:00" after "2023-01-05T09:00:00"`},
		{DefectFutureEvidence, a, "$.questions[0].evidence[0].digital_trace_ids[1]", `trace "t3" is dated 2023-01-10T09:00:00, after the question's question_time 2023-01-06T00:00:00`},
		{DefectNotText, a, "$.context[1].content", "content is a JSON number"},
		{DefectNotText, a, "$.context[2].medium", "medium is a JSON list"},
		{DefectNotText, a, "$.questions[0].question", "question is a JSON list"},
		{DefectNotText, a, "$.questions[0].answer", "answer is a JSON number"},
	}
	for _, w := range want {
		got := defectAt(d.Report, w.kind, w.file, w.path)
		if len(got) != 1 || !strings.Contains(got[0].Message, w.msg) {
			t.Errorf("want one %s defect at %s %s with %q, got %+v", w.kind, w.file, w.path, w.msg, got)
		}
	}
	if n := len(d.Report.Defects); n != 14 { // the eight above, and the six not about encoding again in b
		var b strings.Builder
		d.Report.WriteText(&b, -1)
		t.Errorf("%d defects, want 14:\n%s", n, b.String())
	}
	if q := d.Questions[0]; q.Text != "Where\ndid I run?" || q.Answer != "7" {
		t.Errorf("values are still read as text: %q %q", q.Text, q.Answer)
	}
	var out bytes.Buffer
	if err := WriteValidation(&out, d, 0); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"backwards timestamps:", "2 (2 to an earlier time, 0 from a known time",
		"evidence after question time:", "2 (no system may retrieve it: it caps Oracle recall)",
		"text fields holding other values:", " 8\n",
		"encoding problems:", "2 (invalid UTF-8, byte-order marks)",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("validation output lacks %q:\n%s", w, out.String())
		}
	}
}

// TestValidateKnowMeDefects: an answer file that is a directory, text fields
// holding numbers, a byte-order mark in a KnowMe file.
func TestValidateKnowMeDefects(t *testing.T) {
	fsys := fstest.MapFS{
		"input/stream.json": {Data: []byte("\ufeff" + `[{"id": 1, "timestamp": "2001-05-01 08:00:00", "location": "home", "action": 5,
 "dialogue": null, "environment": null, "background": null, "inner_thought": ["a", "b"]}]`)},
		"question/Information Extraction_questions.json": {Data: []byte(`[{"id": 1, "question": 12}]`)},
		"answer/Information Extraction_answers.json":     {Data: []byte(`[{"id": 1, "answer": 3.5, "evidence": [1]}]`)},
		"question/Logical Event Ordering_questions.json": {Data: []byte(`[{"id": 1, "question": "Order them."}]`)},
		"answer/Logical Event Ordering_answers.json/x":   {Data: []byte(`[]`)},
	}
	d, err := LoadFS(fsys, ".", "km")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	want := []struct {
		kind, file, path, msg string
	}{
		{DefectEncoding, "input/stream.json", "", "byte-order mark"},
		{DefectNotText, "input/stream.json", "$[0].action", "action is a JSON number"},
		{DefectNotText, "input/stream.json", "$[0].inner_thought", "inner_thought is a JSON list"},
		{DefectNotText, "question/Information Extraction_questions.json", "$[0].question", "question is a JSON number"},
		{DefectNotText, "answer/Information Extraction_answers.json", "$[0].answer", "answer is a JSON number"},
		{DefectNotAFile, "answer/Logical Event Ordering_answers.json", "", "is a directory"},
	}
	for _, w := range want {
		got := defectAt(d.Report, w.kind, w.file, w.path)
		if len(got) != 1 || !strings.Contains(got[0].Message, w.msg) {
			var b strings.Builder
			d.Report.WriteText(&b, -1)
			t.Errorf("want one %s defect at %s %s with %q, got %+v\n%s", w.kind, w.file, w.path, w.msg, got, b.String())
		}
	}
}

// TestInvalidUTF8Paths: keys and values at any depth are named by their
// JSON path.
func TestInvalidUTF8Paths(t *testing.T) {
	data := []byte("{\"a\": [1, {\"b\xff\": \"x\"}, \"y\xfe\"], \"c\": {\"d\": [\"ok\", \"\xff\"]}, \"e\": \"fine\"}")
	var got []string
	for _, b := range invalidUTF8(data) {
		got = append(got, b.what+" "+b.path)
	}
	want := []string{"the key $.a[1][\"b\ufffd\"]", "the string $.a[2]", "the string $.c.d[1]"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
