package generate

import (
	"context"
	"errors"
	"fmt"
	"github.com/memlab/memlab/component"
	"reflect"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Defaults of ReaderConfig, as in CloneMem's reader protocol (temperature
// 0.7 for free text, 0.1 for multiple choice).
const (
	DefaultFreeTemperature   = 0.7
	DefaultChoiceTemperature = 0.1
	DefaultFreeMaxTokens     = 512
	DefaultChoiceMaxTokens   = 16
)

// ReaderConfig configures a ModelReader. Zero values mean the defaults.
type ReaderConfig struct {
	// Role is the llm role whose endpoint answers ("" = llm.RoleBackbone)
	// and Model overrides the role's model ("" = the role's).
	Role  string
	Model string
	// FreeTemperature and ChoiceTemperature are the sampling temperatures
	// of free-text and multiple-choice questions: 0 means the default (0.7
	// and 0.1), a negative value sends 0 (greedy decoding); at most 2.
	FreeTemperature   float64
	ChoiceTemperature float64
	// FreeMaxTokens and ChoiceMaxTokens bound the reply (0 = 512 and 16).
	FreeMaxTokens   int
	ChoiceMaxTokens int
	// PersonName is the name of the person whose memories are read (the
	// corpus name), used by the prompts; "" leaves the person unnamed.
	PersonName string
	// Seed is sent when HasSeed is true (0 is a valid seed).
	Seed    int
	HasSeed bool
}

// ModelReader answers questions with a chat model: it renders the prompt
// that PromptFor chooses, sends it through an llm.Chatter, and reads the reply.
//
// Free text (no options): Answer.Text and Answer.Raw are the reply, Outcome
// is "". A LoCoMo adversarial question (PromptLoCoMoAdversarial) is asked
// as a choice between LoCoMoNotMentioned and its adversarial answer: a
// reply naming an option has that option's text as Answer.Text, and
// Abstained is true when it is LoCoMoNotMentioned; any other reply is kept
// as free text.
//
// Multiple choice: the reply is read with ParseChoice. One option named:
// Choice is its id, Text its text, Outcome OutcomeChosen, and Abstained is
// true when it is the "cannot be determined" option (CannotDetermine).
// Several options named: Outcome OutcomeAmbiguous, Choice "". No option
// named: Outcome OutcomeUnparseable, Choice "" — unless the reply is a
// refusal ("I cannot determine...", "I don't remember", "not enough
// information", "无法确定", ...; see IsRefusal): then, when the question
// has a "cannot be determined" option, that option is chosen (Outcome
// OutcomeChosen, Abstained true), and otherwise the outcome stays
// unparseable with Abstained true. An ambiguous reply is never turned into
// a refusal. Unparseable and ambiguous outputs are returned with a nil
// error: they are recorded outcomes, not wrong letters.
//
// A failed model call returns an error wrapping the client's *llm.Error
// (retries happen inside the client) and a zero Answer; the run records the
// failure.
type ModelReader struct {
	c       llm.Chatter
	cfg     ReaderConfig
	model   string
	prompts map[string]Prompt // by Name, hashes recomputed at construction
	name    string
}

// NewModelReader returns a reader calling c with cfg (defaults filled in).
// A nil llm.Chatter or an out-of-range setting is an error.
func NewModelReader(c llm.Chatter, cfg ReaderConfig) (*ModelReader, error) {
	if c == nil {
		return nil, errors.New("generate: new model reader: the llm.Chatter is nil (want an *llm.Client, see llm.New)")
	}
	if v := reflect.ValueOf(c); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("generate: new model reader: the llm.Chatter is a nil %T (want a client from llm.New)", c)
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleBackbone
	}
	for _, t := range []struct {
		name string
		v    *float64
		def  float64
	}{{"FreeTemperature", &cfg.FreeTemperature, DefaultFreeTemperature}, {"ChoiceTemperature", &cfg.ChoiceTemperature, DefaultChoiceTemperature}} {
		switch {
		case *t.v == 0:
			*t.v = t.def
		case *t.v < 0:
			*t.v = 0
		case *t.v > 2:
			return nil, fmt.Errorf("generate: new model reader: %s = %v: want at most 2", t.name, *t.v)
		}
	}
	for _, m := range []struct {
		name string
		v    *int
		def  int
	}{{"FreeMaxTokens", &cfg.FreeMaxTokens, DefaultFreeMaxTokens}, {"ChoiceMaxTokens", &cfg.ChoiceMaxTokens, DefaultChoiceMaxTokens}} {
		switch {
		case *m.v == 0:
			*m.v = m.def
		case *m.v < 0:
			return nil, fmt.Errorf("generate: new model reader: %s = %d: want a positive number (0 = default)", m.name, *m.v)
		}
	}
	cfg.PersonName = strings.TrimSpace(cfg.PersonName)
	r := &ModelReader{c: c, cfg: cfg, model: cfg.Model, prompts: map[string]Prompt{}}
	if r.model == "" {
		r.model = "default"
		if cc, ok := c.(interface{ Config() *llm.Config }); ok {
			if conf := cc.Config(); conf != nil {
				if _, m, err := conf.Role(cfg.Role); err == nil && m != "" {
					r.model = m
				}
			}
		}
	}
	var knowMe []string
	for _, p := range Prompts() {
		p.Hash = PromptHash(p.System, p.User)
		r.prompts[p.Name] = p
		if strings.HasPrefix(p.Name, "knowme-") {
			knowMe = append(knowMe, p.Hash)
		}
	}
	r.name = fmt.Sprintf("model-reader(%s:%s,free=%s,mc=%s,knowme=%s)", cfg.Role, r.model,
		r.prompts[PromptCloneMemFree.Name].Hash, r.prompts[PromptCloneMemChoice.Name].Hash,
		PromptHash(strings.Join(knowMe, ","), ""))
	return r, nil
}

