package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memlab/memlab/llm"
)

// Defaults of ModelExtractConfig: the token budgets of CloneMem's index
// expansion (memory-systems.md §1).
const (
	DefaultSummaryMaxTokens  = 500
	DefaultKeywordsMaxTokens = 200
	DefaultFactsMaxTokens    = 2000
)

// ErrExtractionInvalid is matched (errors.Is) by the *ExtractionError a
// ModelExtractor returns when the model's answer cannot be parsed.
var ErrExtractionInvalid = errors.New("invalid extraction output")

// ExtractionError is a model answer that could not be parsed. Raw is the
// whole answer, so a caller can fall back to it (BuildUnits indexes the raw
// text and counts the failure); the message clips it. It matches
// ErrExtractionInvalid with errors.Is and unwraps to the parse error.
type ExtractionError struct {
	Kind string // the extraction kind (llm.ExtractFacts, ...)
	Raw  string // the model's answer as received
	Err  error  // why it was rejected
}

// Error names the kind, the reason and the start of the raw answer.
func (e *ExtractionError) Error() string {
	return fmt.Sprintf("retrieval: extract %s: %v: %v: raw output %q", e.Kind, ErrExtractionInvalid, e.Err, mxClip(e.Raw, 200))
}

// Unwrap returns the parse error.
func (e *ExtractionError) Unwrap() error { return e.Err }

// Is reports whether target is ErrExtractionInvalid.
func (e *ExtractionError) Is(target error) bool { return target == ErrExtractionInvalid }

// ModelExtractConfig sets up a ModelExtractor. Zero values mean the
// defaults.
type ModelExtractConfig struct {
	// Role picks the endpoint and model ("" = llm.RoleExtractor).
	Role string
	// Model overrides the role's model ("" = the role's).
	Model string
	// Temperature of every call; CloneMem extracts greedily (0).
	Temperature float64
	// SummaryMaxTokens, KeywordsMaxTokens and FactsMaxTokens bound the
	// answers (0 = 500, 200 and 2000).
	SummaryMaxTokens, KeywordsMaxTokens, FactsMaxTokens int
	// PlainFacts asks for facts without a response format, for endpoints
	// without structured output; the JSON is then read from free text.
	PlainFacts bool
}

// ModelExtractor is an llm.Extractor backed by a chat model, with
// memlab's wording of CloneMem's index-expansion prompts:
//
//   - llm.ExtractSummary: one short paragraph on the main themes and key
//     information of the trace (free text, at most SummaryMaxTokens); one
//     item, the trimmed answer.
//   - llm.ExtractKeywords: keyphrases separated by ";" (free text, at most
//     KeywordsMaxTokens); the items are the answer split on ";" (also the
//     full-width "；" and line breaks), trimmed, list bullets removed,
//     empty and repeated phrases dropped.
//   - llm.ExtractFacts: every fact, personal detail, event, experience and
//     preference as one simple sentence with pronouns resolved and numbers,
//     places and dates kept, as {"facts":[string]} (JSON-schema response
//     format, or free text with PlainFacts; at most FactsMaxTokens). The
//     answer is parsed robustly: code fences are stripped and the outermost
//     {...} is taken; a bare JSON list of strings is accepted too. An
//     unparseable answer gives an *ExtractionError (errors.Is
//     ErrExtractionInvalid) carrying the raw answer, and is counted
//     (Invalid). *llm.Client itself rejects an answer that is not JSON when
//     JSON was asked (llm.ErrBadOutput, retried): that rejection becomes an
//     *ExtractionError too, whose Raw is only the start of the answer as
//     the client's message quotes it (about 80 bytes) and whose Err is the
//     *llm.Error.
//
// A text that is empty or only spaces gives no items and makes no call.
// Every call uses role Role at Temperature. Calls and tokens are counted as
// ingest spending in Meter, since extraction happens when units are built.
// A ModelExtractor is safe for concurrent use.
type ModelExtractor struct {
	c    llm.Chatter
	cfg  ModelExtractConfig
	name string

	mu      sync.Mutex
	meter   Meter
	invalid int
}

