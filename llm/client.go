package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/text"
	openai "github.com/sashabaranov/go-openai"
)

// Options tunes a Client.
type Options struct {
	// Cache, when set, serves repeated requests without a call and coalesces
	// identical requests in flight. Failed calls are never cached.
	Cache *cache.Cache
	// BackoffBase and BackoffMax bound the exponential backoff between
	// attempts (defaults 500ms and 30s); a Retry-After header overrides it.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After waited (0 =
	// DefaultMaxRetryAfter, 120 s) on endpoints that set no
	// max_retry_after: past it the call fails as rate-limited.
	MaxRetryAfter time.Duration
	// Seed seeds the backoff jitter (0 = a fixed default), so runs are
	// reproducible.
	Seed uint64
}

// Client calls models through OpenAI-compatible endpoints. It is safe for
// concurrent use; concurrency and rate limits are per endpoint.
type Client struct {
	cfg       *Config
	opts      Options
	endpoints map[string]*endpointRT
	usage     *usageBook
	rngMu     sync.Mutex
	rng       *rand.Rand
	failures  firstFailures
}

// endpointRT is an endpoint at run time: its go-openai clients (one per
// replica), concurrency slots and rate buckets.
type endpointRT struct {
	ep       *Endpoint
	mu       sync.Mutex
	replicas []*replica
	next     int
	slots    chan struct{}
	requests *bucket
	tokens   *bucket
}

type replica struct {
	client   *openai.Client
	inFlight int
}

// New returns a client for cfg. cfg must not be nil (see DefaultConfig).
func New(cfg *Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("llm: no endpoint configured: set OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG, or use the offline components")
	}
	if opts.BackoffBase <= 0 {
		opts.BackoffBase = 500 * time.Millisecond
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = 30 * time.Second
	}
	if opts.MaxRetryAfter <= 0 {
		opts.MaxRetryAfter = DefaultMaxRetryAfter
	}
	seed := opts.Seed
	if seed == 0 {
		seed = 0x6d656d6c6162 // "memlab"
	}
	c := &Client{cfg: cfg, opts: opts, endpoints: map[string]*endpointRT{}, usage: newUsageBook(cfg.Prices),
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for name, ep := range cfg.Endpoints {
		rt := &endpointRT{ep: ep, slots: make(chan struct{}, max(ep.MaxConcurrency, 1)),
			requests: newBucket(ep.RequestsPerMinute), tokens: newBucket(ep.TokensPerMinute)}
		httpClient := &http.Client{Transport: captureTransport{base: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        0,
			MaxIdleConnsPerHost: max(ep.MaxConcurrency, 2),
			IdleConnTimeout:     90 * time.Second,
		}}}
		for _, u := range ep.BaseURLs {
			oc := openai.DefaultConfig(ep.apiKey())
			oc.BaseURL = u
			oc.HTTPClient = httpClient
			rt.replicas = append(rt.replicas, &replica{client: openai.NewClientWithConfig(oc)})
		}
		c.endpoints[name] = rt
	}
	return c, nil
}

// Config returns the client's configuration.
func (c *Client) Config() *Config { return c.cfg }