// Name identifies the reader: its role, model and prompt hashes, e.g.
// "model-reader(backbone:gpt-4o-mini,free=ab12cd34ef56,mc=...,knowme=...)"
// where knowme is the hash of the KnowMe family prompts' hashes. The model
// is cfg.Model, else the role's model when the llm.Chatter is an *llm.Client,
// else "default".
func (r *ModelReader) Name() string { return r.name }

// Config returns the reader's configuration with the defaults filled in.
func (r *ModelReader) Config() ReaderConfig { return r.cfg }

// PromptFor returns the prompt the reader uses for q (see the package
// function PromptFor), as it was when the reader was made.
func (r *ModelReader) PromptFor(q datasets.Question) Prompt {
	p := PromptFor(q)
	if have, ok := r.prompts[p.Name]; ok {
		return have
	}
	return p
}

// Request returns the chat request Answer sends for q and the passages
// (a dry run estimates a run's cost from it, without calling). A LoCoMo
// adversarial question is rendered with its two options (LoCoMoOptions)
// and the free-text settings.
func (r *ModelReader) Request(q datasets.Question, passages []Passage) (llm.ChatRequest, error) {
	p := r.PromptFor(q)
	shown := q
	if p.Name == PromptLoCoMoAdversarial.Name {
		shown.Choices = LoCoMoOptions(q)
	}
	system, user, err := p.Render(r.cfg.PersonName, shown, passages)
	if err != nil {
		return llm.ChatRequest{}, fmt.Errorf("generate: model reader: question %q: %w", q.ID, err)
	}
	req := llm.ChatRequest{Role: r.cfg.Role, Model: r.cfg.Model, Seed: r.cfg.Seed, HasSeed: r.cfg.HasSeed,
		Messages:    []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Temperature: r.cfg.FreeTemperature, MaxTokens: r.cfg.FreeMaxTokens}
	if len(q.Choices) > 0 {
		req.Temperature, req.MaxTokens = r.cfg.ChoiceTemperature, r.cfg.ChoiceMaxTokens
	}
	return req, nil
}

// Answer answers q from the passages, in rank order, with one model call.
func (r *ModelReader) Answer(ctx context.Context, q datasets.Question, passages []Passage) (Answer, error) {
	p := r.PromptFor(q)
	mc := len(q.Choices) > 0
	req, err := r.Request(q, passages)
	if err != nil {
		return Answer{}, err
	}
	resp, err := r.c.Chat(ctx, req)
	if err != nil {
		return Answer{}, fmt.Errorf("generate: model reader: question %q, prompt %s (%s): %w", q.ID, p.Name, p.Hash, err)
	}
	reply := resp.Content
	if p.Name == PromptLoCoMoAdversarial.Name {
		return readLoCoMoOption(reply, LoCoMoOptions(q)), nil
	}
	if !mc {
		return Answer{Text: strings.TrimSpace(reply), Raw: reply}, nil
	}
	return readChoice(reply, q.Choices), nil
}

