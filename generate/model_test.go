package generate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// fakeClient returns an *llm.Client whose every role is "test-model" on a
// fake server started with opts.
func fakeClient(t *testing.T, opts llmtest.Options) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src := "[endpoint fake]\nbase_url = " + srv.URL() + "\napi_key_env = FAKE_KEY\nmax_attempts = 3\n"
	for _, r := range llm.Roles() {
		src += "[role " + r + "]\nendpoint = fake\nmodel = test-model\n"
	}
	cfg, err := llm.ParseConfig("test.conf", strings.NewReader(src), func(string) string { return "k" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func newReader(t *testing.T, c llm.Chatter, cfg ReaderConfig) *ModelReader {
	t.Helper()
	r, err := NewModelReader(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func lastCall(t *testing.T, srv *llmtest.Server) llmtest.ChatCall {
	t.Helper()
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("no chat call reached the server")
	}
	return calls[len(calls)-1]
}

var testPassages = []Passage{
	{ID: "u1", TraceIDs: []string{"t1"}, Text: "Ran the Berlin marathon today, my knee hurts.", Time: time.Date(2023, 5, 4, 0, 0, 0, 0, time.UTC), Medium: "diary"},
	{ID: "u2", TraceIDs: []string{"t2"}, Text: "Doctor says no running for six months.", Time: time.Date(2023, 5, 6, 18, 30, 0, 0, time.UTC), Medium: "chat_private"},
	{ID: "u3", TraceIDs: []string{"t3"}, Text: "Bought new shoes."},
}

func mcQuestion() datasets.Question {
	return datasets.Question{ID: "q1", Task: "factual", Text: "What happened to my running last spring?",
		AskedAt: time.Date(2023, 9, 1, 10, 15, 0, 0, time.UTC), Choices: abcde, Correct: "C"}
}

func TestModelReaderChoice(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{})
	r := newReader(t, c, ReaderConfig{PersonName: "Mira Holt"})
	noCBD := abcde[:4]
	tests := []struct {
		name      string
		reply     string
		choices   []datasets.Choice
		choice    string
		outcome   string
		abstained bool
	}{
		{"letter", "C", nil, "C", OutcomeChosen, false},
		{"option word", "Option C", nil, "C", OutcomeChosen, false},
		{"bracketed lowercase", "(c)", nil, "C", OutcomeChosen, false},
		{"letter and paren", "C)", nil, "C", OutcomeChosen, false},
		{"option text", "She stopped running after an injury.", nil, "C", OutcomeChosen, false},
		{"two letters", "A or B", nil, "", OutcomeAmbiguous, false},
		{"prose without a letter", "Honestly it was a hard year for me.", nil, "", OutcomeUnparseable, false},
		{"cbd letter", "E", nil, "E", OutcomeChosen, true},
		{"refusal", "I cannot determine that from my memories.", nil, "E", OutcomeChosen, true},
		{"refusal curly apostrophe", "I don’t remember anything about it.", nil, "E", OutcomeChosen, true},
		{"refusal without cbd option", "I don't know.", noCBD, "", OutcomeUnparseable, true},
		{"ambiguous refusal stays ambiguous", "I cannot determine whether A or B.", nil, "", OutcomeAmbiguous, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Enqueue(tt.reply)
			q := mcQuestion()
			if tt.choices != nil {
				q.Choices = tt.choices
			}
			a, err := r.Answer(context.Background(), q, testPassages)
			if err != nil {
				t.Fatalf("Answer: %v", err)
			}
			if a.Choice != tt.choice || a.Outcome != tt.outcome || a.Abstained != tt.abstained {
				t.Errorf("got choice %q outcome %q abstained %v, want %q %q %v", a.Choice, a.Outcome, a.Abstained, tt.choice, tt.outcome, tt.abstained)
			}
			if a.Raw != tt.reply {
				t.Errorf("Raw = %q, want the reply %q", a.Raw, tt.reply)
			}
			wantText := ""
			for _, ch := range q.Choices {
				if ch.ID == tt.choice {
					wantText = ch.Text
				}
			}
			if a.Text != wantText {
				t.Errorf("Text = %q, want %q", a.Text, wantText)
			}
			call := lastCall(t, srv)
			if !call.HasTemperature || math.Abs(call.Temperature-0.1) > 1e-6 || call.MaxTokens != 16 {
				t.Errorf("sent temperature %v (present %v), max tokens %d; want 0.1 and 16", call.Temperature, call.HasTemperature, call.MaxTokens)
			}
		})
	}
}

func TestModelReaderChoicePrompt(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{Replies: []string{"C"}})
	r := newReader(t, c, ReaderConfig{PersonName: "Mira Holt"})
	if _, err := r.Answer(context.Background(), mcQuestion(), testPassages); err != nil {
		t.Fatal(err)
	}
	call := lastCall(t, srv)
	if len(call.Messages) != 2 || call.Messages[0].Role != "system" || call.Messages[1].Role != "user" {
		t.Fatalf("messages = %+v, want system then user", call.Messages)
	}
	if call.Model != "test-model" {
		t.Errorf("model = %q, want the role's test-model", call.Model)
	}
	sys, user := call.Messages[0].Content, call.Messages[1].Content
	for _, want := range []string{"You are Mira Holt.", "close friend", "on 2023-09-01 10:15", "letter of your option only"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system message lacks %q:\n%s", want, sys)
		}
	}
	for _, want := range []string{
		"---- idx 1 ----\ndate: 2023-05-04\nmedium: diary\nRan the Berlin marathon today",
		"---- idx 2 ----\ndate: 2023-05-06 18:30\nmedium: chat_private\nDoctor says",
		"---- idx 3 ----\ndate: unknown\nmedium: unknown\nBought new shoes.",
		"Your friend asks: What happened to my running last spring?",
		"A. She ran the Berlin marathon\nB. She ran the Paris marathon\nC. She stopped running after an injury\nD. She never ran a marathon\nE. Cannot be determined based on available information\n",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
	if strings.Index(user, "idx 1") > strings.Index(user, "idx 2") {
		t.Error("passages are not in rank order")
	}
	if call.HasSeed {
		t.Error("a seed was sent without HasSeed")
	}
}

