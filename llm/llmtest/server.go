package llmtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Paths the server answers, relative to the host.
const (
	PathChat       = "/v1/chat/completions"
	PathEmbeddings = "/v1/embeddings"
	PathModels     = "/v1/models"
)

// Outcomes of a request, the keys of Stats.ByOutcome. The fault kinds
// (FaultRateLimit and the others) are outcomes too.
const (
	OutcomeOK             = "ok"              // answered normally
	OutcomeUnauthorized   = "unauthorized"    // 401: missing or wrong key
	OutcomeNotFound       = "not_found"       // 404: unknown model or path
	OutcomeBadRequest     = "bad_request"     // 400 or 405: malformed or unsupported request
	OutcomeCanceled       = "canceled"        // the client went away during the latency wait
	OutcomeResponderError = "responder_error" // the Responder returned an error
)

// DefaultEmbeddingDims is the embedding size when neither the request nor
// Options.EmbeddingDims sets one.
const DefaultEmbeddingDims = 64

// maxEmbeddingDims bounds "dimensions" so a bad request cannot exhaust memory.
const maxEmbeddingDims = 16384

// maxBodyBytes bounds a request body.
const maxBodyBytes = 32 << 20

// Options configures a fake server. The zero value is an open server on a
// free loopback port with no latency and no faults.
type Options struct {
	// Addr is the listen address; "" means "127.0.0.1:0" (a free port).
	Addr string
	// APIKey, when set, is the bearer token every request must carry.
	APIKey string
	// Models, when not empty, are the only model names accepted; others get
	// 404 model_not_found. GET /v1/models lists them.
	Models []string
	// EmbeddingDims is the embedding size when a request has no
	// "dimensions"; 0 means DefaultEmbeddingDims.
	EmbeddingDims int
	// Latency is the fixed wait before each model call is answered.
	Latency time.Duration
	// Jitter adds a wait drawn uniformly from [0, Jitter) to Latency.
	Jitter time.Duration
	// Seed seeds the jitter; the draw for call n depends only on Seed and n.
	Seed uint64
	// Replies are scripted chat replies, consumed in order, one per
	// answered chat call; when they run out the Rules and Responder answer.
	Replies []string
	// Rules answer a chat call whose last user message contains a string.
	Rules []Rule
	// Responder answers chat calls that no scripted reply or rule answered;
	// nil means DefaultReply. It is called concurrently.
	Responder Responder
	// Faults injects errors, by script and by seeded random rates.
	Faults Faults
	// Log, when set, receives one line per request and the listen address.
	Log io.Writer
	// Concurrency, when positive, is how many model calls are answered at
	// once, as a server's batch size bounds them: a call beyond it waits
	// for one to end (in the order they came, within the Go scheduler's
	// fairness) before its latency starts.
	Concurrency int
	// Forget keeps no call (Calls and EmbedCalls return none), so that a
	// server answering a long run holds no more memory at its end; Stats
	// still counts them.
	Forget bool
	// StatsPath, when set (e.g. "/stats"), serves Stats as JSON on GET at
	// that path, for scripts that drive a server in another process.
	StatsPath string
}

// Rule answers Reply to a chat call whose last user message contains
// Contains ("" matches every call).
type Rule struct {
	Contains string
	Reply    string
}

// Responder computes the content of a chat reply. An error makes the call
// fail: a *StatusError chooses the HTTP status and OpenAI error fields, any
// other error gives 500 server_error with its text as the message.
type Responder func(call ChatCall) (string, error)

// StatusError is an error a Responder returns to answer with an HTTP error
// in OpenAI's shape.
type StatusError struct {
	Status  int    // HTTP status, e.g. 400; 0 means 500
	Type    string // error type, e.g. "invalid_request_error"; "" means "server_error"
	Code    string // error code, e.g. "context_length_exceeded"; "" sends null
	Message string
}

// Error returns the message with the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("llmtest: HTTP %d: %s", e.Status, e.Message)
}