// acquire takes a concurrency slot and the least busy replica.
func (rt *endpointRT) acquire(ctx context.Context) (*replica, error) {
	select {
	case rt.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	best := -1
	for i := range rt.replicas {
		j := (rt.next + i) % len(rt.replicas)
		if best < 0 || rt.replicas[j].inFlight < rt.replicas[best].inFlight {
			best = j
		}
	}
	rt.next = (best + 1) % len(rt.replicas)
	r := rt.replicas[best]
	r.inFlight++
	return r, nil
}

func (rt *endpointRT) release(r *replica) {
	rt.mu.Lock()
	r.inFlight--
	rt.mu.Unlock()
	<-rt.slots
}

// resolve returns the endpoint and model of a request's role and model.
func (c *Client) resolve(role, model, defaultRole string) (*endpointRT, string, error) {
	if role == "" {
		role = defaultRole
	}
	ep, m, err := c.cfg.Role(role)
	if err != nil {
		return nil, "", err
	}
	if model != "" {
		m = model
	}
	// MODEL@ENDPOINT: the model on another configured endpoint.
	if i := strings.LastIndex(m, "@"); i > 0 {
		if rt, ok := c.endpoints[m[i+1:]]; ok {
			return rt, m[:i], nil
		}
	}
	return c.endpoints[ep.Name], m, nil
}

// chatKey holds what changes a chat answer: never timeouts, retry counts,
// concurrency or keys.
type chatKey struct {
	Kind           string
	Endpoint       string
	Model          string
	Messages       []Message
	Temperature    float64
	TopP           float64
	MaxTokens      int
	Seed           *int
	Stop           []string
	ResponseFormat string
	JSONSchema     string
	SchemaName     string
	Sample         int
}

// cachedChat is what the cache stores of a chat answer.
type cachedChat struct {
	Content      string
	FinishReason string
	Model        string
}

// Chat sends one chat completion, through the cache when the client has
// one. A failed call returns an *Error (never a cached or zero answer).
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	if !CallsAllowed(ctx) {
		return ChatResponse{}, refused(req.Role, req.Model)
	}
	if DryRun() {
		r := RefusedCalls{Calls: 1, MaxCompletionTokens: req.MaxTokens, CompletionUnbounded: req.MaxTokens == 0}
		for _, m := range req.Messages {
			r.PromptTokens += EstimateTokens(m.Content)
		}
		return ChatResponse{}, c.refuseDryRun(req.Role, req.Model, RoleBackbone, r)
	}
	resp, err := c.chat(ctx, req)
	if t := tallyOf(ctx); t != nil {
		t.add(err, resp.Cached, resp.Usage, 0)
	}
	c.noteFailure(req.Role, RoleBackbone, err)
	return resp, err
}

func (c *Client) chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	rt, model, err := c.resolve(req.Role, req.Model, RoleBackbone)
	if err != nil {
		return ChatResponse{}, err
	}
	role := req.Role
	if role == "" {
		role = RoleBackbone
	}
	if len(req.Messages) == 0 {
		return ChatResponse{}, fmt.Errorf("llm: chat request for role %s has no messages", role)
	}
	if req.ResponseFormat == FormatJSONSchema && !json.Valid([]byte(req.JSONSchema)) {
		return ChatResponse{}, fmt.Errorf("llm: chat request for role %s: JSONSchema is not valid JSON", role)
	}
	key := chatKey{Kind: "chat", Endpoint: rt.ep.Name, Model: model, Messages: req.Messages, Temperature: req.Temperature,
		TopP: req.TopP, MaxTokens: req.MaxTokens, Stop: req.Stop, ResponseFormat: req.ResponseFormat,
		JSONSchema: req.JSONSchema, SchemaName: req.SchemaName, Sample: req.Sample}
	if req.HasSeed {
		s := req.Seed
		key.Seed = &s
	}
	var resp ChatResponse
	call := func(ctx context.Context) (cache.Entry, error) {
		r, err := c.chatCall(ctx, rt, model, req)
		if err != nil {
			return cache.Entry{}, err
		}
		resp = r
		body, _ := json.Marshal(cachedChat{Content: r.Content, FinishReason: r.FinishReason, Model: r.Model})
		return cache.Entry{Kind: "chat", Model: model, Endpoint: rt.ep.Name, Response: body,
			PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens, Latency: r.Latency}, nil
	}
	if c.opts.Cache == nil {
		_, err := call(ctx)
		c.usage.record(role, model, resp.Usage, false, err)
		return resp, c.redact(rt, err)
	}
	reqJSON, err := cache.Canonical(key)
	if err != nil {
		return ChatResponse{}, fmt.Errorf("llm: cache key: %w", err)
	}
	k := cache.KeyOf(reqJSON)
	fill := func(ctx context.Context) (cache.Entry, error) {
		e, err := call(ctx)
		e.Request = reqJSON
		return e, err
	}
	e, hit, err := c.opts.Cache.Do(ctx, k, fill)
	if err != nil {
		err = c.asError(ctx, rt, model, err)
		c.usage.record(role, model, Usage{}, false, err)
		return ChatResponse{}, c.redact(rt, err)
	}
	if !hit {
		c.usage.record(role, model, resp.Usage, false, nil)
		return resp, nil
	}
	var cc cachedChat
	if err := json.Unmarshal(e.Response, &cc); err != nil {
		return ChatResponse{}, fmt.Errorf("llm: cache entry %s is corrupt: %w", k, err)
	}
	u := Usage{PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens}
	c.usage.record(role, model, u, true, nil)
	return ChatResponse{Content: cc.Content, FinishReason: cc.FinishReason, Model: cc.Model, Usage: u, Latency: e.Latency, Cached: true}, nil
}