func TestModelReaderFree(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{})
	r := newReader(t, c, ReaderConfig{PersonName: "Mira Holt", Seed: 7, HasSeed: true})
	srv.Enqueue("  I hurt my knee in Berlin and had to stop running.\n")
	q := mcQuestion()
	q.Choices, q.Correct = nil, ""
	a, err := r.Answer(context.Background(), q, testPassages)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "I hurt my knee in Berlin and had to stop running." || a.Raw != "  I hurt my knee in Berlin and had to stop running.\n" ||
		a.Outcome != "" || a.Choice != "" || a.Abstained {
		t.Errorf("answer = %+v", a)
	}
	call := lastCall(t, srv)
	if math.Abs(call.Temperature-0.7) > 1e-6 || call.MaxTokens != 512 {
		t.Errorf("sent temperature %v, max tokens %d; want 0.7 and 512", call.Temperature, call.MaxTokens)
	}
	if !call.HasSeed || call.Seed != 7 {
		t.Errorf("seed = %d (present %v), want 7", call.Seed, call.HasSeed)
	}
	sys, user := call.Messages[0].Content, call.Messages[1].Content
	for _, want := range []string{"You are Mira Holt.", "first person", "say so plainly"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system message lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "letter") || strings.Contains(user, "Options:") {
		t.Errorf("free-text prompt mentions options:\n%s\n%s", sys, user)
	}
	if !strings.Contains(user, "It is now 2023-09-01 10:15.") || !strings.Contains(user, "---- idx 2 ----") {
		t.Errorf("user message lacks the question time or the memory blocks:\n%s", user)
	}
}

func TestModelReaderSettings(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{})
	r := newReader(t, c, ReaderConfig{Model: "other-model", FreeTemperature: -1, ChoiceTemperature: 0.5, FreeMaxTokens: 100, ChoiceMaxTokens: 3})
	srv.Enqueue("free", "B")
	q := mcQuestion()
	free := q
	free.Choices = nil
	if _, err := r.Answer(context.Background(), free, nil); err != nil {
		t.Fatal(err)
	}
	call := lastCall(t, srv)
	if call.Model != "other-model" || call.Temperature > 1e-6 || call.MaxTokens != 100 {
		t.Errorf("free call: model %q temperature %v max tokens %d; want other-model, 0, 100", call.Model, call.Temperature, call.MaxTokens)
	}
	if !strings.Contains(call.Messages[1].Content, "(no memories were retrieved)") {
		t.Errorf("empty context not stated:\n%s", call.Messages[1].Content)
	}
	if !strings.Contains(call.Messages[0].Content, "You are the person whose memories") {
		t.Errorf("unnamed person framing missing:\n%s", call.Messages[0].Content)
	}
	if _, err := r.Answer(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	call = lastCall(t, srv)
	if math.Abs(call.Temperature-0.5) > 1e-6 || call.MaxTokens != 3 {
		t.Errorf("choice call: temperature %v max tokens %d; want 0.5 and 3", call.Temperature, call.MaxTokens)
	}
	got := r.Config()
	if got.Role != llm.RoleBackbone || got.FreeTemperature != 0 || got.ChoiceTemperature != 0.5 {
		t.Errorf("Config() = %+v", got)
	}
}