// Message is one chat message as received. Content made of parts is the
// concatenation of its text parts.
type Message struct {
	Role    string
	Content string
}

// ChatCall is one chat completion request as the server received it.
type ChatCall struct {
	// N is the call number: model calls (chat and embeddings) are numbered
	// together from 1 in order of arrival; Reset starts again at 1.
	N        int
	Model    string
	Messages []Message
	// Temperature, TopP and Seed are meaningful when their Has* flag is
	// true, that is when the field was present in the JSON body (go-openai
	// omits a zero temperature or top_p).
	Temperature    float64
	HasTemperature bool
	TopP           float64
	HasTopP        bool
	Seed           int64
	HasSeed        bool
	// MaxTokens is max_tokens, or max_completion_tokens when only that is
	// set; 0 = not set.
	MaxTokens int
	// N choices asked for ("n"); 0 = not set (one choice).
	Choices int
	Stop    []string
	Stream  bool
	// ResponseFormat is response_format.type: "", "text", "json_object" or
	// "json_schema"; for the last, SchemaName and Schema (raw JSON text)
	// come from response_format.json_schema.
	ResponseFormat string
	SchemaName     string
	Schema         string
	// Header holds the request headers; an Authorization header is kept
	// with its value replaced by "[redacted]".
	Header http.Header
	// Body is the request body as received.
	Body string
	// Outcome is how the call ended (OutcomeOK, a fault kind, ...); "" while
	// it is in flight.
	Outcome string
}

// EmbedCall is one embeddings request as the server received it.
type EmbedCall struct {
	N              int // call number, shared with chat calls
	Model          string
	Inputs         []string // token-id inputs appear as "tok<id> tok<id> ..."
	Dimensions     int      // 0 = not set
	EncodingFormat string   // "", "float" or "base64"
	Header         http.Header
	Body           string
	Outcome        string
}

// Stats counts the requests since Start or the last Reset.
type Stats struct {
	Total         int            // requests of any kind
	ByPath        map[string]int // by URL path, e.g. PathChat
	ByOutcome     map[string]int // by outcome: OutcomeOK, a fault kind, ...
	InFlight      int            // requests being handled now
	MaxConcurrent int            // the most requests in flight at once
	// ModelCalls counts the chat and embeddings requests, Distinct those
	// whose body no earlier one had: ModelCalls - Distinct calls were
	// sent again (a retry, or a client asking what it asked before).
	ModelCalls, Distinct int
	// ByClient counts the model calls by the client's host (its IP
	// address), InFlightByClient those being handled now.
	ByClient, InFlightByClient map[string]int
	// RepeatedFrom counts the calls sent again (ModelCalls - Distinct) by
	// the host of the client that sent their body first: the calls of a
	// client that died, sent again by the others.
	RepeatedFrom map[string]int
	// AnsweredByClient counts the model calls answered (or ended) by the
	// client's host.
	AnsweredByClient map[string]int
	// MaxAnswering is the most model calls in their latency at once
	// (Options.Concurrency bounds it).
	MaxAnswering int
}

// Server is a running fake OpenAI-compatible server.
type Server struct {
	opts   Options
	models map[string]bool
	script map[int]Fault
	ln     net.Listener
	srv    *http.Server
	url    string

	done      chan struct{}
	serveErr  chan error
	closeOnce sync.Once
	wg        sync.WaitGroup
	logMu     sync.Mutex

	mu          sync.Mutex
	closed      bool
	seq         int
	total       int
	inFlight    int
	maxInFlight int
	byPath      map[string]int
	byOutcome   map[string]int
	calls       []*ChatCall
	embeds      []*EmbedCall
	replies     []string
	rules       []Rule
	modelCalls  int
	bodies      map[[32]byte]string // the first client of each body
	repeatedBy  map[string]int
	answeredBy  map[string]int
	byClient    map[string]int
	clientsIn   map[string]int
	slots       chan struct{} // Options.Concurrency
	answering   int
	maxAnswer   int
}