// NewModelExtractor returns a model-backed extractor. A nil c is an error
// wrapping ErrNeedsModel; negative token budgets are errors.
func NewModelExtractor(c llm.Chatter, cfg ModelExtractConfig) (*ModelExtractor, error) {
	if c == nil {
		return nil, fmt.Errorf("retrieval: new model extractor: %w", ErrNeedsModel)
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleExtractor
	}
	for _, b := range []struct {
		name string
		v    *int
		def  int
	}{{"SummaryMaxTokens", &cfg.SummaryMaxTokens, DefaultSummaryMaxTokens},
		{"KeywordsMaxTokens", &cfg.KeywordsMaxTokens, DefaultKeywordsMaxTokens},
		{"FactsMaxTokens", &cfg.FactsMaxTokens, DefaultFactsMaxTokens}} {
		switch {
		case *b.v < 0:
			return nil, fmt.Errorf("retrieval: new model extractor: %s = %d, want >= 0", b.name, *b.v)
		case *b.v == 0:
			*b.v = b.def
		}
	}
	if cfg.Temperature < 0 || cfg.Temperature > 2 {
		return nil, fmt.Errorf("retrieval: new model extractor: Temperature = %v, want a value in [0, 2]", cfg.Temperature)
	}
	name := fmt.Sprintf("model-extractor(model=%s,role=%s,t=%g,max=%d/%d/%d)", mxModelName(c, cfg.Role, cfg.Model), cfg.Role,
		cfg.Temperature, cfg.SummaryMaxTokens, cfg.KeywordsMaxTokens, cfg.FactsMaxTokens)
	return &ModelExtractor{c: c, cfg: cfg, name: name}, nil
}

// Name identifies the extractor and its settings, e.g.
// "model-extractor(model=gpt-4o-mini,role=extractor,t=0,max=500/200/2000)".
func (x *ModelExtractor) Name() string { return x.name }

// Config returns the configuration in use, defaults resolved.
func (x *ModelExtractor) Config() ModelExtractConfig { return x.cfg }

// Meter returns the calls and tokens spent so far (as ingest spending).
func (x *ModelExtractor) Meter() Meter {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.meter
}

// Invalid returns how many answers could not be parsed so far.
func (x *ModelExtractor) Invalid() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.invalid
}

const mxSummarySystem = `You read one record from a person's life (a diary entry, chat, email, post, note or similar) and write a short summary of it.
Write a single short paragraph that states the main themes and the key information: who, what, when, where, and how the person felt or what they decided.
Use the language of the record. Reply with the paragraph only.`

const mxKeywordsSystem = `You read one record from a person's life (a diary entry, chat, email, post, note or similar) and list the keyphrases someone would use to find it again: people, places, activities, objects, events, feelings, dates.
Use the language of the record. Reply with the keyphrases only, on one line, separated by semicolons (;).`

const mxFactsSystem = `You read one record from a person's life (a diary entry, chat, email, post, note or similar) and list every fact it contains: personal details, events, experiences, plans, opinions and preferences.
Write each fact as one simple, self-contained sentence. Replace pronouns with the names they stand for, and keep numbers, amounts, places and dates.
Use the language of the record. If the record holds no fact, give an empty list.
Reply with a JSON object of this form and nothing else: {"facts": ["fact one", "fact two"]}`

const mxFactsSchema = `{"type":"object","properties":{"facts":{"type":"array","items":{"type":"string"}}},"required":["facts"],"additionalProperties":false}`