func TestModelReaderRetryThenSuccess(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{Replies: []string{"B"},
		Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultServerError}}}})
	r := newReader(t, c, ReaderConfig{})
	a, err := r.Answer(context.Background(), mcQuestion(), testPassages)
	if err != nil {
		t.Fatal(err)
	}
	if a.Choice != "B" || a.Outcome != OutcomeChosen {
		t.Errorf("answer = %+v, want B chosen", a)
	}
	st := srv.Stats()
	if st.ByOutcome[llmtest.FaultServerError] != 1 || st.ByOutcome[llmtest.OutcomeOK] != 1 {
		t.Errorf("server outcomes = %v, want one 500 then one ok", st.ByOutcome)
	}
}

func TestModelReaderPersistentError(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{Responder: func(llmtest.ChatCall) (string, error) {
		return "", &llmtest.StatusError{Status: 400, Type: "invalid_request_error", Message: "context too long"}
	}})
	r := newReader(t, c, ReaderConfig{})
	for _, q := range []datasets.Question{mcQuestion(), {ID: "q2", Text: "Where did I run?"}} {
		a, err := r.Answer(context.Background(), q, testPassages)
		if err == nil {
			t.Fatalf("%s: no error, answer %+v", q.ID, a)
		}
		var le *llm.Error
		if !errors.As(err, &le) || le.Kind != llm.ErrBadRequest || le.Status != 400 {
			t.Fatalf("%s: error %v, want an *llm.Error of kind bad_request", q.ID, err)
		}
		if !strings.HasPrefix(err.Error(), "generate: model reader: question \""+q.ID+"\"") {
			t.Errorf("error %q does not name the question", err)
		}
		if a.Choice != "" || a.Outcome != "" || a.Text != "" {
			t.Errorf("%s: a failed call returned an answer %+v", q.ID, a)
		}
	}
	if n := srv.Stats().ByOutcome[llmtest.OutcomeResponderError]; n != 2 {
		t.Errorf("server saw %d failing calls, want 2 (400 is not retried)", n)
	}
}

func TestModelReaderKnowMeFamilies(t *testing.T) {
	c, srv := fakeClient(t, llmtest.Options{Responder: func(llmtest.ChatCall) (string, error) { return "ok", nil }})
	r := newReader(t, c, ReaderConfig{})
	tests := []struct {
		task   string
		prompt string
		marker string // a phrase only that family's system message has
	}{
		{"Logical Event Ordering", "knowme-ordering", "numbered list"},
		{"Temporal Reasoning", "knowme-temporal", "with their number and unit"},
		{"Mnestic Trigger Analysis", "knowme-temporal", "with their number and unit"},
		{"Adversarial Abstention", "knowme-abstention", "say plainly that it cannot be answered"},
		{"Information Extraction", "knowme-extraction", "short, factual answer"},
		{"Mind-Body Interaction", "knowme-insight", "on the inside"},
		{"Expert-Annotated Psychoanalysis", "knowme-insight", "on the inside"},
		{"mind_body interaction", "knowme-insight", "on the inside"},
		{"TEMPORAL-REASONING", "knowme-temporal", "with their number and unit"},
		{"experience_recall", "clonemem-free", "close friend"},
		{"", "clonemem-free", "close friend"},
	}
	markers := map[string]bool{}
	for _, tt := range tests {
		markers[tt.marker] = true
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			q := datasets.Question{ID: "k1", Task: tt.task, Text: "On July 15, 1975, what did my father do?"}
			if got := r.PromptFor(q).Name; got != tt.prompt {
				t.Errorf("PromptFor = %s, want %s", got, tt.prompt)
			}
			a, err := r.Answer(context.Background(), q, []Passage{{ID: "5", Text: "I saw the bus.", Medium: "stream",
				Time: time.Date(1969, 8, 15, 14, 1, 20, 0, time.UTC)}})
			if err != nil || a.Text != "ok" || a.Outcome != "" {
				t.Fatalf("answer %+v, %v", a, err)
			}
			call := lastCall(t, srv)
			sys := call.Messages[0].Content
			for m := range markers {
				if strings.Contains(sys, m) != (m == tt.marker) {
					t.Errorf("system message contains %q = %v, want %v:\n%s", m, !(m == tt.marker), m == tt.marker, sys)
				}
			}
			if strings.HasPrefix(tt.prompt, "knowme-") && !strings.Contains(call.Messages[1].Content, "date: 1969-08-15 14:01:20\nmedium: stream") {
				t.Errorf("record date with seconds missing:\n%s", call.Messages[1].Content)
			}
			if math.Abs(call.Temperature-0.7) > 1e-6 || call.MaxTokens != 512 {
				t.Errorf("temperature %v max tokens %d, want the free-text settings", call.Temperature, call.MaxTokens)
			}
		})
	}
	// Options win over the task: a KnowMe task with options is multiple choice.
	if got := PromptFor(datasets.Question{Task: "Temporal Reasoning", Choices: abcde}).Name; got != "clonemem-choice" {
		t.Errorf("PromptFor(with options) = %s, want clonemem-choice", got)
	}
}

