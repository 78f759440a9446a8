package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

// fake starts a fake server and a client for it with every role on one
// endpoint; conf lines are added to the endpoint section.
func fake(t *testing.T, opts llmtest.Options, withCache bool, conf ...string) (*Client, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src := "[endpoint fake]\nbase_url = " + srv.URL() + "\nmax_attempts = 4\n" + strings.Join(conf, "\n") + "\n"
	if opts.APIKey != "" {
		src += "api_key_env = FAKE_KEY\n"
	}
	for _, r := range Roles() {
		m := "test-model"
		if r == RoleEmbedder {
			m = "test-embed"
		}
		src += fmt.Sprintf("[role %s]\nendpoint = fake\nmodel = %s\n", r, m)
	}
	src += "[prices]\ntest-model = 1.0, 2.0\n"
	cfg, err := ParseConfig("test.conf", strings.NewReader(src), env(map[string]string{"FAKE_KEY": opts.APIKey}))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Seed: 1}
	if withCache {
		ch, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ch.Close() })
		o.Cache = ch
	}
	c, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func user(s string) []Message { return []Message{{Role: "user", Content: s}} }

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *llm.Error, got %T %v", err, err)
	}
	return e
}

func TestChatSendsWhatWasAsked(t *testing.T) {
	c, srv := fake(t, llmtest.Options{Replies: []string{"I moved to Frome."}}, false)
	r, err := c.Chat(context.Background(), ChatRequest{Role: RoleBackbone, Messages: user("Where did you move?"),
		Temperature: 0, HasSeed: true, Seed: 0, MaxTokens: 50, Stop: []string{"\n\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "I moved to Frome." || r.Cached || r.Attempts != 1 || r.Usage.PromptTokens == 0 {
		t.Errorf("response = %+v", r)
	}
	call := srv.Calls()[0]
	if !call.HasTemperature || call.Temperature > 1e-6 {
		t.Errorf("temperature 0 not sent as greedy: has=%v value=%v", call.HasTemperature, call.Temperature)
	}
	if !call.HasSeed || call.Seed != 0 || call.MaxTokens != 50 || call.Model != "test-model" || len(call.Stop) != 1 {
		t.Errorf("server saw %+v", call)
	}
}

func TestJSONSchemaRequest(t *testing.T) {
	c, srv := fake(t, llmtest.Options{}, false)
	schema := `{"type":"object","properties":{"score":{"type":"integer","minimum":0,"maximum":5}},"required":["score"]}`
	r, err := c.Chat(context.Background(), ChatRequest{Role: RoleJudge, Messages: user("score it"),
		ResponseFormat: FormatJSONSchema, JSONSchema: schema, SchemaName: "verdict"})
	if err != nil {
		t.Fatal(err)
	}
	call := srv.Calls()[0]
	if call.ResponseFormat != FormatJSONSchema || call.SchemaName != "verdict" || !strings.Contains(call.Schema, `"score"`) {
		t.Errorf("server saw format %q name %q schema %s", call.ResponseFormat, call.SchemaName, call.Schema)
	}
	if !strings.Contains(r.Content, `"score"`) {
		t.Errorf("content %q", r.Content)
	}
	if _, err := c.Chat(context.Background(), ChatRequest{Messages: user("x"), ResponseFormat: FormatJSONSchema, JSONSchema: "{bad"}); err == nil {
		t.Error("an invalid schema was sent")
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	c, srv := fake(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit, RetryAfter: 300 * time.Millisecond}}}}, false)
	start := time.Now()
	r, err := c.Chat(context.Background(), ChatRequest{Messages: user("hello")})
	if err != nil {
		t.Fatal(err)
	}
	// The backoff alone is at most 5ms here: waiting 300ms means the
	// server's Retry-After was used.
	if waited := time.Since(start); waited < 290*time.Millisecond {
		t.Errorf("retried after %v, before the server's Retry-After of 300ms", waited)
	}
	if r.Attempts != 2 || srv.Stats().Total != 2 {
		t.Errorf("attempts %d, server calls %d, want 2 and 2", r.Attempts, srv.Stats().Total)
	}
}

