package runs

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
)

func TestJudgedRunKeepsEveryVerdictAndCountsFailures(t *testing.T) {
	c := &datasets.Corpus{ID: "s", Traces: []datasets.Trace{
		{ID: "1", Time: runtest.Day(1), Text: "I bought a red bicycle in Bergen."},
		{ID: "2", Time: runtest.Day(2), Text: "Mother called about the funeral."},
	}}
	d := &datasets.Dataset{Name: "km", Format: datasets.FormatKnowMe, Corpora: []*datasets.Corpus{c}, Questions: []datasets.Question{
		{ID: judge.TaskInformationExtraction + "/1", CorpusID: "s", Task: judge.TaskInformationExtraction,
			Text: "What colour was the bicycle?", Answer: "Red", Evidence: []datasets.EvidenceGroup{{TraceIDs: []string{"1"}}}},
		{ID: judge.TaskLogicalEventOrdering + "/1", CorpusID: "s", Task: judge.TaskLogicalEventOrdering,
			Text: "Order the events.", Answer: "bicycle\nfuneral"},
		{ID: judge.TaskTemporalReasoning + "/1", CorpusID: "s", Task: judge.TaskTemporalReasoning,
			Text: "When was the funeral?", Answer: " "},
	}}
	client := runtest.FakeClient(t, func(call llmtest.ChatCall) (string, error) {
		last := call.LastUser()
		switch {
		case call.Model == "m-judge" && strings.Contains(last, "When was the funeral?"):
			return "", fmt.Errorf("a question without reference answer was judged")
		case call.Model == "m-backbone":
			return "It was red.", nil
		case strings.Contains(last, "bicycle?"):
			return "```json\n{\"score\": 4, \"reasoning\": \"right colour\"}\n```", nil
		default:
			return `{"score": 9, "reasoning": "off the scale"}`, nil // out of range: a failure
		}
	})
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	res, err := Evaluate(context.Background(), d, Config{System: flat, Reader: reader, K: 5,
		Judges: []Judge{KnowMeJudge(judge.NewKnowMeJudge(client, nil, judge.Config{Retries: -1}))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Failure != "" || len(r.Verdicts()) != 1 || r.Answer != "It was red." {
			t.Fatalf("record %s: failure %q, %d verdicts, answer %q", r.QuestionID, r.Failure, len(r.Verdicts()), r.Answer)
		}
	}
	if v := res.Records[0].Verdicts()[0]; v.Score != 4 || v.Model != "m-judge" || v.RubricHash == "" || v.Reasoning != "right colour" {
		t.Errorf("verdict %+v", v)
	}
	if v := res.Records[1].Verdicts()[0]; v.Judged() || v.Failure != judge.FailureOutOfRange || !strings.Contains(v.Raw, "9") {
		t.Errorf("out-of-range verdict %+v: want a failure with the raw output kept", v)
	}
	if v := res.Records[2].Verdicts()[0]; v.Failure != judge.FailureNoReference {
		t.Errorf("verdict of the question without reference %+v: want no_reference and no call", v)
	}
	md := reports.KnowMeTable([]*record.Result{res}).Markdown()
	for _, want := range []string{"| I | " + judge.TaskInformationExtraction + " | 80.0% (1 / 0) |",
		"| II | " + judge.TaskLogicalEventOrdering + " | n/a (0 / 1) |", "| I | " + judge.TaskTemporalReasoning + " | n/a (1 no reference) |",
		"|  | all | 80.0% (1 / 1, 1 no reference) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if jt := reports.JudgeTable([]*record.Result{res}).Markdown(); !strings.Contains(jt, "| 0.800 | 4.000 | 1 / 1, 1 no reference |") {
		t.Errorf("judge table:\n%s", jt)
	}
}

func TestUnreadChoiceIsNotAWrongLetter(t *testing.T) {
	d := runtest.Tiny()
	client := runtest.FakeClient(t, func(llmtest.ChatCall) (string, error) { return "Hmm, hard to say.", nil })
	reader, _ := generate.NewModelReader(client, generate.ReaderConfig{})
	res, err := Evaluate(context.Background(), d, Config{System: retrieval.NewOracle(d), Reader: reader, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	s := reports.SummaryOf(res)
	if s.ChoiceUnread != 1 || s.Score(judge.MetricChoiceAccuracy).N != 0 {
		t.Errorf("unread %d, choice accuracy over %d: an unparseable letter must be counted apart, not scored",
			s.ChoiceUnread, s.Score(judge.MetricChoiceAccuracy).N)
	}
	if md := reports.AnswerTable([]reports.Summary{s}).Markdown(); !strings.Contains(md, "| n/a (0 read, 1 unread) |") {
		t.Errorf("answer table:\n%s", md)
	}
}