type nilChatter struct{}

func (*nilChatter) Chat(context.Context, llm.ChatRequest) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, nil
}

func TestNewModelReaderErrors(t *testing.T) {
	c, _ := fakeClient(t, llmtest.Options{})
	var nilClient *llm.Client
	var typedNil *nilChatter
	tests := []struct {
		name string
		c    llm.Chatter
		cfg  ReaderConfig
		want string
	}{
		{"nil chatter", nil, ReaderConfig{}, "Chatter is nil"},
		{"nil client", nilClient, ReaderConfig{}, "nil *llm.Client"},
		{"nil pointer chatter", typedNil, ReaderConfig{}, "nil *generate.nilChatter"},
		{"hot free", c, ReaderConfig{FreeTemperature: 2.5}, "FreeTemperature = 2.5"},
		{"hot choice", c, ReaderConfig{ChoiceTemperature: 3}, "ChoiceTemperature = 3"},
		{"negative tokens", c, ReaderConfig{ChoiceMaxTokens: -1}, "ChoiceMaxTokens = -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewModelReader(tt.c, tt.cfg)
			if err == nil || r != nil {
				t.Fatalf("got reader %v, error %v; want an error", r, err)
			}
			if !strings.HasPrefix(err.Error(), "generate: new model reader: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestModelReaderName(t *testing.T) {
	c, _ := fakeClient(t, llmtest.Options{})
	tests := []struct {
		c    llm.Chatter
		cfg  ReaderConfig
		want string
	}{
		{c, ReaderConfig{}, "model-reader(backbone:test-model,"},
		{c, ReaderConfig{Role: llm.RoleJudge, Model: "gpt-4o-mini"}, "model-reader(judge:gpt-4o-mini,"},
		{c, ReaderConfig{Role: "nosuchrole"}, "model-reader(nosuchrole:default,"},
		{&nilChatter{}, ReaderConfig{}, "model-reader(backbone:default,"},
	}
	for _, tt := range tests {
		r := newReader(t, tt.c, tt.cfg)
		name := r.Name()
		if !strings.HasPrefix(name, tt.want) {
			t.Errorf("Name() = %q, want prefix %q", name, tt.want)
		}
		for _, p := range []Prompt{PromptCloneMemFree, PromptCloneMemChoice} {
			if !strings.Contains(name, p.Hash) {
				t.Errorf("Name() = %q lacks the hash %s of %s", name, p.Hash, p.Name)
			}
		}
		if !strings.Contains(name, ",knowme=") || !strings.HasSuffix(name, ")") {
			t.Errorf("Name() = %q lacks the KnowMe prompts' hash", name)
		}
	}
}

func TestIsRefusal(t *testing.T) {
	tests := []struct {
		reply string
		want  bool
	}{
		{"I cannot determine this.", true},
		{"It cannot be determined from what I remember.", true},
		{"I DON'T KNOW", true},
		{"I don’t remember that trip.", true},
		{"Sorry, there's not enough information.", true},
		{"My memories don't say anything about it.", true},
		{"这个我不记得了", true},
		{"无法确定", true},
		{"C", false},
		{"I ran the Berlin marathon.", false},
		{"I know exactly: it was Paris.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsRefusal(tt.reply); got != tt.want {
			t.Errorf("IsRefusal(%q) = %v, want %v", tt.reply, got, tt.want)
		}
	}
}