// Start validates opts, listens on opts.Addr and serves in the background
// until Close.
func Start(opts Options) (*Server, error) {
	script, err := opts.validate()
	if err != nil {
		return nil, fmt.Errorf("llmtest: start: %w", err)
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("llmtest: start: listen on %q: %w", addr, err)
	}
	s := &Server{
		opts:     opts,
		script:   script,
		ln:       ln,
		url:      "http://" + ln.Addr().String() + "/v1",
		done:     make(chan struct{}),
		serveErr: make(chan error, 1),
	}
	if opts.Concurrency > 0 {
		s.slots = make(chan struct{}, opts.Concurrency)
	}
	if len(opts.Models) > 0 {
		s.models = make(map[string]bool, len(opts.Models))
		for _, m := range opts.Models {
			s.models[m] = true
		}
	}
	s.resetLocked()
	errLog := io.Discard
	if opts.Log != nil {
		errLog = &lockedWriter{mu: &s.logMu, w: opts.Log}
	}
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(errLog, "llmtest: http: ", 0),
	}
	go func() {
		err := s.srv.Serve(ln)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.serveErr <- err
		}
		close(s.serveErr)
	}()
	s.logf("llmtest: listening on %s", s.url)
	return s, nil
}

// Serve runs a server on addr ("" = opts.Addr, then "127.0.0.1:0") until
// ctx ends, then closes it. It returns nil after ctx ends and an error when
// the options are invalid or listening or serving fails. The listen address
// is written to opts.Log, if set.
func Serve(ctx context.Context, addr string, opts Options) error {
	if addr != "" {
		opts.Addr = addr
	}
	s, err := Start(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	select {
	case <-ctx.Done():
		return nil
	case err, ok := <-s.serveErr:
		if !ok {
			return nil
		}
		return fmt.Errorf("llmtest: serve on %s: %w", s.ln.Addr(), err)
	}
}

// URL returns the base URL to give go-openai's ClientConfig.BaseURL, e.g.
// "http://127.0.0.1:41234/v1".
func (s *Server) URL() string { return s.url }

// Addr returns the listen address, host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: stalled and waiting requests end, open
// connections close, and Close returns once every handler has returned.
// Calling it again does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
		_ = s.srv.Close()
		s.wg.Wait()
	})
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{
		Total:            s.total,
		ByPath:           make(map[string]int, len(s.byPath)),
		ByOutcome:        make(map[string]int, len(s.byOutcome)),
		InFlight:         s.inFlight,
		MaxConcurrent:    s.maxInFlight,
		ModelCalls:       s.modelCalls,
		MaxAnswering:     s.maxAnswer,
		Distinct:         len(s.bodies),
		ByClient:         maps.Clone(s.byClient),
		RepeatedFrom:     maps.Clone(s.repeatedBy),
		AnsweredByClient: maps.Clone(s.answeredBy),
		InFlightByClient: map[string]int{},
	}
	for k, v := range s.clientsIn {
		if v > 0 {
			st.InFlightByClient[k] = v
		}
	}
	for k, v := range s.byPath {
		st.ByPath[k] = v
	}
	for k, v := range s.byOutcome {
		st.ByOutcome[k] = v
	}
	return st
}

// Calls returns copies of the chat calls received, in order of arrival
// (the order call numbers were given; under concurrency a call may be
// recorded a little after a later-numbered one).
func (s *Server) Calls() []ChatCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ChatCall, len(s.calls))
	for i, c := range s.calls {
		out[i] = *c
		out[i].Messages = append([]Message(nil), c.Messages...)
		out[i].Stop = append([]string(nil), c.Stop...)
		out[i].Header = c.Header.Clone()
	}
	return out
}