// ReasoningModel reports whether model is one of OpenAI's reasoning
// models (o1, o3, o4, gpt-5 and their variants, the prefixes go-openai
// checks), which take max_completion_tokens instead of max_tokens and no
// temperature or top_p: a request to one sends the max tokens as
// max_completion_tokens and leaves sampling at the model's default.
func ReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// chatCall makes the network call with retries.
func (c *Client) chatCall(ctx context.Context, rt *endpointRT, model string, req ChatRequest) (ChatResponse, error) {
	oreq := openai.ChatCompletionRequest{Model: model, MaxTokens: req.MaxTokens, Stop: req.Stop,
		Temperature: float32(req.Temperature), TopP: float32(req.TopP)}
	if req.Temperature == 0 {
		// go-openai omits a zero temperature (omitempty) and the server would
		// use its default (1.0 at OpenAI); the smallest float32 is sent
		// instead, which servers treat as greedy decoding.
		oreq.Temperature = math.SmallestNonzeroFloat32
	}
	if ReasoningModel(model) {
		// Reasoning models take max_completion_tokens (which counts their
		// reasoning too) and only their default sampling; go-openai refuses
		// the request otherwise, before any call.
		oreq.MaxTokens, oreq.MaxCompletionTokens = 0, req.MaxTokens
		oreq.Temperature, oreq.TopP = 0, 0
	}
	if req.HasSeed {
		s := req.Seed
		oreq.Seed = &s
	}
	for _, m := range req.Messages {
		oreq.Messages = append(oreq.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	switch req.ResponseFormat {
	case FormatText:
	case FormatJSONObject:
		oreq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	case FormatJSONSchema:
		name := req.SchemaName
		if name == "" {
			name = "answer"
		}
		oreq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: json.RawMessage(req.JSONSchema), Strict: true}}
	default:
		return ChatResponse{}, fmt.Errorf("llm: unknown response format %q (want \"\", %q or %q)", req.ResponseFormat, FormatJSONObject, FormatJSONSchema)
	}
	estimate := float64(estimateTokens(req.Messages) + max(req.MaxTokens, 256))
	var out ChatResponse
	attempts, err := c.retry(ctx, rt, model, estimate, func(ctx context.Context, r *replica) (int, error) {
		start := time.Now()
		res, err := r.client.CreateChatCompletion(ctx, oreq)
		if err != nil {
			return 0, err
		}
		if len(res.Choices) == 0 {
			return res.Usage.TotalTokens, &badOutput{msg: "the answer has no choices"}
		}
		content := res.Choices[0].Message.Content
		if req.ResponseFormat != FormatText && !HasJSONObject(content) {
			return res.Usage.TotalTokens, &badOutput{msg: fmt.Sprintf("JSON was asked but the answer holds no JSON object: %q", text.Clip(content, 80))}
		}
		out = ChatResponse{Content: content, FinishReason: string(res.Choices[0].FinishReason), Model: res.Model,
			Usage:   Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens},
			Latency: time.Since(start)}
		return res.Usage.TotalTokens, nil
	})
	out.Attempts = attempts
	return out, err
}

