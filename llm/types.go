package llm

import (
	"context"
	"fmt"
	"time"
)

// Roles a model can play in an experiment; a config maps each to a model on
// an endpoint.
const (
	RoleEmbedder  = "embedder"
	RoleExtractor = "extractor"
	RoleBackbone  = "backbone"
	RoleJudge     = "judge"
)

// Response formats of a chat request.
const (
	FormatText       = ""            // free text
	FormatJSONObject = "json_object" // any JSON object
	FormatJSONSchema = "json_schema" // JSON matching ChatRequest.JSONSchema
)

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// ChatRequest is one chat completion. Zero values mean "not set" except
// Temperature, which is always sent (0 is greedy decoding, what judges use).
type ChatRequest struct {
	// Role picks the endpoint and default model ("" = backbone).
	Role string
	// Model overrides the role's model ("" = the role's); MODEL@ENDPOINT is
	// a model on another configured endpoint (a grid's reader(model=x@vllm)).
	Model       string
	Messages    []Message
	Temperature float64
	TopP        float64 // 0 = server default
	MaxTokens   int     // 0 = server default
	// Seed is sent when HasSeed is true (0 is a valid seed).
	Seed    int
	HasSeed bool
	Stop    []string
	// ResponseFormat is FormatText, FormatJSONObject or FormatJSONSchema;
	// for the last, JSONSchema holds the schema as JSON text and SchemaName
	// its name.
	ResponseFormat string
	JSONSchema     string
	SchemaName     string
	// Sample numbers repeated draws of the same request (at temperature > 0
	// a judge sampled N times makes N calls). It is part of the cache key and
	// is not sent.
	Sample int
}

// Usage counts tokens of one call as the server reported them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// ChatResponse is the answer to a ChatRequest.
type ChatResponse struct {
	Content      string
	FinishReason string
	Model        string // the model the server says answered
	Usage        Usage
	// Latency is the wall time of the network call that produced the answer
	// (for a cache hit: of the original call).
	Latency time.Duration
	// Cached is true when the answer came from the cache without a call.
	Cached bool
	// Attempts is the number of HTTP attempts this call made (0 on a hit).
	Attempts int
}

// EmbedRequest embeds a batch of texts.
type EmbedRequest struct {
	Role       string // "" = embedder
	Model      string // "" = the role's model; MODEL@ENDPOINT: on another configured endpoint
	Inputs     []string
	Dimensions int // 0 = the model's default
}

// EmbedResponse holds one vector per input, in input order.
type EmbedResponse struct {
	Vectors  [][]float32
	Model    string
	Usage    Usage
	Latency  time.Duration
	Cached   bool
	Attempts int
}

// Chatter is a chat model, what every component that calls one takes
// (readers, judges, memory systems, extractors, query rewriters): *Client
// satisfies it, through its cache, limits and retries; a test may give a
// stand-in.
type Chatter interface {
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

var _ Chatter = (*Client)(nil)

// Embedder turns texts into vectors: a model behind an endpoint, or an
// offline stand-in fitted on the corpus (package llm/offline).
type Embedder interface {
	// Name identifies the embedder and its settings in run records.
	Name() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Extraction kinds, as in CloneMem's index expansion: a short summary,
// keyphrases, and one simple sentence per fact.
const (
	ExtractSummary  = "summary"
	ExtractKeywords = "keywords"
	ExtractFacts    = "facts"
)

// Extractor derives retrieval units from a trace's text: a model prompted
// for it, or the offline extractive stand-in (package llm/offline).
type Extractor interface {
	// Name identifies the extractor and its settings in run records.
	Name() string
	// Extract returns the items of the given kind (one summary; keyphrases;
	// fact sentences) for text.
	Extract(ctx context.Context, kind, text string) ([]string, error)
}

// Error kinds of a failed call.
const (
	ErrRateLimit  = "rate_limit"  // 429 after every attempt
	ErrServer     = "server"      // 5xx after every attempt
	ErrTimeout    = "timeout"     // no answer within the endpoint's timeout, every attempt
	ErrNetwork    = "network"     // connection refused, reset, truncated body
	ErrAuth       = "auth"        // 401/403: wrong or missing key
	ErrNotFound   = "not_found"   // 404: unknown model or path
	ErrBadRequest = "bad_request" // other 4xx: not retried
	ErrBadOutput  = "bad_output"  // the server answered with something unusable
	ErrCanceled   = "canceled"    // the caller's context ended
)

// Error is a failed model call, as the caller records it.
type Error struct {
	Kind     string // one of the Err* kinds
	Status   int    // last HTTP status, 0 when there was none
	Attempts int
	Endpoint string // endpoint name (never its key)
	Model    string
	Message  string // the last error message
	Err      error  // the last underlying error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("llm: %s: model %q on endpoint %q, %d attempt(s)", e.Kind, e.Model, e.Endpoint, e.Attempts)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + RedactURLs(e.Message)
	}
	return s
}

// Unwrap returns the last underlying error.
func (e *Error) Unwrap() error { return e.Err }