// EmbedCalls returns copies of the embedding calls received, in order of
// arrival.
func (s *Server) EmbedCalls() []EmbedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]EmbedCall, len(s.embeds))
	for i, c := range s.embeds {
		out[i] = *c
		out[i].Inputs = append([]string(nil), c.Inputs...)
		out[i].Header = c.Header.Clone()
	}
	return out
}

// Enqueue appends scripted chat replies to the queue.
func (s *Server) Enqueue(replies ...string) {
	s.mu.Lock()
	s.replies = append(s.replies, replies...)
	s.mu.Unlock()
}

// AddRule appends a rule after the existing ones.
func (s *Server) AddRule(r Rule) {
	s.mu.Lock()
	s.rules = append(s.rules, r)
	s.mu.Unlock()
}

// Reset returns the server to its state right after Start: counters and
// logs empty, call numbers starting again at 1 (so Faults.Script applies
// again), the reply queue and rules as in Options. Requests in flight
// during Reset are counted in the new period.
func (s *Server) Reset() {
	s.mu.Lock()
	s.resetLocked()
	s.mu.Unlock()
}

func (s *Server) resetLocked() {
	s.seq = 0
	s.total = 0
	s.maxInFlight = s.inFlight
	s.byPath = map[string]int{}
	s.byOutcome = map[string]int{}
	s.calls = nil
	s.embeds = nil
	s.modelCalls = 0
	s.maxAnswer = s.answering
	s.bodies = map[[32]byte]string{}
	s.repeatedBy = map[string]int{}
	s.answeredBy = map[string]int{}
	s.byClient = map[string]int{}
	s.clientsIn = map[string]int{}
	s.replies = append([]string(nil), s.opts.Replies...)
	s.rules = append([]Rule(nil), s.opts.Rules...)
}

// ServeHTTP handles one request; Server is its own http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "llmtest: the server is closing")
		return
	}
	s.wg.Add(1)
	s.total++
	s.byPath[r.URL.Path]++
	s.inFlight++
	if s.inFlight > s.maxInFlight {
		s.maxInFlight = s.inFlight
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
		s.wg.Done()
	}()

	var outcome string
	var n int
	path := r.URL.Path
	switch {
	case s.opts.StatsPath != "" && path == s.opts.StatsPath && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Stats())
		outcome = OutcomeOK
	case path == PathChat || path == PathEmbeddings:
		if r.Method != http.MethodPost {
			outcome = s.methodNotAllowed(w, r)
			break
		}
		if !s.countModelCall(w, r) {
			outcome = s.count(OutcomeBadRequest)
			break
		}
		client := clientHost(r)
		defer func() {
			s.mu.Lock()
			s.clientsIn[client]--
			s.answeredBy[client]++
			s.mu.Unlock()
		}()
		n = s.nextCall()
		if path == PathChat {
			outcome = s.handleChat(w, r, n)
		} else {
			outcome = s.handleEmbeddings(w, r, n)
		}
	case path == PathModels || strings.HasPrefix(path, PathModels+"/"):
		if r.Method != http.MethodGet {
			outcome = s.methodNotAllowed(w, r)
			break
		}
		outcome = s.handleModels(w, r)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "",
			fmt.Sprintf("Invalid URL (%s %s)", r.Method, path))
		outcome = s.count(OutcomeNotFound)
	}
	if s.opts.Log != nil {
		num := "-"
		if n > 0 {
			num = fmt.Sprint(n)
		}
		s.logf("llmtest: #%s %s %s %s %s", num, r.Method, path, outcome, time.Since(start).Round(time.Millisecond))
	}
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) string {
	writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "",
		fmt.Sprintf("Method %s not allowed on %s", r.Method, r.URL.Path))
	return s.count(OutcomeBadRequest)
}