// Embed embeds a batch of texts, through the cache when the client has
// one (the whole batch is one cache entry).
func (c *Client) Embed(ctx context.Context, req EmbedRequest) (EmbedResponse, error) {
	if !CallsAllowed(ctx) {
		return EmbedResponse{}, refused(req.Role, req.Model)
	}
	if DryRun() {
		r := RefusedCalls{Calls: 1, EmbedCalls: 1, Texts: len(req.Inputs)}
		for _, s := range req.Inputs {
			r.PromptTokens += EstimateTokens(s)
		}
		return EmbedResponse{}, c.refuseDryRun(req.Role, req.Model, RoleEmbedder, r)
	}
	resp, err := c.embed(ctx, req)
	if t := tallyOf(ctx); t != nil {
		t.add(err, resp.Cached, resp.Usage, len(req.Inputs))
	}
	c.noteFailure(req.Role, RoleEmbedder, err)
	return resp, err
}

func (c *Client) embed(ctx context.Context, req EmbedRequest) (EmbedResponse, error) {
	rt, model, err := c.resolve(req.Role, req.Model, RoleEmbedder)
	if err != nil {
		return EmbedResponse{}, err
	}
	role := req.Role
	if role == "" {
		role = RoleEmbedder
	}
	if len(req.Inputs) == 0 {
		return EmbedResponse{}, nil
	}
	var resp EmbedResponse
	call := func(ctx context.Context) (cache.Entry, error) {
		r, err := c.embedCall(ctx, rt, model, req)
		if err != nil {
			return cache.Entry{}, err
		}
		resp = r
		body, _ := json.Marshal(r.Vectors)
		return cache.Entry{Kind: "embed", Model: model, Endpoint: rt.ep.Name, Response: body,
			PromptTokens: r.Usage.PromptTokens, Latency: r.Latency}, nil
	}
	if c.opts.Cache == nil {
		_, err := call(ctx)
		c.usage.record(role, model, resp.Usage, false, err)
		return resp, c.redact(rt, err)
	}
	keyParts := struct {
		Kind, Endpoint, Model string
		Inputs                []string
		Dimensions            int
	}{"embed", rt.ep.Name, model, req.Inputs, req.Dimensions}
	reqJSON, err := cache.Canonical(keyParts)
	if err != nil {
		return EmbedResponse{}, fmt.Errorf("llm: cache key: %w", err)
	}
	k := cache.KeyOf(reqJSON)
	e, hit, err := c.opts.Cache.Do(ctx, k, func(ctx context.Context) (cache.Entry, error) {
		e, err := call(ctx)
		e.Request = reqJSON
		return e, err
	})
	if err != nil {
		err = c.asError(ctx, rt, model, err)
		c.usage.record(role, model, Usage{}, false, err)
		return EmbedResponse{}, c.redact(rt, err)
	}
	if !hit {
		c.usage.record(role, model, resp.Usage, false, nil)
		return resp, nil
	}
	var vecs [][]float32
	if err := json.Unmarshal(e.Response, &vecs); err != nil {
		return EmbedResponse{}, fmt.Errorf("llm: cache entry %s is corrupt: %w", k, err)
	}
	u := Usage{PromptTokens: e.PromptTokens}
	c.usage.record(role, model, u, true, nil)
	return EmbedResponse{Vectors: vecs, Model: model, Usage: u, Latency: e.Latency, Cached: true}, nil
}

