package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/text"
)

// mxFake starts a fake OpenAI server and returns a client for it: every
// role on endpoint "fake" with model "test-model", one attempt per call.
func mxFake(t *testing.T, opts llmtest.Options) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src := "[endpoint fake]\nbase_url = " + srv.URL() + "\nmax_attempts = 1\n"
	for _, r := range llm.Roles() {
		src += "[role " + r + "]\nendpoint = fake\nmodel = test-model\n"
	}
	cfg, err := llm.ParseConfig("test.conf", strings.NewReader(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// mxSample loads the bundled sample personas.
func mxSample(t *testing.T) *datasets.Dataset {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mxCheckAdmitted fails when a hit names a trace unknown to q's corpus or
// dated after q.AskedAt.
func mxCheckAdmitted(t *testing.T, d *datasets.Dataset, q datasets.Question, hits []Hit) {
	t.Helper()
	ok := map[string]bool{}
	for _, tr := range d.Visible(q) {
		ok[tr.ID] = true
	}
	for _, h := range hits {
		if len(h.TraceIDs) == 0 {
			t.Errorf("question %s: hit %q names no trace", q.ID, h.UnitID)
		}
		for _, id := range h.TraceIDs {
			if !ok[id] {
				t.Errorf("question %s (asked %s): hit %q returns trace %s, not admitted", q.ID, q.AskedAt, h.UnitID, id)
			}
		}
		if !q.AskedAt.IsZero() && h.Time.After(q.AskedAt) {
			t.Errorf("question %s: hit %q dated %s after %s", q.ID, h.UnitID, h.Time, q.AskedAt)
		}
	}
}

// mxReply is a Responder answering the content set last.
type mxReply struct {
	mu    sync.Mutex
	reply string
	calls []llmtest.ChatCall
}

func (r *mxReply) set(s string) { r.mu.Lock(); r.reply = s; r.mu.Unlock() }
func (r *mxReply) respond(c llmtest.ChatCall) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return r.reply, nil
}
func (r *mxReply) last() llmtest.ChatCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[len(r.calls)-1]
}

func TestModelExtractorKinds(t *testing.T) {
	rep := &mxReply{}
	c, _ := mxFake(t, llmtest.Options{Responder: rep.respond})
	x, err := NewModelExtractor(c, ModelExtractConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "model-extractor(model=test-model,role=extractor,t=0,max=500/200/2000)"; x.Name() != want {
		t.Errorf("Name = %q, want %q", x.Name(), want)
	}
	xp, err := NewModelExtractor(c, ModelExtractConfig{PlainFacts: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc, kind, text, reply string
		plain                   bool // use the PlainFacts extractor
		want                    []string
		invalid                 bool
	}{
		{"summary trimmed", llm.ExtractSummary, "Rented a cello today.", "  Ines rents a cello for £25 a month.\n", false, []string{"Ines rents a cello for £25 a month."}, false},
		{"summary empty answer", llm.ExtractSummary, "x", "   ", false, nil, false},
		{"keywords split, trimmed, repeats and bullets dropped", llm.ExtractKeywords, "cello", "cello rental; Hartley Music ;  £25 a month;Cello Rental\n- Grade 1 exam;", false,
			[]string{"cello rental", "Hartley Music", "£25 a month", "Grade 1 exam"}, false},
		{"keywords full-width semicolons", llm.ExtractKeywords, "医生让我去学游泳", "学游泳；医生；紧张。", false, []string{"学游泳", "医生", "紧张"}, false},
		{"facts plain", llm.ExtractFacts, "cello", `{"facts": ["Ines rents a cello.", " It costs £25 a month. ", ""]}`, false,
			[]string{"Ines rents a cello.", "It costs £25 a month."}, false},
		{"facts empty list", llm.ExtractFacts, "hi", `{"facts": []}`, false, nil, false},
		{"facts null", llm.ExtractFacts, "hi", `{"facts": null}`, false, nil, false},
		{"facts bare list", llm.ExtractFacts, "hi", `["A", "B"]`, false, []string{"A", "B"}, false},
		{"facts chinese", llm.ExtractFacts, "医生让我去学游泳", `{"facts":["医生建议林晓雯学游泳。"]}`, false, []string{"医生建议林晓雯学游泳。"}, false},
		{"facts wrong type", llm.ExtractFacts, "cello", `{"facts": "Ines rents a cello."}`, false, nil, true},
		{"facts missing field", llm.ExtractFacts, "cello", `{"items": ["A"]}`, false, nil, true},
		{"facts not json, rejected by the client", llm.ExtractFacts, "cello", "I could not find any facts.", false, nil, true},
		{"facts long prose, rejected by the client", llm.ExtractFacts, "cello", strings.Repeat("Ines talks about her cello at length. ", 6), false, nil, true},
		{"facts truncated, rejected by the client", llm.ExtractFacts, "cello", `{"facts": ["Ines rents a cello.", "It co`, false, nil, true},
		{"plain: facts fenced", llm.ExtractFacts, "cello", "```json\n{\"facts\": [\"Ines rents a cello.\"]}\n```", true, []string{"Ines rents a cello."}, false},
		{"plain: facts with prose around", llm.ExtractFacts, "cello", "Sure! Here they are: {\"facts\": [\"A\", \"B\", \"A\"]} Hope it helps.", true, []string{"A", "B"}, false},
		{"plain: facts not json", llm.ExtractFacts, "cello", "I could not find any facts.", true, nil, true},
		{"plain: facts truncated", llm.ExtractFacts, "cello", `{"facts": ["Ines rents a cello.", "It co`, true, nil, true},
	}
	invalid := map[bool]int{}
	calls := map[bool]int{}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ex := x
			if tc.plain {
				ex = xp
			}
			rep.set(tc.reply)
			got, err := ex.Extract(context.Background(), tc.kind, tc.text)
			calls[tc.plain]++
			call := rep.last()
			if !strings.Contains(call.LastUser(), tc.text) || call.Messages[0].Role != "system" {
				t.Errorf("request messages %+v: want a system prompt and the text", call.Messages)
			}
			if call.Temperature > 1e-6 {
				t.Errorf("temperature %v, want 0", call.Temperature)
			}
			wantMax := map[string]int{llm.ExtractSummary: 500, llm.ExtractKeywords: 200, llm.ExtractFacts: 2000}[tc.kind]
			if call.MaxTokens != wantMax {
				t.Errorf("max tokens %d, want %d", call.MaxTokens, wantMax)
			}
			schema := tc.kind == llm.ExtractFacts && !tc.plain
			if schema != (call.ResponseFormat == "json_schema") || schema && !strings.Contains(call.Schema, `"facts"`) {
				t.Errorf("response format %q schema %q for kind %s", call.ResponseFormat, call.Schema, tc.kind)
			}
			if tc.invalid {
				invalid[tc.plain]++
				var xe *ExtractionError
				if !errors.Is(err, ErrExtractionInvalid) || !errors.As(err, &xe) || xe.Kind != tc.kind {
					t.Fatalf("err = %v (%T), want an *ExtractionError", err, err)
				}
				var le *llm.Error
				byClient := strings.Contains(tc.desc, "rejected by the client")
				if byClient != errors.As(err, &le) {
					t.Errorf("err %v: wraps an *llm.Error = %t, want %t", err, !byClient, byClient)
				}
				if byClient && !strings.HasPrefix(tc.reply, strings.TrimSuffix(xe.Raw, text.Ellipsis)) || !byClient && xe.Raw != tc.reply {
					t.Errorf("Raw %q for the answer %q", xe.Raw, tc.reply)
				}
				if !strings.Contains(err.Error(), "retrieval: extract facts") {
					t.Errorf("message %q", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("items %q, want %q", got, tc.want)
			}
			if ex.Invalid() != invalid[tc.plain] {
				t.Errorf("Invalid = %d, want %d", ex.Invalid(), invalid[tc.plain])
			}
			if m := ex.Meter(); m.IngestCalls != calls[tc.plain] || m.IngestTokens <= 0 && !tc.invalid || m.QueryCalls != 0 {
				t.Errorf("meter %+v after %d calls", m, calls[tc.plain])
			}
		})
	}
}

func TestModelExtractorEdges(t *testing.T) {
	ctx := context.Background()
	if _, err := NewModelExtractor(nil, ModelExtractConfig{}); !errors.Is(err, ErrNeedsModel) {
		t.Errorf("nil chatter: err = %v, want ErrNeedsModel", err)
	}
	c, srv := mxFake(t, llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		if strings.Contains(call.LastUser(), "boom") {
			return "", &llmtest.StatusError{Status: 400, Message: "bad request"}
		}
		return "ok", nil
	}})
	if _, err := NewModelExtractor(c, ModelExtractConfig{FactsMaxTokens: -1}); err == nil {
		t.Error("negative budget: no error")
	}
	x, err := NewModelExtractor(c, ModelExtractConfig{Model: "other", SummaryMaxTokens: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.Name(), "model=other") || x.Config().SummaryMaxTokens != 50 || x.Config().FactsMaxTokens != 2000 {
		t.Errorf("name %q config %+v", x.Name(), x.Config())
	}
	// Empty content: no item, no call.
	for _, text := range []string{"", "  \n\t"} {
		got, err := x.Extract(ctx, llm.ExtractFacts, text)
		if err != nil || got != nil {
			t.Errorf("empty text %q: %q, %v", text, got, err)
		}
	}
	if n := srv.Stats().Total; n != 0 {
		t.Errorf("empty texts made %d calls", n)
	}
	if _, err := x.Extract(ctx, "haiku", "text"); err == nil || !strings.Contains(err.Error(), `unknown kind "haiku"`) {
		t.Errorf("unknown kind: err = %v", err)
	}
	// A failed call is an error, not an invalid extraction, and is metered.
	_, err = x.Extract(ctx, llm.ExtractSummary, "boom")
	if err == nil || errors.Is(err, ErrExtractionInvalid) || !strings.Contains(err.Error(), "retrieval: extract summary") {
		t.Errorf("failed call: err = %v", err)
	}
	if x.Meter().IngestCalls != 1 || x.Invalid() != 0 {
		t.Errorf("after a failed call: meter %+v, invalid %d", x.Meter(), x.Invalid())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := x.Extract(cctx, llm.ExtractSummary, "text"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	// The error message clips long raw answers.
	long := strings.Repeat("é", 500)
	e := &ExtractionError{Kind: llm.ExtractFacts, Raw: long, Err: errors.New("bad")}
	if len(e.Error()) > 600 || !strings.Contains(e.Error(), "…") {
		t.Errorf("message not clipped: %d bytes", len(e.Error()))
	}
}