// countModelCall counts a model call by its body (read here and given
// back to the handler) and its client; false when the body cannot be read
// (answered 400).
func (s *Server) countModelCall(w http.ResponseWriter, r *http.Request) bool {
	body, ok := readBody(w, r)
	if !ok {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.Sum256(body)
	client := clientHost(r)
	s.mu.Lock()
	s.modelCalls++
	if first, seen := s.bodies[sum]; seen {
		s.repeatedBy[first]++
	} else {
		s.bodies[sum] = client
	}
	s.byClient[client]++
	s.clientsIn[client]++
	s.mu.Unlock()
	return true
}

// clientHost is the host of a request's remote address.
func clientHost(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// nextCall numbers a model call.
func (s *Server) nextCall() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// count records an outcome and returns it.
func (s *Server) count(outcome string) string {
	s.mu.Lock()
	s.byOutcome[outcome]++
	s.mu.Unlock()
	return outcome
}

// checkAuth answers 401 and returns false when the key is missing or wrong.
func (s *Server) checkAuth(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	got := r.Header.Get("Authorization")
	if got == "" {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "",
			"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
		return false
	}
	key, ok := strings.CutPrefix(got, "Bearer ")
	if !ok || key != s.opts.APIKey {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			fmt.Sprintf("Incorrect API key provided: %s.", maskKey(key)))
		return false
	}
	return true
}

// maskKey shows the ends of a key only, as OpenAI does.
func maskKey(k string) string {
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

// checkModel answers 404 model_not_found and returns false when Models is
// set and does not hold model.
func (s *Server) checkModel(w http.ResponseWriter, model string) bool {
	if s.models == nil || s.models[model] {
		return true
	}
	writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
		fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model))
	return false
}

type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type modelList struct {
	Object string        `json:"object"`
	Data   []modelObject `json:"data"`
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) string {
	if !s.checkAuth(w, r) {
		return s.count(OutcomeUnauthorized)
	}
	now := time.Now().Unix()
	if id, ok := strings.CutPrefix(r.URL.Path, PathModels+"/"); ok {
		if id == "" || !s.checkModel(w, id) {
			if id == "" {
				writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", "The model `` does not exist or you do not have access to it.")
			}
			return s.count(OutcomeNotFound)
		}
		writeJSON(w, http.StatusOK, modelObject{ID: id, Object: "model", Created: now, OwnedBy: "llmtest"})
		return s.count(OutcomeOK)
	}
	list := modelList{Object: "list", Data: []modelObject{}}
	for _, m := range s.opts.Models {
		list.Data = append(list.Data, modelObject{ID: m, Object: "model", Created: now, OwnedBy: "llmtest"})
	}
	writeJSON(w, http.StatusOK, list)
	return s.count(OutcomeOK)
}

// wait sleeps the latency of call n; false means the client went away or
// the server closed first.
func (s *Server) wait(ctx context.Context, n int) bool {
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-ctx.Done():
			return false
		case <-s.done:
			return false
		}
	}
	s.mu.Lock()
	s.answering++
	s.maxAnswer = max(s.maxAnswer, s.answering)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.answering--
		s.mu.Unlock()
	}()
	d := s.opts.Latency + jitter(s.opts.Seed, n, s.opts.Jitter)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// readBody reads a request body, answering 400 on failure.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			fmt.Sprintf("We could not read the body of your request: %v", err))
		return nil, false
	}
	return body, true
}

// redactedHeader copies h with the Authorization value hidden.
func redactedHeader(h http.Header) http.Header {
	c := h.Clone()
	if _, ok := c["Authorization"]; ok {
		c["Authorization"] = []string{"[redacted]"}
	}
	return c
}

// apiError is the body of an error answer.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// writeError answers status with an OpenAI-shaped error; code "" is null.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	body := apiError{Error: apiErrorBody{Message: msg, Type: typ}}
	if code != "" {
		body.Error.Code = &code
	}
	writeJSON(w, status, body)
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"llmtest: cannot encode the response","type":"server_error","param":null,"code":null}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	s.logMu.Lock()
	fmt.Fprintf(s.opts.Log, format+"\n", args...)
	s.logMu.Unlock()
}

// lockedWriter serializes writes to a shared log writer.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