func TestFailuresAreTypedAndOnlyTransientOnesRetried(t *testing.T) {
	cases := []struct {
		desc     string
		opts     llmtest.Options
		conf     []string
		req      ChatRequest
		kind     string
		status   int
		attempts int
	}{
		{"400 is not retried", llmtest.Options{Responder: func(llmtest.ChatCall) (string, error) {
			return "", &llmtest.StatusError{Status: 400, Type: "invalid_request_error", Message: "max_tokens is too large"}
		}}, nil, ChatRequest{Messages: user("x")}, ErrBadRequest, 400, 1},
		{"unknown model is not retried", llmtest.Options{Models: []string{"other-model"}}, nil,
			ChatRequest{Messages: user("x")}, ErrNotFound, 404, 1},
		{"500 until the attempts run out", llmtest.Options{Faults: llmtest.Faults{Rate500: 1}}, nil,
			ChatRequest{Messages: user("x")}, ErrServer, 500, 4},
		{"stalls time out", llmtest.Options{Faults: llmtest.Faults{RateStall: 1}}, []string{"timeout = 100ms", "max_attempts = 2"},
			ChatRequest{Messages: user("x")}, ErrTimeout, 0, 2},
		{"truncated bodies", llmtest.Options{Faults: llmtest.Faults{RateTruncate: 1}}, []string{"max_attempts = 3"},
			ChatRequest{Messages: user("x")}, ErrNetwork, 200, 3},
		{"non-JSON where JSON was asked", llmtest.Options{Faults: llmtest.Faults{RateBadJSON: 1}}, []string{"max_attempts = 2"},
			ChatRequest{Messages: user("x"), ResponseFormat: FormatJSONObject}, ErrBadOutput, 200, 2},
	}
	for _, tc := range cases {
		c, srv := fake(t, tc.opts, true, tc.conf...)
		_, err := c.Chat(context.Background(), tc.req)
		e := asError(t, err)
		if e.Kind != tc.kind || e.Status != tc.status || e.Attempts != tc.attempts || e.Endpoint != "fake" || e.Model != "test-model" {
			t.Errorf("%s: error %+v, want kind %s status %d attempts %d", tc.desc, e, tc.kind, tc.status, tc.attempts)
		}
		if got := srv.Stats().Total; got != tc.attempts {
			t.Errorf("%s: server saw %d calls, want %d", tc.desc, got, tc.attempts)
		}
		// A failure is never cached: the same request calls again.
		before := srv.Stats().Total
		c.Chat(context.Background(), tc.req)
		if srv.Stats().Total == before {
			t.Errorf("%s: a failed call was served from the cache", tc.desc)
		}
		if u := c.Usage().Total(); u.Failed != 2 || u.Calls != 0 {
			t.Errorf("%s: usage %+v, want 2 failed and 0 calls", tc.desc, u)
		}
	}
}

func TestCacheHitAndCoalescing(t *testing.T) {
	c, srv := fake(t, llmtest.Options{Latency: 100 * time.Millisecond}, true, "max_concurrency = 64")
	ctx := context.Background()
	req := ChatRequest{Role: RoleJudge, Messages: user("rate this answer"), Temperature: 0}
	var wg sync.WaitGroup
	results := make([]ChatResponse, 20)
	errs := make([]error, 20)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = c.Chat(ctx, req)
		}(i)
	}
	wg.Wait()
	if n := srv.Stats().Total; n != 1 {
		t.Fatalf("20 identical requests in flight made %d calls, want 1", n)
	}
	for i, r := range results {
		if errs[i] != nil || r.Content != results[0].Content {
			t.Fatalf("caller %d: %+v %v", i, r, errs[i])
		}
	}
	r, err := c.Chat(ctx, req)
	if err != nil || !r.Cached || r.Attempts != 0 || srv.Stats().Total != 1 {
		t.Errorf("rerun: cached=%v attempts=%d calls=%d err=%v", r.Cached, r.Attempts, srv.Stats().Total, err)
	}
	// Another sample, another temperature or another model is another call.
	for _, other := range []ChatRequest{
		{Role: RoleJudge, Messages: req.Messages, Sample: 1},
		{Role: RoleJudge, Messages: req.Messages, Temperature: 0.7},
		{Role: RoleJudge, Model: "judge-2", Messages: req.Messages},
	} {
		if r, _ := c.Chat(ctx, other); r.Cached {
			t.Errorf("%+v was served from the cache", other)
		}
	}
	u := c.Usage().Total()
	if u.Calls != 4 || u.CacheHits != 20 {
		t.Errorf("usage %+v, want 4 calls and 20 cache hits (19 coalesced + 1 rerun)", u)
	}
}

