package record_test

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

func TestRecordJSONRoundTrip(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0]
	r.Judges["undefined"] = math.NaN()
	r.Judges["inf"] = math.Inf(-1)
	r.Latency = 1234567 * time.Nanosecond
	b, err := record.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Judges["undefined"]) || !math.IsInf(back.Judges["inf"], -1) || back.Latency != r.Latency {
		t.Errorf("round trip lost values: %v %v %v", back.Judges["undefined"], back.Judges["inf"], back.Latency)
	}
	delete(back.Judges, "undefined")
	delete(r.Judges, "undefined")
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip changed the record:\n%+v\n%+v", back, r)
	}
	if _, err := record.Unmarshal([]byte(`{"judges":{"x":"NaN?"}}`)); err == nil {
		t.Error("a bad number was accepted")
	}
}

func TestWriteJSONLRoundTrips(t *testing.T) {
	// A run with a failed question and LLM verdicts, one of them failed.
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: runtest.FailOn{System: flat, Bad: d.Questions[1].ID},
		Reader: generate.NewExtractive(), K: 5, Judges: []runs.Judge{runtest.LengthJudge{JudgeName: "length"}}}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	recs := res.Records
	var buf bytes.Buffer
	if err := record.WriteJSONL(&buf, recs); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	i := 0
	for sc.Scan() {
		if i >= len(recs) {
			t.Fatalf("more lines than %d records", len(recs))
		}
		r, err := record.Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want, _ := record.Marshal(recs[i])
		got, _ := record.Marshal(r)
		if !bytes.Equal(got, want) {
			t.Errorf("line %d does not round-trip:\n got %s\nwant %s", i+1, got, want)
		}
		if r.QuestionID != recs[i].QuestionID || len(r.Hits) != len(recs[i].Hits) {
			t.Errorf("line %d: %s with %d hits, want %s with %d", i+1, r.QuestionID, len(r.Hits), recs[i].QuestionID, len(recs[i].Hits))
		}
		i++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(recs) {
		t.Errorf("%d lines, want %d", i, len(recs))
	}
}