func (c *Client) embedCall(ctx context.Context, rt *endpointRT, model string, req EmbedRequest) (EmbedResponse, error) {
	oreq := openai.EmbeddingRequest{Input: req.Inputs, Model: openai.EmbeddingModel(model), Dimensions: req.Dimensions,
		EncodingFormat: openai.EmbeddingEncodingFormatFloat}
	chars := 0
	for _, s := range req.Inputs {
		chars += len(s)
	}
	var out EmbedResponse
	attempts, err := c.retry(ctx, rt, model, float64(chars/4+1), func(ctx context.Context, r *replica) (int, error) {
		start := time.Now()
		res, err := r.client.CreateEmbeddings(ctx, oreq)
		if err != nil {
			return 0, err
		}
		if len(res.Data) != len(req.Inputs) {
			return res.Usage.TotalTokens, &badOutput{msg: fmt.Sprintf("asked for %d embeddings, got %d", len(req.Inputs), len(res.Data))}
		}
		vecs := make([][]float32, len(req.Inputs))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(vecs) || vecs[d.Index] != nil {
				return res.Usage.TotalTokens, &badOutput{msg: fmt.Sprintf("embedding index %d out of range or repeated", d.Index)}
			}
			vecs[d.Index] = d.Embedding
		}
		out = EmbedResponse{Vectors: vecs, Model: string(res.Model), Usage: Usage{PromptTokens: res.Usage.PromptTokens}, Latency: time.Since(start)}
		return res.Usage.TotalTokens, nil
	})
	out.Attempts = attempts
	return out, err
}

// badOutput is a 200 answer memlab cannot use; it is retried like a
// transient failure.
type badOutput struct{ msg string }

func (b *badOutput) Error() string { return b.msg }

// retry runs one attempt at a time until success, a failure that is not
// retried, the endpoint's max attempts, a Retry-After longer than the
// cap (maxRetryAfter: the call fails as rate-limited), or the end of ctx.
// Each attempt takes a concurrency slot and rate budget, and has the
// endpoint's timeout; the waits between attempts are listed by Waiting.
// It returns the number of attempts made.
func (c *Client) retry(ctx context.Context, rt *endpointRT, model string, estimate float64,
	attempt func(ctx context.Context, r *replica) (tokens int, err error)) (int, error) {
	var last *Error
	for n := 1; ; n++ {
		if err := rt.requests.take(ctx, 1); err != nil {
			return n - 1, c.canceled(rt, model, n-1, err)
		}
		if err := rt.tokens.take(ctx, estimate); err != nil {
			return n - 1, c.canceled(rt, model, n-1, err)
		}
		r, err := rt.acquire(ctx)
		if err != nil {
			rt.tokens.adjust(-estimate)
			return n - 1, c.canceled(rt, model, n-1, err)
		}
		actx, cancel := context.WithTimeout(ctx, rt.ep.Timeout)
		actx, info := withAttemptInfo(actx)
		tokens, err := attempt(actx, r)
		cancel()
		rt.release(r)
		rt.tokens.adjust(float64(tokens) - estimate)
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil {
			return n, c.canceled(rt, model, n, ctx.Err())
		}
		last = classify(err, info, rt, model, n)
		if !retryable(last.Kind) || n >= rt.ep.MaxAttempts {
			return n, last
		}
		wait := c.backoff(n)
		if info.retryAfter > 0 {
			if limit := c.maxRetryAfter(rt); info.retryAfter > limit {
				last.Kind = ErrRateLimit
				last.Message = fmt.Sprintf("%s (the server asked to wait Retry-After %s, more than max_retry_after %s of endpoint %q: not retried)",
					last.Message, info.retryAfter, limit, rt.ep.Name)
				return n, last
			}
			wait = info.retryAfter
		}
		end := startWait(&Wait{Endpoint: rt.ep.Name, Model: model, Status: last.Status, Kind: last.Kind,
			Until: time.Now().Add(wait), RetryAfter: info.retryAfter > 0})
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			end()
			return n, c.canceled(rt, model, n, ctx.Err())
		case <-t.C:
		}
		end()
	}
}

// maxRetryAfter is the longest Retry-After waited on rt: its
// max_retry_after, else the client's MaxRetryAfter.
func (c *Client) maxRetryAfter(rt *endpointRT) time.Duration {
	if rt.ep.MaxRetryAfter > 0 {
		return rt.ep.MaxRetryAfter
	}
	return c.opts.MaxRetryAfter
}