// readChoice turns a multiple-choice reply into an Answer (see ModelReader).
func readChoice(reply string, choices []datasets.Choice) Answer {
	a := Answer{Raw: reply}
	cbd := CannotDetermine(choices)
	id, err := ParseChoice(reply, choices)
	switch {
	case err == nil:
		a.Choice, a.Outcome = id, OutcomeChosen
	case errors.Is(err, ErrAmbiguous):
		a.Outcome = OutcomeAmbiguous
		return a
	case IsRefusal(reply):
		a.Abstained = true
		if cbd == "" {
			a.Outcome = OutcomeUnparseable
			return a
		}
		a.Choice, a.Outcome = cbd, OutcomeChosen
	default:
		a.Outcome = OutcomeUnparseable
		return a
	}
	for _, ch := range choices {
		if ch.ID == a.Choice {
			a.Text = ch.Text
		}
	}
	if a.Choice == cbd {
		a.Abstained = true
	}
	return a
}

// refusalPatterns are lowercase phrases of a reply declining to answer, in
// addition to the "cannot be determined" phrases of CannotDetermine.
var refusalPatterns = []string{
	"i don't know", "i do not know", "i don't remember", "i do not remember", "i can't remember", "i cannot remember",
	"i don't recall", "i do not recall", "i can't recall", "i cannot recall", "can't say", "cannot say", "can't tell",
	"cannot tell", "can't answer", "cannot answer", "unable to answer", "no way to know", "not mentioned",
	"no information", "don't have enough", "do not have enough", "doesn't say", "don't say", "do not say",
	"not in my memories", "my memories don't", "my memories do not", "impossible to know", "impossible to tell",
	"不知道", "不记得", "记不清", "无法回答", "不清楚", "没有提到", "没有提及", "想不起",
}

// IsRefusal reports whether a model reply declines to answer: it contains
// (case-insensitively, curly apostrophes folded) a phrase such as "cannot
// determine", "cannot be determined", "not enough information", "I don't
// know", "I don't remember", "can't say", "not mentioned", "无法确定",
// "不知道" or "不记得". It is a heuristic meant for replies in which no
// option could be found.
func IsRefusal(reply string) bool {
	t := strings.ToLower(strings.Join(strings.Fields(strings.NewReplacer("’", "'", "‘", "'").Replace(reply)), " "))
	for _, list := range [][]string{cbdPatterns, refusalPatterns} {
		for _, p := range list {
			if strings.Contains(t, p) {
				return true
			}
		}
	}
	return false
}

// Spec is the reader's component spec: its model (llm.ModelSpec of its
// role and model), the temperatures and token limits in use, the person
// named in prompts, the seed, and the hash of every prompt it can send.
func (r *ModelReader) Spec() component.Spec {
	role := r.cfg.Role
	if role == "" {
		role = llm.RoleBackbone
	}
	hashes := make(map[string]string, len(r.prompts))
	for name, p := range r.prompts {
		hashes[name] = p.Hash
	}
	s := component.New("model-reader").With("role", role).With("free_temperature", r.cfg.FreeTemperature).
		With("choice_temperature", r.cfg.ChoiceTemperature).With("free_max_tokens", r.cfg.FreeMaxTokens).
		With("choice_max_tokens", r.cfg.ChoiceMaxTokens).With("person_name", r.cfg.PersonName).With("prompts", hashes).
		With("state_section", StateSectionHash).
		Part("model", llm.ModelSpec(r.c, role, r.cfg.Model))
	if r.cfg.HasSeed {
		s = s.With("seed", r.cfg.Seed)
	}
	return s
}

// Version says where the reader's calls go (llm.Target: model, endpoint
// and its URLs, never a key); run specs record it beside Name.
func (r *ModelReader) Version() string {
	role := r.cfg.Role
	if role == "" {
		role = llm.RoleBackbone
	}
	return llm.Target(r.c, role, r.cfg.Model)
}