func TestCancellationStopsWaiting(t *testing.T) {
	c, _ := fake(t, llmtest.Options{Faults: llmtest.Faults{Rate429: 1, RetryAfter: 10 * time.Second}}, true)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Chat(ctx, ChatRequest{Messages: user("x")})
	if e := asError(t, err); e.Kind != ErrCanceled || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %+v", e)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v: the 10s Retry-After wait was not cut by the context", d)
	}
}

func TestEmbeddings(t *testing.T) {
	c, srv := fake(t, llmtest.Options{}, true)
	ctx := context.Background()
	in := []string{"I took up running.", "Running every Saturday at parkrun.", "The cello went back to the shop."}
	r, err := c.Embed(ctx, EmbedRequest{Inputs: in, Dimensions: 32})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Vectors) != 3 || len(r.Vectors[0]) != 32 || r.Cached {
		t.Fatalf("got %d vectors of %d", len(r.Vectors), len(r.Vectors[0]))
	}
	again, err := c.Embed(ctx, EmbedRequest{Inputs: in, Dimensions: 32})
	if err != nil || !again.Cached || srv.Stats().Total != 1 {
		t.Errorf("second embed: cached=%v calls=%d err=%v", again.Cached, srv.Stats().Total, err)
	}
	for i := range r.Vectors {
		for j := range r.Vectors[i] {
			if r.Vectors[i][j] != again.Vectors[i][j] {
				t.Fatalf("cached vector %d differs at %d", i, j)
			}
		}
	}
	if calls := srv.EmbedCalls(); len(calls) != 1 || calls[0].Model != "test-embed" {
		t.Errorf("embed calls %+v", calls)
	}
}

func TestReplicasShareTheLoad(t *testing.T) {
	a, _ := llmtest.Start(llmtest.Options{Latency: 20 * time.Millisecond})
	b, _ := llmtest.Start(llmtest.Options{Latency: 20 * time.Millisecond})
	defer a.Close()
	defer b.Close()
	src := fmt.Sprintf("[endpoint pair]\nbase_url = %s, %s\nmax_concurrency = 8\n[role backbone]\nendpoint = pair\nmodel = m\n", a.URL(), b.URL())
	cfg, err := ParseConfig("t", strings.NewReader(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(cfg, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c.Chat(context.Background(), ChatRequest{Messages: user(fmt.Sprint("q", i))})
		}(i)
	}
	wg.Wait()
	if na, nb := a.Stats().Total, b.Stats().Total; na+nb != 16 || na < 4 || nb < 4 {
		t.Errorf("replica calls %d and %d, want 16 spread over both", na, nb)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	c, srv := fake(t, llmtest.Options{Latency: 50 * time.Millisecond}, false, "max_concurrency = 3")
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c.Chat(context.Background(), ChatRequest{Messages: user(fmt.Sprint("q", i))})
		}(i)
	}
	wg.Wait()
	if m := srv.Stats().MaxConcurrent; m > 3 || m < 2 {
		t.Errorf("max concurrent requests at the server %d, want at most 3 (and the limit used)", m)
	}
}