// asError makes sure a failure from the cache path is an *Error: a call's
// own failure already is; a caller whose ctx ended while it waited for a
// coalesced call gets ErrCanceled; a cache read or write failure is kept
// as it is (it is not a model failure).
func (c *Client) asError(ctx context.Context, rt *endpointRT, model string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if ctx.Err() != nil {
		return c.canceled(rt, model, 0, err)
	}
	return err
}

func (c *Client) canceled(rt *endpointRT, model string, attempts int, err error) *Error {
	return &Error{Kind: ErrCanceled, Attempts: attempts, Endpoint: rt.ep.Name, Model: model, Message: err.Error(), Err: err}
}

// backoff is the wait after the n-th failed attempt: exponential from
// BackoffBase, capped at BackoffMax, with equal jitter (half fixed, half
// random) so that many clients do not retry in step.
func (c *Client) backoff(n int) time.Duration {
	d := c.opts.BackoffBase << min(n-1, 30)
	if d <= 0 || d > c.opts.BackoffMax {
		d = c.opts.BackoffMax
	}
	c.rngMu.Lock()
	j := time.Duration(c.rng.Int64N(int64(d/2) + 1))
	c.rngMu.Unlock()
	return d/2 + j
}

func retryable(kind string) bool {
	switch kind {
	case ErrRateLimit, ErrServer, ErrTimeout, ErrNetwork, ErrBadOutput:
		return true
	}
	return false
}

// classify turns an attempt's error into an *Error of the right kind.
func classify(err error, info *attemptInfo, rt *endpointRT, model string, attempts int) *Error {
	e := &Error{Attempts: attempts, Endpoint: rt.ep.Name, Model: model, Err: err, Message: err.Error()}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var bad *badOutput
	switch {
	case errors.As(err, &bad):
		e.Kind, e.Status = ErrBadOutput, info.status
		return e
	case errors.As(err, &apiErr):
		e.Status, e.Message = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		e.Message = fmt.Sprintf("HTTP %d: %s", reqErr.HTTPStatusCode, text.Clip(string(reqErr.Body), 200))
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind, e.Message = ErrTimeout, fmt.Sprintf("no answer within %s", rt.ep.Timeout)
		return e
	default:
		e.Status = info.status
		e.Kind = ErrNetwork
		if info.status >= 500 {
			e.Kind = ErrServer
		}
		return e
	}
	switch s := e.Status; {
	case s == http.StatusTooManyRequests:
		e.Kind = ErrRateLimit
	case s == http.StatusRequestTimeout:
		e.Kind = ErrTimeout
	case s >= 500:
		e.Kind = ErrServer
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = ErrAuth
	case s == http.StatusNotFound:
		e.Kind = ErrNotFound
	case s >= 400:
		e.Kind = ErrBadRequest
	default:
		e.Kind = ErrNetwork
	}
	return e
}

// redact removes the endpoint's key (in case a server echoed it) and the
// credentials of URLs (RedactURLs: a network error names the URL) from an
// error's message.
func (c *Client) redact(rt *endpointRT, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	key := rt.ep.apiKey()
	e.Message = redactSecrets(e.Message, key)
	if e.Err != nil {
		if msg := e.Err.Error(); redactSecrets(msg, key) != msg {
			e.Err = &redactedError{msg: redactSecrets(msg, key), orig: e.Err}
		}
	}
	return e
}

// HasJSONObject reports whether s holds a JSON object as ReplyJSON finds
// it (an array is accepted too: lenient parsers can use it). The client retries JSON-format answers that hold none; it returns the
// content as the model wrote it, and callers parse it (fences and prose
// included) with their own robust parsers.
func HasJSONObject(s string) bool {
	if _, ok := ReplyJSON(s); ok {
		return true
	}
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[") && json.Valid([]byte(s))
}

func estimateTokens(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += len(m.Content)/4 + 4
	}
	return n
}