// Extract returns the items of kind for text (see ModelExtractor). An
// unknown kind is an error; a failed call is returned wrapped; an
// unparseable facts answer is an *ExtractionError.
func (x *ModelExtractor) Extract(ctx context.Context, kind, text string) ([]string, error) {
	req := llm.ChatRequest{Role: x.cfg.Role, Model: x.cfg.Model, Temperature: x.cfg.Temperature}
	switch kind {
	case llm.ExtractSummary:
		req.MaxTokens = x.cfg.SummaryMaxTokens
		req.Messages = []llm.Message{{Role: "system", Content: mxSummarySystem}}
	case llm.ExtractKeywords:
		req.MaxTokens = x.cfg.KeywordsMaxTokens
		req.Messages = []llm.Message{{Role: "system", Content: mxKeywordsSystem}}
	case llm.ExtractFacts:
		req.MaxTokens = x.cfg.FactsMaxTokens
		req.Messages = []llm.Message{{Role: "system", Content: mxFactsSystem}}
		if !x.cfg.PlainFacts {
			req.ResponseFormat, req.JSONSchema, req.SchemaName = llm.FormatJSONSchema, mxFactsSchema, "facts"
		}
	default:
		return nil, fmt.Errorf("retrieval: extract: unknown kind %q (want %q, %q or %q)", kind, llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts)
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("retrieval: extract %s: %w", kind, err)
	}
	req.Messages = append(req.Messages, llm.Message{Role: "user", Content: "Record:\n" + text})
	resp, err := x.c.Chat(ctx, req)
	x.mu.Lock()
	x.meter.IngestCalls++
	x.meter.IngestTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	x.mu.Unlock()
	if raw, bad := mxBadOutput(err); bad {
		x.mu.Lock()
		x.invalid++
		x.mu.Unlock()
		return nil, &ExtractionError{Kind: kind, Raw: raw, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("retrieval: extract %s: %w", kind, err)
	}
	switch kind {
	case llm.ExtractSummary:
		s := strings.TrimSpace(mxStripFences(resp.Content))
		if s == "" {
			return nil, nil
		}
		return []string{s}, nil
	case llm.ExtractKeywords:
		return mxSplitKeywords(mxStripFences(resp.Content)), nil
	}
	facts, err := mxParseFacts(resp.Content)
	if err != nil {
		x.mu.Lock()
		x.invalid++
		x.mu.Unlock()
		return nil, &ExtractionError{Kind: kind, Raw: resp.Content, Err: err}
	}
	return facts, nil
}

// mxParseFacts reads {"facts":[...]} (null counts as an empty list) or a
// bare JSON list of strings.
func mxParseFacts(raw string) ([]string, error) {
	var facts []string
	var obj map[string]json.RawMessage
	if err := llm.DecodeReply(raw, &obj); err == nil {
		f, ok := obj["facts"]
		if !ok {
			return nil, errors.New(`no "facts" field`)
		}
		if err := json.Unmarshal(f, &facts); err != nil {
			return nil, fmt.Errorf(`"facts" is not a list of strings: %w`, err)
		}
	} else if lerr := json.Unmarshal([]byte(strings.TrimSpace(mxStripFences(raw))), &facts); lerr != nil {
		return nil, err
	}
	out := facts[:0:0]
	seen := map[string]bool{}
	for _, f := range facts {
		f = strings.TrimSpace(f)
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// mxSplitKeywords splits a keyphrase answer into phrases.
func mxSplitKeywords(s string) []string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '；' || r == '\n' || r == '\r' })
	var out []string
	seen := map[string]bool{}
	for _, f := range fields {
		f = strings.TrimSpace(f)
		f = strings.TrimLeft(f, "-*•·0123456789. ")
		f = strings.TrimSpace(strings.TrimRight(f, "。.,，"))
		if f == "" {
			continue
		}
		if key := strings.ToLower(f); !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}

// mxStripFences removes a surrounding Markdown code fence (```json ... ```).
func mxStripFences(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s
	}
	t = t[3:]
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:] // drop the info string ("json")
	} else {
		t = strings.TrimPrefix(t, "json")
	}
	t = strings.TrimSpace(t)
	t = strings.TrimSuffix(t, "```")
	return strings.TrimSpace(t)
}

// mxBadOutput reports whether err is the model layer's rejection of an
// answer that is not the JSON asked for (llm.ErrBadOutput, after its
// retries). It returns the start of the answer the error's message quotes
// (the client clips it), or the whole message when it quotes none.
func mxBadOutput(err error) (string, bool) {
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrBadOutput {
		return "", false
	}
	if i := strings.Index(le.Message, `: "`); i >= 0 {
		if s, uerr := strconv.Unquote(le.Message[i+2:]); uerr == nil {
			return s, true
		}
	}
	return le.Message, true
}

// mxClip shortens s to at most n bytes on a rune boundary, marking the cut.
func mxClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// mxModelName is the model an llm.Chatter will use for role: model when set,
// else the role's model when c is an *llm.Client, else "role:ROLE".
func mxModelName(c llm.Chatter, role, model string) string {
	if model != "" {
		return model
	}
	if cl, ok := c.(*llm.Client); ok && cl != nil && cl.Config() != nil {
		if _, m, err := cl.Config().Role(role); err == nil && m != "" {
			return m
		}
	}
	return "role:" + role
}

// mxMeterOf returns the meter of s when it counts its model use.
func mxMeterOf(s any) Meter {
	if m, ok := s.(Metered); ok {
		return m.Meter()
	}
	return Meter{}
}