func TestUsageAndCost(t *testing.T) {
	c, _ := fake(t, llmtest.Options{Replies: []string{"one two three"}}, true)
	ctx := context.Background()
	c.Chat(ctx, ChatRequest{Messages: user("a b c d")})
	c.Chat(ctx, ChatRequest{Messages: user("a b c d")})
	rep := c.Usage()
	if len(rep.Rows) != 1 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	row := rep.Rows[0]
	want := (float64(row.PromptTokens)*1.0 + float64(row.CompletionTokens)*2.0) / 1e6
	if row.Role != RoleBackbone || row.Model != "test-model" || row.Calls != 1 || row.CacheHits != 1 || row.Failed != 0 ||
		!row.Priced || row.CostUSD != want || row.CompletionTokens != 3 {
		t.Errorf("row %+v, want backbone test-model: 1 call, 1 hit, 0 failed, cost %g", row, want)
	}
}

// TestSentinelKeyGoesNowhere plants a key, also as a base URL's userinfo
// and query parameter, and looks for it in the cache files, the answers,
// the errors, the targets, the printed config, the endpoint check and the
// usage report.
func TestSentinelKeyGoesNowhere(t *testing.T) {
	const sentinel = "sk-SENTINEL-7f3a9c2e-never-persist"
	dir := t.TempDir()
	srv, err := llmtest.Start(llmtest.Options{APIKey: sentinel, Models: []string{"test-model"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ch, err := cache.Open(filepath.Join(dir, "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	src := "[endpoint e]\nbase_url = " + srv.URL() + "\napi_key_env = K\n[role backbone]\nendpoint = e\nmodel = test-model\n" +
		"[endpoint wrong]\nbase_url = " + srv.URL() + "\napi_key = " + sentinel + "-but-wrong\n[role judge]\nendpoint = wrong\nmodel = test-model\n" +
		// URL credentials: a working endpoint, and an unreachable one whose
		// network errors name the URL.
		"[endpoint creds]\nbase_url = " + strings.Replace(srv.URL(), "://", "://"+sentinel+"-user:"+sentinel+"@", 1) + "\napi_key_env = K\n[role extractor]\nendpoint = creds\nmodel = test-model\n" +
		"[endpoint dead]\nbase_url = http://" + sentinel + ":pw@127.0.0.1:1/v1?api_key=" + sentinel + "\nmax_attempts = 1\n[role embedder]\nendpoint = dead\nmodel = test-model\n"
	cfg, err := ParseConfig("t", strings.NewReader(src), env(map[string]string{"K": sentinel}))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(cfg, Options{Cache: ch})
	var seen strings.Builder
	r, err := c.Chat(context.Background(), ChatRequest{Messages: user("hello")})
	fmt.Fprint(&seen, r, err)
	_, err = c.Chat(context.Background(), ChatRequest{Role: RoleJudge, Messages: user("hello")})
	if e := asError(t, err); e.Kind != ErrAuth {
		t.Errorf("wrong key: %+v", e)
	}
	fmt.Fprintf(&seen, "%v %+v %#v", err, err, err)
	if r, err := c.Chat(context.Background(), ChatRequest{Role: RoleExtractor, Messages: user("hello")}); err != nil || r.Content == "" {
		t.Errorf("an endpoint with credentials in its URL: %+v %v", r, err)
	}
	_, err = c.Embed(context.Background(), EmbedRequest{Inputs: []string{"x"}})
	if e := asError(t, err); e.Kind != ErrNetwork || !strings.Contains(e.Error(), "127.0.0.1:1/v1") {
		t.Errorf("unreachable endpoint: %+v", e)
	}
	fmt.Fprintf(&seen, "%v %+v %#v %v", err, err, err, errors.Unwrap(err))
	for _, r := range Roles() {
		fmt.Fprintln(&seen, Target(c, r, ""))
	}
	fmt.Fprintf(&seen, "%v %+v %#v", cfg.Endpoints, cfg.Endpoints, cfg.Endpoints)
	fmt.Fprintf(&seen, "%+v", c.Usage())
	fmt.Fprintf(&seen, "%+v %+v", cfg, *cfg.Endpoints["e"])
	if err := c.Check(context.Background()); err != nil {
		fmt.Fprint(&seen, err)
	}
	st, _ := ch.Stats(context.Background())
	st.WriteText(&seen)
	ch.Close()
	if strings.Contains(seen.String(), sentinel) {
		t.Errorf("the key reached printed output:\n%s", seen.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), sentinel) {
			t.Errorf("the key is in %s", filepath.Base(f))
		}
	}
	if len(files) == 0 {
		t.Fatal("no cache files to check")
	}
}

func TestCheckNamesTheProblem(t *testing.T) {
	srv, _ := llmtest.Start(llmtest.Options{APIKey: "right", Models: []string{"served"}})
	defer srv.Close()
	cases := []struct {
		desc, conf, want string
	}{
		{"unreachable", "[endpoint dead]\nbase_url = http://127.0.0.1:1/v1\ntimeout = 2s\n[role backbone]\nendpoint = dead\nmodel = m\n",
			`endpoint "dead" (http://127.0.0.1:1/v1): network`},
		{"wrong key", "[endpoint e]\nbase_url = " + srv.URL() + "\napi_key = wrong\n[role backbone]\nendpoint = e\nmodel = served\n",
			`endpoint "e" (` + srv.URL() + `): auth`},
		{"unknown model", "[endpoint e]\nbase_url = " + srv.URL() + "\napi_key = right\n[role judge]\nendpoint = e\nmodel = missing\n",
			`does not serve model "missing" for role judge`},
		{"fine", "[endpoint e]\nbase_url = " + srv.URL() + "\napi_key = right\n[role judge]\nendpoint = e\nmodel = served\n", ""},
	}
	for _, tc := range cases {
		cfg, err := ParseConfig("t", strings.NewReader(tc.conf), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := New(cfg, Options{})
		err = c.Check(context.Background())
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.desc, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.desc, err, tc.want)
		}
	}
}

func TestHasJSONObject(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`{"score": 3}`, true},
		{"```json\n{\"score\": 3}\n```", true},
		{"Here is my verdict: {\"score\": 3, \"reasoning\": \"ok\"} Thanks.", true},
		{"```\n{\"a\": [1, 2]}\n```\nextra", true},
		{`[1, 2]`, true},
		{`"just a string"`, false},
		{`The score is 3.`, false},
		{`{"score": 3`, false},
		{`{'score': 3, 'reasoning': 'it's right',}`, true}, // repaired as the judges repair it
		{``, false},
	}
	for _, c := range cases {
		if got := HasJSONObject(c.in); got != c.want {
			t.Errorf("HasJSONObject(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestReplyJSON(t *testing.T) {
	b, ok := ReplyJSON("Verdict:\n```json\n{'score': 2, 'tags': ['a', 'b',],}\n```")
	if !ok || string(b) != `{"score": 2, "tags": ["a", "b"]}` {
		t.Errorf("ReplyJSON = %s, %v", b, ok)
	}
	if got, ok := JSONStrings([]byte(`["x", 3, {"y": 1}, 2.5]`)); !ok || strings.Join(got, ",") != "x,3,2.5" {
		t.Errorf("JSONStrings = %v, %v", got, ok)
	}
}

func TestFencedJSONIsAcceptedAsItCame(t *testing.T) {
	fenced := "```json\n{\"score\": 4}\n```"
	c, srv := fake(t, llmtest.Options{Replies: []string{fenced}}, false)
	r, err := c.Chat(context.Background(), ChatRequest{Messages: user("judge"), ResponseFormat: FormatJSONObject})
	if err != nil || r.Content != fenced || srv.Stats().Total != 1 {
		t.Errorf("content %q, err %v, calls %d: a fenced JSON answer must come back unchanged, without retries", r.Content, err, srv.Stats().Total)
	}
}

// TestWithoutCallsRefusesEvenCacheHits: under WithoutCalls (cost
// estimates) nothing is asked or served, and usage does not move.
func TestWithoutCallsRefusesEvenCacheHits(t *testing.T) {
	c, srv := fake(t, llmtest.Options{}, true)
	req := ChatRequest{Role: RoleJudge, Messages: user("rate this")}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ctx := WithoutCalls(context.Background())
	_, err := c.Chat(ctx, req)
	if e := asError(t, err); e.Kind != ErrNoCalls {
		t.Errorf("chat: kind %q, want %q", e.Kind, ErrNoCalls)
	}
	_, err = c.Embed(ctx, EmbedRequest{Inputs: []string{"a"}})
	if e := asError(t, err); e.Kind != ErrNoCalls {
		t.Errorf("embed: kind %q, want %q", e.Kind, ErrNoCalls)
	}
	if u := c.Usage().Total(); srv.Stats().Total != 1 || u.Calls != 1 || u.CacheHits != 0 || u.Failed != 0 {
		t.Errorf("server calls %d, usage %+v: want 1 call and nothing else", srv.Stats().Total, u)
	}
	if CallsAllowed(ctx) || !CallsAllowed(context.Background()) {
		t.Error("CallsAllowed")
	}
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/v1"
}

// TestCheckTimeoutSaysTheRealLimit: an endpoint that never answers fails
// the check with the limit that stopped it: the check's own (the context's
// deadline, 30 s in llm.Default) when it is shorter than the endpoint's
// timeout, else the endpoint's timeout.
func TestCheckTimeoutSaysTheRealLimit(t *testing.T) {
	url := silentServer(t)
	check := func(conf string, ctx context.Context) error {
		cfg, err := ParseConfig("t", strings.NewReader("[endpoint silent]\nbase_url = "+url+"\n"+conf+"[role judge]\nendpoint = silent\nmodel = m\n"), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := New(cfg, Options{})
		return c.Check(ctx)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := check("", ctx) // the endpoint's timeout is the default 2 minutes
	m := regexp.MustCompile(`timeout: no answer within (\S+) \(the endpoint check's limit\)`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("check's limit: %v", err)
	}
	// The limit left when the check started: 300ms less the config's parsing.
	if d, perr := time.ParseDuration(m[1]); perr != nil || d > 300*time.Millisecond || d < 200*time.Millisecond {
		t.Errorf("check's limit %s, want about 300ms: %v", m[1], err)
	}
	err = check("timeout = 200ms\n", context.Background())
	if err == nil || !strings.Contains(err.Error(), "timeout: no answer within 200ms (the endpoint's timeout)") {
		t.Errorf("endpoint's timeout: %v", err)
	}
}

// TestBadOutputMessageKeepsCharactersWhole: the answer quoted in a "holds no
// JSON object" error is clipped by runes, so a Chinese answer is quoted as
// text, not cut in the middle of a character into \x escapes.
func TestBadOutputMessageKeepsCharactersWhole(t *testing.T) {
	answer := strings.Repeat("我喜欢北京", 20) // 100 runes, 300 bytes, no JSON
	c, _ := fake(t, llmtest.Options{Replies: []string{answer}}, false, "max_attempts = 1")
	_, err := c.Chat(context.Background(), ChatRequest{Messages: user("x"), ResponseFormat: FormatJSONObject})
	e := asError(t, err)
	if e.Kind != ErrBadOutput {
		t.Fatalf("kind %q, want %q: %v", e.Kind, ErrBadOutput, err)
	}
	want := fmt.Sprintf("%q", string([]rune(answer)[:80])+"…")
	if !strings.Contains(e.Message, want) || strings.Contains(e.Message, `\x`) {
		t.Errorf("message %q: want the answer's first 80 characters quoted whole, %s", e.Message, want)
	}
}
