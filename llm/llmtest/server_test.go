package llmtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memlab/memlab/llm/llmtest"
)

// start runs a server for one test.
func start(t *testing.T, opts llmtest.Options) *llmtest.Server {
	t.Helper()
	s, err := llmtest.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// client is a go-openai client for s with the given key and timeout
// (0 = none).
func client(s *llmtest.Server, key string, timeout time.Duration) *openai.Client {
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = s.URL()
	cfg.HTTPClient = &http.Client{Timeout: timeout}
	return openai.NewClientWithConfig(cfg)
}

func userMsg(text string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}}
}

func chat(c *openai.Client, model, text string) (openai.ChatCompletionResponse, error) {
	return c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: model, Messages: userMsg(text)})
}

// post sends a raw JSON body and returns the status and decoded body.
func post(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("POST %s: body %q is not JSON: %v", url, raw, err)
	}
	return resp.StatusCode, resp.Header, m
}

// apiErr asserts err is an OpenAI API error with the given status, type and
// code ("" = null).
func apiErr(t *testing.T, err error, status int, typ, code string) *openai.APIError {
	t.Helper()
	var ae *openai.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T): want *openai.APIError", err, err)
	}
	if ae.HTTPStatusCode != status || ae.Type != typ {
		t.Errorf("error status %d type %q: want %d %q (%v)", ae.HTTPStatusCode, ae.Type, status, typ, ae)
	}
	// go-openai decodes a null code as the int 0.
	gotCode, isString := ae.Code.(string)
	if code == "" && (isString || (ae.Code != nil && ae.Code != 0)) || code != "" && gotCode != code {
		t.Errorf("error code %#v: want %q", ae.Code, code)
	}
	if ae.Message == "" {
		t.Errorf("error has no message")
	}
	return ae
}

func TestChatRoundTrip(t *testing.T) {
	s := start(t, llmtest.Options{})
	c := client(s, "", 0)
	req := openai.ChatCompletionRequest{
		Model: "gpt-test",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "be brief"},
			{Role: openai.ChatMessageRoleUser, Content: "Where did Alice move in 2021?"},
		},
	}
	resp, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil {
		t.Fatalf("CreateChatCompletion: %v", err)
	}
	want, _ := llmtest.DefaultReply(llmtest.ChatCall{Messages: []llmtest.Message{{Role: "user", Content: "Where did Alice move in 2021?"}}})
	if !strings.HasPrefix(want, "llmtest answer ") || !strings.HasSuffix(want, ": Where did Alice move in 2021?") {
		t.Errorf("DefaultReply = %q: want the echo form", want)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("choices = %d: want 1", len(resp.Choices))
	}
	ch := resp.Choices[0]
	if ch.Message.Content != want || ch.Message.Role != "assistant" || ch.FinishReason != openai.FinishReasonStop || ch.Index != 0 {
		t.Errorf("choice = %+v: want assistant %q, finish stop", ch, want)
	}
	if resp.ID == "" || resp.Object != "chat.completion" || resp.Model != "gpt-test" || resp.Created == 0 {
		t.Errorf("envelope id %q object %q model %q created %d", resp.ID, resp.Object, resp.Model, resp.Created)
	}
	// "be brief" (2) + 6 words; the answer has 2 + 6 words.
	wantUsage := openai.Usage{PromptTokens: 8, CompletionTokens: 9, TotalTokens: 17}
	if resp.Usage.PromptTokens != wantUsage.PromptTokens || resp.Usage.CompletionTokens != wantUsage.CompletionTokens || resp.Usage.TotalTokens != wantUsage.TotalTokens {
		t.Errorf("usage = %+v: want %+v", resp.Usage, wantUsage)
	}
	again, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil || again.Choices[0].Message.Content != want {
		t.Errorf("second call: %v, %q: want the same answer", err, again.Choices[0].Message.Content)
	}
	st := s.Stats()
	if st.Total != 2 || st.ByPath[llmtest.PathChat] != 2 || st.ByOutcome[llmtest.OutcomeOK] != 2 || st.InFlight != 0 {
		t.Errorf("stats = %+v: want 2 ok chat calls", st)
	}
}

func TestChatRecordsRequest(t *testing.T) {
	seed0, seed42 := 0, 42
	schema := json.RawMessage(`{"type":"object","properties":{"verdict":{"type":"string","enum":["CORRECT","WRONG"]}},"required":["verdict"]}`)
	tests := []struct {
		name  string
		req   openai.ChatCompletionRequest
		check func(t *testing.T, c llmtest.ChatCall)
	}{
		{"temperature 0.7 and seed 42", openai.ChatCompletionRequest{Temperature: 0.7, Seed: &seed42}, func(t *testing.T, c llmtest.ChatCall) {
			if !c.HasTemperature || math.Abs(c.Temperature-0.7) > 1e-6 || !c.HasSeed || c.Seed != 42 {
				t.Errorf("temperature %v (%v) seed %d (%v): want 0.7 and 42", c.Temperature, c.HasTemperature, c.Seed, c.HasSeed)
			}
		}},
		{"go-openai omits temperature 0; seed 0 is sent", openai.ChatCompletionRequest{Temperature: 0, Seed: &seed0}, func(t *testing.T, c llmtest.ChatCall) {
			if c.HasTemperature || !c.HasSeed || c.Seed != 0 || c.HasTopP {
				t.Errorf("HasTemperature %v HasSeed %v seed %d HasTopP %v: want false, true, 0, false", c.HasTemperature, c.HasSeed, c.Seed, c.HasTopP)
			}
		}},
		{"top_p, max_tokens, stop, n", openai.ChatCompletionRequest{TopP: 0.9, MaxTokens: 3, Stop: []string{"END", "##"}, N: 2}, func(t *testing.T, c llmtest.ChatCall) {
			if !c.HasTopP || math.Abs(c.TopP-0.9) > 1e-6 || c.MaxTokens != 3 || strings.Join(c.Stop, "|") != "END|##" || c.Choices != 2 {
				t.Errorf("top_p %v max %d stop %q n %d", c.TopP, c.MaxTokens, c.Stop, c.Choices)
			}
		}},
		{"max_completion_tokens", openai.ChatCompletionRequest{MaxCompletionTokens: 7}, func(t *testing.T, c llmtest.ChatCall) {
			if c.MaxTokens != 7 {
				t.Errorf("max tokens %d: want 7", c.MaxTokens)
			}
		}},
		{"json_schema", openai.ChatCompletionRequest{ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: "verdict", Schema: schema, Strict: true,
			},
		}}, func(t *testing.T, c llmtest.ChatCall) {
			if c.ResponseFormat != "json_schema" || c.SchemaName != "verdict" || !c.JSONAsked() {
				t.Errorf("format %q name %q", c.ResponseFormat, c.SchemaName)
			}
			var got, want any
			if err := json.Unmarshal([]byte(c.Schema), &got); err != nil {
				t.Fatalf("schema %q: %v", c.Schema, err)
			}
			_ = json.Unmarshal(schema, &want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("schema = %v: want %v", got, want)
			}
		}},
		{"headers, Authorization redacted", openai.ChatCompletionRequest{}, func(t *testing.T, c llmtest.ChatCall) {
			if got := c.Header.Get("Authorization"); got != "[redacted]" {
				t.Errorf("Authorization = %q: want [redacted]", got)
			}
			if got := c.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
			if strings.Contains(fmt.Sprint(c.Header), "sk-secret") {
				t.Errorf("header %v leaks the key", c.Header)
			}
			if !strings.Contains(c.Body, `"stream":false`) {
				t.Errorf("body %s: want go-openai's \"stream\":false", c.Body)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, llmtest.Options{APIKey: "sk-secret"})
			tc.req.Model = "m"
			tc.req.Messages = userMsg("hello there")
			if _, err := client(s, "sk-secret", 0).CreateChatCompletion(context.Background(), tc.req); err != nil {
				t.Fatalf("CreateChatCompletion: %v", err)
			}
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("calls = %d: want 1", len(calls))
			}
			c := calls[0]
			if c.N != 1 || c.Model != "m" || len(c.Messages) != 1 || c.Messages[0] != (llmtest.Message{Role: "user", Content: "hello there"}) || c.Outcome != llmtest.OutcomeOK {
				t.Errorf("call = %+v", c)
			}
			tc.check(t, c)
		})
	}
}

// A client that writes "temperature": 0 itself is recorded as such.
func TestChatRecordsExplicitZeroTemperature(t *testing.T) {
	s := start(t, llmtest.Options{})
	status, _, _ := post(t, s.URL()+"/chat/completions",
		`{"model":"m","temperature":0,"stop":"X","messages":[{"role":"user","content":[{"type":"text","text":"a "},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"b"}]}]}`)
	if status != 200 {
		t.Fatalf("status %d: want 200", status)
	}
	c := s.Calls()[0]
	if !c.HasTemperature || c.Temperature != 0 || len(c.Stop) != 1 || c.Stop[0] != "X" || c.Messages[0].Content != "a b" {
		t.Errorf("call = %+v: want temperature 0 present, stop [X], content %q", c, "a b")
	}
}

func TestChatClipsAnswer(t *testing.T) {
	s := start(t, llmtest.Options{Replies: []string{"one two three four five", "alpha beta END gamma"}})
	c := client(s, "", 0)
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q"), MaxTokens: 3, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 2 || resp.Choices[1].Index != 1 || resp.Choices[0].Message.Content != "one two three" || resp.Choices[0].FinishReason != openai.FinishReasonLength {
		t.Errorf("choices = %+v: want 2 x %q, finish length", resp.Choices, "one two three")
	}
	if resp.Usage.CompletionTokens != 6 {
		t.Errorf("completion tokens %d: want 6", resp.Usage.CompletionTokens)
	}
	resp, err = c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("q"), Stop: []string{"END"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0]; got.Message.Content != "alpha beta " || got.FinishReason != openai.FinishReasonStop {
		t.Errorf("choice = %+v: want %q, finish stop", got, "alpha beta ")
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in         string
		stop       []string
		max        int
		want, fini string
	}{
		{"a b c", nil, 0, "a b c", "stop"},
		{"a b c", nil, 3, "a b c", "stop"},
		{"a  b\nc d", nil, 2, "a  b", "length"},
		{"  lead a b", nil, 1, "  lead", "length"},
		{"x STOP y ## z", []string{"##", "STOP"}, 0, "x ", "stop"},
		{"x STOP y", []string{""}, 0, "x STOP y", "stop"},
		{"w1 w2 w3 END w4", []string{"END"}, 2, "w1 w2", "length"},
	}
	for _, tc := range tests {
		got, fin := llmtest.Clip(tc.in, tc.stop, tc.max)
		if got != tc.want || fin != tc.fini {
			t.Errorf("Clip(%q, %q, %d) = %q, %q: want %q, %q", tc.in, tc.stop, tc.max, got, fin, tc.want, tc.fini)
		}
	}
}

func TestDefaultReplyJSON(t *testing.T) {
	tests := []struct {
		name   string
		format string
		schema string
		want   string // JSON the reply must equal; "" = check answer/score form
	}{
		{"json_object", "json_object", "", ""},
		{"schema missing", "json_schema", "", ""},
		{"schema not an object", "json_schema", `{"type":"string"}`, ""},
		{"enum, integer range, number, bool, array", "json_schema",
			`{"type":"object","properties":{"verdict":{"type":"string","enum":["CORRECT","WRONG"]},"score":{"type":"integer","minimum":5,"maximum":10},"p":{"type":"number","maximum":0.2},"ok":{"type":"boolean"},"facts":{"type":"array","items":{"type":"string"},"minItems":2}},"required":["verdict","score","p","ok","facts"],"additionalProperties":false}`,
			`{"facts":["llmtest facts","llmtest facts"],"ok":true,"p":0.2,"score":5,"verdict":"CORRECT"}`},
		{"refs, anyOf with null, const, nullable type", "json_schema",
			`{"$defs":{"Item":{"type":"object","properties":{"id":{"type":"integer","exclusiveMaximum":2}}}},"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Item"}},"note":{"anyOf":[{"type":"null"},{"type":"string","maxLength":4}]},"v":{"const":"x"},"n":{"type":["null","number"]}}}`,
			`{"items":[{"id":1}],"n":0.5,"note":"llmt","v":"x"}`},
		{"required without properties", "json_schema", `{"type":"object","required":["answer"]}`, `{"answer":"llmtest answer"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := llmtest.ChatCall{ResponseFormat: tc.format, Schema: tc.schema, Messages: []llmtest.Message{{Role: "user", Content: "judge this"}}}
			got, err := llmtest.DefaultReply(call)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" {
				if got != tc.want {
					t.Errorf("reply = %s: want %s", got, tc.want)
				}
				return
			}
			var m struct {
				Answer string `json:"answer"`
				Score  int    `json:"score"`
			}
			if err := json.Unmarshal([]byte(got), &m); err != nil || !strings.HasPrefix(m.Answer, "llmtest answer ") || m.Score < 1 || m.Score > 5 {
				t.Errorf("reply = %s (%v): want {answer, score 1..5}", got, err)
			}
		})
	}
}

func TestEmbeddings(t *testing.T) {
	s := start(t, llmtest.Options{})
	c := client(s, "", 0)
	ctx := context.Background()
	texts := []string{"Alice moved to Lisbon", "Alice moved to Porto", "quarterly tax report", ""}
	resp, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: "emb"})
	if err != nil {
		t.Fatalf("CreateEmbeddings: %v", err)
	}
	if len(resp.Data) != len(texts) || resp.Object != "list" || resp.Model != "emb" {
		t.Fatalf("response: %d vectors, object %q, model %q", len(resp.Data), resp.Object, resp.Model)
	}
	if resp.Usage.PromptTokens != 11 || resp.Usage.TotalTokens != 11 {
		t.Errorf("usage = %+v: want 11 prompt tokens", resp.Usage)
	}
	for i, d := range resp.Data {
		if d.Index != i || d.Object != "embedding" || len(d.Embedding) != llmtest.DefaultEmbeddingDims {
			t.Errorf("data[%d]: index %d object %q dims %d", i, d.Index, d.Object, len(d.Embedding))
		}
		if n := norm(d.Embedding); math.Abs(n-1) > 1e-5 {
			t.Errorf("data[%d]: norm %v: want 1", i, n)
		}
		if want := llmtest.Vector(texts[i], 64); !equal(d.Embedding, want) {
			t.Errorf("data[%d] differs from Vector", i)
		}
	}
	near, _ := resp.Data[0].DotProduct(&resp.Data[1])
	far, _ := resp.Data[0].DotProduct(&resp.Data[2])
	if near < 0.5 || near <= far+0.3 {
		t.Errorf("cosines: shared words %v, none %v: want the first clearly larger", near, far)
	}

	// One string, given dims, base64: same vectors, and a prefix of the
	// larger ones once renormalized.
	for _, format := range []openai.EmbeddingEncodingFormat{openai.EmbeddingEncodingFormatFloat, openai.EmbeddingEncodingFormatBase64} {
		one, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: texts[0], Model: "emb", Dimensions: 16, EncodingFormat: format})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(one.Data) != 1 || len(one.Data[0].Embedding) != 16 {
			t.Fatalf("%s: shape %d x %d: want 1 x 16", format, len(one.Data), len(one.Data[0].Embedding))
		}
		prefix := resp.Data[0].Embedding[:16]
		scale := float32(1 / norm(prefix))
		for i, x := range one.Data[0].Embedding {
			if math.Abs(float64(x-prefix[i]*scale)) > 1e-5 {
				t.Fatalf("%s: dims 16 is not the renormalized prefix of dims 64 at %d", format, i)
			}
		}
	}
	calls := s.EmbedCalls()
	if len(calls) != 3 || calls[1].Dimensions != 16 || calls[2].EncodingFormat != "base64" || len(calls[0].Inputs) != 4 || calls[1].Inputs[0] != texts[0] {
		t.Errorf("embed calls = %+v", calls)
	}
}

func TestEmbeddingsOptionsAndErrors(t *testing.T) {
	s := start(t, llmtest.Options{EmbeddingDims: 8})
	resp, err := client(s, "", 0).CreateEmbeddings(context.Background(), openai.EmbeddingRequestTokens{Input: [][]int{{1, 2}, {3}}, Model: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 2 || len(resp.Data[0].Embedding) != 8 || !equal(resp.Data[1].Embedding, llmtest.Vector("tok3", 8)) {
		t.Errorf("token input: %d vectors of %d", len(resp.Data), len(resp.Data[0].Embedding))
	}
	bad := []struct{ name, body string }{
		{"not JSON", `{"input":`},
		{"no input", `{"model":"e"}`},
		{"empty list", `{"model":"e","input":[]}`},
		{"no model", `{"input":"x"}`},
		{"bad dims", `{"model":"e","input":"x","dimensions":-3}`},
		{"bad format", `{"model":"e","input":"x","encoding_format":"int8"}`},
		{"bad input type", `{"model":"e","input":{"a":1}}`},
	}
	for _, tc := range bad {
		status, _, body := post(t, s.URL()+"/embeddings", tc.body)
		e, _ := body["error"].(map[string]any)
		if status != 400 || e["type"] != "invalid_request_error" || e["message"] == "" {
			t.Errorf("%s: status %d body %v: want 400 invalid_request_error", tc.name, status, body)
		}
	}
	if got := s.Stats().ByOutcome[llmtest.OutcomeBadRequest]; got != len(bad) {
		t.Errorf("bad_request outcomes %d: want %d", got, len(bad))
	}
}

func TestVector(t *testing.T) {
	a := llmtest.Vector("Hello, World!", 32)
	if !equal(a, llmtest.Vector("hello world", 32)) {
		t.Errorf("case and punctuation change the vector")
	}
	if equal(a, llmtest.Vector("world hello hello", 32)) {
		t.Errorf("repeated words do not count")
	}
	if equal(llmtest.Vector("!!", 32), llmtest.Vector("??", 32)) {
		t.Errorf("texts without words share a vector")
	}
	if n := norm(llmtest.Vector("", 3)); math.Abs(n-1) > 1e-6 {
		t.Errorf("empty text norm %v", n)
	}
	if got := len(llmtest.Vector("x", 0)); got != llmtest.DefaultEmbeddingDims {
		t.Errorf("dims 0 gives %d dims: want the default", got)
	}
}

func TestAuth(t *testing.T) {
	s := start(t, llmtest.Options{APIKey: "sk-right-key-123"})
	tests := []struct {
		name, key string
		code      string // "" = null
		ok        bool
	}{
		{"missing", "", "", false},
		{"wrong", "sk-wrong-key-456", "invalid_api_key", false},
		{"right", "sk-right-key-123", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := client(s, tc.key, 0)
			_, err := chat(c, "m", "hi")
			_, errEmb := c.CreateEmbeddings(context.Background(), openai.EmbeddingRequest{Input: "x", Model: "e"})
			_, errList := c.ListModels(context.Background())
			if tc.ok {
				if err != nil || errEmb != nil || errList != nil {
					t.Errorf("errors %v, %v, %v: want none", err, errEmb, errList)
				}
				return
			}
			ae := apiErr(t, err, 401, "invalid_request_error", tc.code)
			if strings.Contains(ae.Message, tc.key) && tc.key != "" {
				t.Errorf("message %q shows the whole key", ae.Message)
			}
			apiErr(t, errEmb, 401, "invalid_request_error", tc.code)
			apiErr(t, errList, 401, "invalid_request_error", tc.code)
		})
	}
	if got := s.Stats().ByOutcome[llmtest.OutcomeUnauthorized]; got != 6 {
		t.Errorf("unauthorized outcomes %d: want 6", got)
	}
}

func TestModels(t *testing.T) {
	s := start(t, llmtest.Options{Models: []string{"chat-a", "emb-b"}})
	c := client(s, "", 0)
	ctx := context.Background()
	_, err := chat(c, "gpt-unknown", "hi")
	ae := apiErr(t, err, 404, "invalid_request_error", "model_not_found")
	if !strings.Contains(ae.Message, "gpt-unknown") {
		t.Errorf("message %q does not name the model", ae.Message)
	}
	_, err = c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: "x", Model: "chat-x"})
	apiErr(t, err, 404, "invalid_request_error", "model_not_found")
	if _, err := chat(c, "chat-a", "hi"); err != nil {
		t.Errorf("known model: %v", err)
	}
	list, err := c.ListModels(ctx)
	if err != nil || len(list.Models) != 2 || list.Models[0].ID != "chat-a" || list.Models[1].Object != "model" {
		t.Errorf("ListModels = %+v, %v", list.Models, err)
	}
	if m, err := c.GetModel(ctx, "emb-b"); err != nil || m.ID != "emb-b" {
		t.Errorf("GetModel(emb-b) = %+v, %v", m, err)
	}
	_, err = c.GetModel(ctx, "nope")
	apiErr(t, err, 404, "invalid_request_error", "model_not_found")
	if got := s.Stats().ByOutcome[llmtest.OutcomeNotFound]; got != 3 {
		t.Errorf("not_found outcomes %d: want 3", got)
	}
	if got := s.Calls()[0].Outcome; got != llmtest.OutcomeNotFound {
		t.Errorf("recorded outcome %q: want not_found", got)
	}
}

func TestBadRequests(t *testing.T) {
	s := start(t, llmtest.Options{})
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"stream", "POST", "/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`, 400, "unsupported_value"},
		{"no messages", "POST", "/v1/chat/completions", `{"model":"m","messages":[]}`, 400, ""},
		{"no model", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"not JSON", "POST", "/v1/chat/completions", `model=m`, 400, ""},
		{"temperature 3", "POST", "/v1/chat/completions", `{"model":"m","temperature":3,"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"bad format", "POST", "/v1/chat/completions", `{"model":"m","response_format":{"type":"yaml"},"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"bad content", "POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":7}]}`, 400, ""},
		{"GET chat", "GET", "/v1/chat/completions", ``, 405, ""},
		{"POST models", "POST", "/v1/models", `{}`, 405, ""},
		{"no /v1", "POST", "/chat/completions", `{}`, 404, ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, strings.TrimSuffix(s.URL(), "/v1")+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var body struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Code    *string `json:"code"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		code := ""
		if body.Error.Code != nil {
			code = *body.Error.Code
		}
		if err != nil || resp.StatusCode != tc.status || body.Error.Type != "invalid_request_error" || body.Error.Message == "" || code != tc.code {
			t.Errorf("%s: status %d, %+v, %v: want %d code %q", tc.name, resp.StatusCode, body.Error, err, tc.status, tc.code)
		}
	}
	st := s.Stats()
	if st.ByOutcome[llmtest.OutcomeBadRequest] != 9 || st.ByOutcome[llmtest.OutcomeNotFound] != 1 || st.ByPath["/chat/completions"] != 1 {
		t.Errorf("stats = %+v", st)
	}
	// go-openai refuses streams itself, so the fake's 400 is for other clients.
	_, err := client(s, "", 0).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Stream: true, Messages: userMsg("x")})
	if !errors.Is(err, openai.ErrChatCompletionStreamNotSupported) {
		t.Errorf("go-openai stream: %v", err)
	}
}

func TestRateLimitRetryAfter(t *testing.T) {
	tests := []struct {
		name    string
		faults  llmtest.Faults
		wantSec string // "" = no Retry-After
		wantMs  string
		date    time.Duration // > 0: Retry-After is a date about now + date
	}{
		{"seconds rounded up", llmtest.Faults{RetryAfter: 1500 * time.Millisecond}, "2", "1500", 0},
		{"zero", llmtest.Faults{}, "0", "0", 0},
		{"per-fault override", llmtest.Faults{RetryAfter: time.Second, Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit, RetryAfter: 3 * time.Second}}}, "3", "3000", 0},
		{"http date", llmtest.Faults{RetryAfter: 5 * time.Second, RetryAfterDate: true}, "", "", 5 * time.Second},
		{"no header", llmtest.Faults{RetryAfter: 5 * time.Second, NoRetryAfter: true}, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.faults.Script) == 0 {
				tc.faults.Script = []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit}}
			}
			s := start(t, llmtest.Options{Faults: tc.faults})
			c := client(s, "", 0)
			before := time.Now()
			resp, err := chat(c, "m", "hi")
			apiErr(t, err, 429, "requests", "rate_limit_exceeded")
			h := resp.Header()
			if tc.date > 0 {
				at, perr := http.ParseTime(h.Get("Retry-After"))
				if perr != nil {
					t.Fatalf("Retry-After %q: %v", h.Get("Retry-After"), perr)
				}
				if at.Before(before.Add(tc.date).Truncate(time.Second)) || at.After(time.Now().Add(tc.date+time.Second)) {
					t.Errorf("Retry-After %v: want about %v from now", at, tc.date)
				}
			} else if got := h.Get("Retry-After"); got != tc.wantSec {
				t.Errorf("Retry-After = %q: want %q", got, tc.wantSec)
			}
			if got := h.Get("Retry-After-Ms"); got != tc.wantMs {
				t.Errorf("retry-after-ms = %q: want %q", got, tc.wantMs)
			}
			// The next call is fine.
			if _, err := chat(c, "m", "hi"); err != nil {
				t.Errorf("call 2: %v", err)
			}
			st := s.Stats()
			if st.ByOutcome[llmtest.FaultRateLimit] != 1 || st.ByOutcome[llmtest.OutcomeOK] != 1 {
				t.Errorf("outcomes = %v", st.ByOutcome)
			}
		})
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		d    time.Duration
		want string
	}{
		{2 * time.Second, "Tue, 04 Mar 2025 05:06:09 GMT"},
		{1500 * time.Millisecond, "Tue, 04 Mar 2025 05:06:09 GMT"},
		{0, "Tue, 04 Mar 2025 05:06:07 GMT"},
	}
	for _, tc := range tests {
		if got := llmtest.RetryAfterDate(now, tc.d); got != tc.want {
			t.Errorf("RetryAfterDate(%v) = %q: want %q", tc.d, got, tc.want)
		}
	}
}

func TestServerErrors(t *testing.T) {
	s := start(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{
		{Call: 1, Kind: llmtest.FaultServerError},
		{Call: 2, Kind: llmtest.FaultUnavailable},
		{Call: 3, Kind: llmtest.FaultServerError},
	}}})
	c := client(s, "", 0)
	_, err := chat(c, "m", "hi")
	apiErr(t, err, 500, "server_error", "")
	_, err = chat(c, "m", "hi")
	apiErr(t, err, 503, "server_error", "")
	_, err = c.CreateEmbeddings(context.Background(), openai.EmbeddingRequest{Input: "x", Model: "e"})
	apiErr(t, err, 500, "server_error", "")
	st := s.Stats()
	if st.ByOutcome[llmtest.FaultServerError] != 2 || st.ByOutcome[llmtest.FaultUnavailable] != 1 {
		t.Errorf("outcomes = %v", st.ByOutcome)
	}
}

func TestStall(t *testing.T) {
	s := start(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultStall}, {Call: 2, Kind: llmtest.FaultStall}}}})
	c := client(s, "", 150*time.Millisecond)
	t0 := time.Now()
	_, err := chat(c, "m", "hi")
	if err == nil {
		t.Fatal("stalled call succeeded")
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("client waited %v", el)
	}
	if got := s.Stats().ByOutcome[llmtest.FaultStall]; got != 1 {
		t.Errorf("stall outcomes %d: want 1", got)
	}
	waitIdle(t, s)
	// A stall on embeddings, cut by the caller's context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = client(s, "", 0).CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: "x", Model: "e"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("embeddings stall: %v: want deadline exceeded", err)
	}
	waitIdle(t, s)
	if got := s.EmbedCalls()[0].Outcome; got != llmtest.FaultStall {
		t.Errorf("embed outcome %q", got)
	}
}

// waitIdle waits until no request is in flight: handlers end once the
// client is gone.
func waitIdle(t *testing.T, s *llmtest.Server) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for s.Stats().InFlight != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still %d requests in flight after the client left", s.Stats().InFlight)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCloseEndsStall(t *testing.T) {
	s, err := llmtest.Start(llmtest.Options{Faults: llmtest.Faults{RateStall: 1}})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := chat(client(s, "", 0), "m", "hi")
		errc <- err
	}()
	for s.Stats().ByOutcome[llmtest.FaultStall] == 0 {
		time.Sleep(2 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not return while a call stalled")
	}
	if err := <-errc; err == nil {
		t.Error("stalled call succeeded after Close")
	}
	s.Close() // a second Close does nothing
}

func TestCancelDuringLatency(t *testing.T) {
	s := start(t, llmtest.Options{Latency: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := client(s, "", 0).CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: userMsg("x")})
	if err == nil {
		t.Fatal("call succeeded")
	}
	waitIdle(t, s)
	if got := s.Calls()[0].Outcome; got != llmtest.OutcomeCanceled {
		t.Errorf("outcome %q: want canceled", got)
	}
}

func TestTruncatedBody(t *testing.T) {
	s := start(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{
		{Call: 1, Kind: llmtest.FaultTruncate}, {Call: 2, Kind: llmtest.FaultTruncate},
	}}})
	c := client(s, "", 0)
	if _, err := chat(c, "m", "a question long enough to give a body worth cutting"); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("chat: error %v: want unexpected EOF", err)
	}
	if _, err := c.CreateEmbeddings(context.Background(), openai.EmbeddingRequest{Input: "x", Model: "e"}); err == nil {
		t.Error("embeddings: truncated body decoded without error")
	}
	if _, err := chat(c, "m", "q"); err != nil {
		t.Errorf("call after truncation: %v", err)
	}
	if got := s.Stats().ByOutcome[llmtest.FaultTruncate]; got != 2 {
		t.Errorf("truncate outcomes %d: want 2", got)
	}
}

func TestBadJSONAndEmpty(t *testing.T) {
	jsonReq := openai.ChatCompletionRequest{Model: "m", Messages: userMsg("rate it"),
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}}
	s := start(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{
		{Call: 1, Kind: llmtest.FaultBadJSON}, {Call: 3, Kind: llmtest.FaultEmpty}, {Call: 4, Kind: llmtest.FaultEmpty}, {Call: 5, Kind: llmtest.FaultBadJSON},
	}}})
	c := client(s, "", 0)
	ctx := context.Background()
	resp, err := c.CreateChatCompletion(ctx, jsonReq)
	if err != nil {
		t.Fatal(err)
	}
	bad := resp.Choices[0].Message.Content
	if json.Valid([]byte(bad)) || strings.Contains(bad, "}") {
		t.Errorf("bad_json content %q is JSON or holds an object", bad)
	}
	resp, err = c.CreateChatCompletion(ctx, jsonReq)
	var obj map[string]any
	if err != nil || json.Unmarshal([]byte(resp.Choices[0].Message.Content), &obj) != nil {
		t.Errorf("call 2: %v, content %q: want a JSON object", err, resp.Choices[0].Message.Content)
	}
	resp, err = c.CreateChatCompletion(ctx, jsonReq)
	if err != nil || resp.Choices == nil || len(resp.Choices) != 0 {
		t.Errorf("empty fault: %v, choices %v: want an empty list", err, resp.Choices)
	}
	emb, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"a", "b"}, Model: "e"})
	if err != nil || len(emb.Data) != 0 {
		t.Errorf("empty fault on embeddings: %v, %d vectors", err, len(emb.Data))
	}
	// bad_json does not apply to embeddings.
	emb, err = c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: "a", Model: "e"})
	if err != nil || len(emb.Data) != 1 {
		t.Errorf("bad_json on embeddings: %v, %d vectors", err, len(emb.Data))
	}
	st := s.Stats()
	want := map[string]int{llmtest.FaultBadJSON: 1, llmtest.FaultEmpty: 2, llmtest.OutcomeOK: 2}
	if fmt.Sprint(st.ByOutcome) != fmt.Sprint(want) {
		t.Errorf("outcomes %v: want %v", st.ByOutcome, want)
	}
}

func TestBadJSONRateOnlyWhenJSONAsked(t *testing.T) {
	s := start(t, llmtest.Options{Faults: llmtest.Faults{RateBadJSON: 1}})
	c := client(s, "", 0)
	resp, err := chat(c, "m", "free text please")
	if err != nil || !strings.HasPrefix(resp.Choices[0].Message.Content, "llmtest answer") {
		t.Errorf("text call: %v %q", err, resp.Choices[0].Message.Content)
	}
	resp, err = c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: userMsg("x"),
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}})
	if err != nil || json.Valid([]byte(resp.Choices[0].Message.Content)) {
		t.Errorf("json call: %v %q: want non-JSON", err, resp.Choices[0].Message.Content)
	}
	if got := s.Stats().ByOutcome; got[llmtest.OutcomeOK] != 1 || got[llmtest.FaultBadJSON] != 1 {
		t.Errorf("outcomes %v", got)
	}
}

// The random plan depends only on the seed and the call number.
func TestRandomPlanReplays(t *testing.T) {
	plan := func(seed uint64) []string {
		s := start(t, llmtest.Options{Faults: llmtest.Faults{Rate429: 0.2, Rate500: 0.2, Rate503: 0.1, RateEmpty: 0.1, Seed: seed}})
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(s.URL()+"/chat/completions", "application/json",
					strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		calls := s.Calls()
		out := make([]string, len(calls)+1)
		for _, c := range calls {
			out[c.N] = c.Outcome
		}
		return out[1:]
	}
	a, b, other := plan(7), plan(7), plan(8)
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("same seed, different plans:\n%v\n%v", a, b)
	}
	if strings.Join(a, ",") == strings.Join(other, ",") {
		t.Errorf("seeds 7 and 8 give the same plan %v", a)
	}
	counts := map[string]int{}
	for _, o := range a {
		counts[o]++
	}
	// 40 draws at 40% ok: far from all or none.
	if counts[llmtest.OutcomeOK] < 5 || counts[llmtest.OutcomeOK] > 30 || counts[llmtest.FaultRateLimit] == 0 || counts[llmtest.FaultServerError] == 0 {
		t.Errorf("outcome counts %v do not look like the rates", counts)
	}
}

func TestConcurrency(t *testing.T) {
	const n = 32
	s := start(t, llmtest.Options{Latency: 200 * time.Millisecond, Jitter: 20 * time.Millisecond, Seed: 1})
	c := client(s, "", 0)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := chat(c, "m", fmt.Sprintf("question %d", i))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.MaxConcurrent != n || st.ByOutcome[llmtest.OutcomeOK] != n || st.InFlight != 0 {
		t.Errorf("stats = %+v: want max concurrency %d", st, n)
	}
	seen := map[int]bool{}
	for _, call := range s.Calls() {
		seen[call.N] = true
	}
	if len(seen) != n || !seen[1] || !seen[n] {
		t.Errorf("call numbers %v: want 1..%d once each", seen, n)
	}
	s.Reset()
	if st := s.Stats(); st.MaxConcurrent != 0 || st.Total != 0 || len(s.Calls()) != 0 {
		t.Errorf("after Reset: %+v", st)
	}
}

func TestScriptedAnswers(t *testing.T) {
	s := start(t, llmtest.Options{
		Replies: []string{"first", "second"},
		Rules:   []llmtest.Rule{{Contains: "weather", Reply: "sunny"}},
		Responder: func(c llmtest.ChatCall) (string, error) {
			if strings.Contains(c.LastUser(), "fail") {
				return "", &llmtest.StatusError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded", Message: "too long"}
			}
			if strings.Contains(c.LastUser(), "boom") {
				return "", errors.New("responder broke")
			}
			return "responder: " + c.Model, nil
		},
		Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 2, Kind: llmtest.FaultRateLimit}}},
	})
	c := client(s, "", 0)
	steps := []struct {
		text, want string
		fails      bool
	}{
		{"weather?", "first", false}, // the queue comes before rules
		{"anything", "", true},       // call 2: 429, consumes nothing
		{"anything", "second", false},
		{"the weather today", "sunny", false},
		{"other", "responder: m", false},
		{"fail", "", true},
		{"boom", "", true},
	}
	for i, st := range steps {
		resp, err := chat(c, "m", st.text)
		if st.fails {
			if err == nil {
				t.Errorf("step %d: succeeded", i)
			}
			continue
		}
		if err != nil || resp.Choices[0].Message.Content != st.want {
			t.Errorf("step %d: %v %q: want %q", i, err, resp.Choices[0].Message.Content, st.want)
		}
	}
	_, err := chat(c, "m", "fail")
	apiErr(t, err, 400, "invalid_request_error", "context_length_exceeded")
	_, err = chat(c, "m", "boom")
	if ae := apiErr(t, err, 500, "server_error", ""); ae.Message != "responder broke" {
		t.Errorf("message %q", ae.Message)
	}
	s.Enqueue("late")
	s.AddRule(llmtest.Rule{Contains: "other", Reply: "rule2"})
	for _, want := range []string{"late", "rule2"} {
		if resp, err := chat(c, "m", "other"); err != nil || resp.Choices[0].Message.Content != want {
			t.Errorf("after Enqueue/AddRule: %v %q: want %q", err, resp.Choices[0].Message.Content, want)
		}
	}
	// Reset restores the queue and rules of Options and renumbers calls.
	s.Reset()
	for _, want := range []string{"first", "", "second", "responder: m"} {
		resp, err := chat(c, "m", "other")
		if want == "" {
			if err == nil {
				t.Error("call 2 after Reset: want the scripted 429 again")
			}
			continue
		}
		if err != nil || resp.Choices[0].Message.Content != want {
			t.Errorf("after Reset: %v %q: want %q", err, resp.Choices[0].Message.Content, want)
		}
	}
}

func TestStartValidates(t *testing.T) {
	tests := []struct {
		name string
		opts llmtest.Options
		want string
	}{
		{"rate above 1", llmtest.Options{Faults: llmtest.Faults{Rate500: 1.5}}, "Faults.Rate500"},
		{"negative rate", llmtest.Options{Faults: llmtest.Faults{RateStall: -0.1}}, "Faults.RateStall"},
		{"rates sum", llmtest.Options{Faults: llmtest.Faults{Rate429: 0.6, Rate503: 0.6}}, "sum"},
		{"latency", llmtest.Options{Latency: -time.Second}, "Latency"},
		{"dims", llmtest.Options{EmbeddingDims: -1}, "EmbeddingDims"},
		{"script kind", llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: "boom"}}}}, "Script[0].Kind"},
		{"script call", llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 0, Kind: llmtest.FaultStall}}}}, "Script[0].Call"},
		{"script duplicate", llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 2, Kind: llmtest.FaultStall}, {Call: 2, Kind: llmtest.FaultEmpty}}}}, "Script[1]"},
		{"address", llmtest.Options{Addr: "256.0.0.1:x"}, "listen"},
	}
	for _, tc := range tests {
		s, err := llmtest.Start(tc.opts)
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "llmtest: start: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q: want it to name %q", tc.name, err, tc.want)
		}
	}
}

func TestServe(t *testing.T) {
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- llmtest.Serve(ctx, "127.0.0.1:0", llmtest.Options{Log: &log}) }()
	var url string
	for deadline := time.Now().Add(3 * time.Second); url == ""; {
		if line, ok := strings.CutPrefix(log.String(), "llmtest: listening on "); ok {
			line, _, _ = strings.Cut(line, "\n")
			url = strings.TrimSpace(line)
		} else if time.Now().After(deadline) {
			t.Fatalf("no listen line in log %q", log.String())
		} else {
			time.Sleep(2 * time.Millisecond)
		}
	}
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	if _, err := chat(openai.NewClientWithConfig(cfg), "m", "hi"); err != nil {
		t.Errorf("call to Serve's server: %v", err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
	if !strings.Contains(log.String(), "#1 POST /v1/chat/completions ok") {
		t.Errorf("log %q: want a line for call 1", log.String())
	}
	if err := llmtest.Serve(context.Background(), "", llmtest.Options{Latency: -1}); err == nil {
		t.Error("Serve with bad options: no error")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func norm(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkChat measures the server's own cost per chat call (no latency),
// with go-openai as the client and calls in parallel.
func BenchmarkChat(b *testing.B) {
	s, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = s.URL()
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	c := openai.NewClientWithConfig(cfg)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := chat(c, "m", "where did Alice move after the wedding"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestDefaultReplyTemplate: a json_object call whose prompt ends with a
// judge's JSON template gets that object, each score on its scale, so that
// a judge's parser reads it (the README's fake-model demo scores answers
// instead of failing them all as missing_score).
func TestDefaultReplyTemplate(t *testing.T) {
	tests := []struct {
		name, prompt string
		check        func(map[string]any) bool
	}{
		{"choices", "Answer: x\nReply with this JSON object only:\n{\"QA_consistency_score\": <0, 1, 2 or 3>, \"QA_consistency_reason\": \"<one or two sentences>\"}",
			func(m map[string]any) bool {
				s, ok := m["QA_consistency_score"].(float64)
				r, _ := m["QA_consistency_reason"].(string)
				return ok && s == float64(int(s)) && s >= 0 && s <= 3 && r != "" && len(m) == 2
			}},
		{"number range, choices, list", "{\"Mem_recall\": <number from 0 to 1>, \"Mem_helpful_score\": <0, 1 or 2>, \"Mem_hits\": [\"<covered gold statements>\"], \"Mem_helpful_reason\": \"<one or two sentences>\"}",
			func(m map[string]any) bool {
				r, ok1 := m["Mem_recall"].(float64)
				h, ok2 := m["Mem_helpful_score"].(float64)
				hits, ok3 := m["Mem_hits"].([]any)
				return ok1 && ok2 && ok3 && r >= 0 && r <= 1 && h >= 0 && h <= 2 && len(hits) == 0
			}},
		{"integer on the prompt's scale", "Use only the scores 0, 3 and 5:\n5 - right\n\nReply with this JSON object only:\n{\"score\": <integer>, \"reasoning\": \"<short>\"}",
			func(m map[string]any) bool {
				s, _ := m["score"].(float64)
				return s == 0 || s == 3 || s == 5
			}},
		{"integer, range", "Score from 0 to 5:\n{\"score\": <integer>, \"reasoning\": \"<short>\"}",
			func(m map[string]any) bool {
				s, ok := m["score"].(float64)
				return ok && s >= 0 && s <= 5 && s == float64(int(s))
			}},
		{"labels", "Reply with this JSON object only:\n{\"reasoning\": \"<one sentence>\", \"label\": \"<CORRECT or WRONG>\"}",
			func(m map[string]any) bool {
				l, _ := m["label"].(string)
				r, _ := m["reasoning"].(string)
				return (l == "CORRECT" || l == "WRONG") && r != ""
			}},
		{"three labels", "{\"v\": \"<YES, NO or UNSURE>\"}",
			func(m map[string]any) bool { return m["v"] == "YES" || m["v"] == "NO" || m["v"] == "UNSURE" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[string]bool{}
			for i := range 20 {
				call := llmtest.ChatCall{ResponseFormat: "json_object", Messages: []llmtest.Message{{Role: "user", Content: fmt.Sprintf("question %d\n%s", i, tc.prompt)}}}
				got, err := llmtest.DefaultReply(call)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(got), &m); err != nil || !tc.check(m) {
					t.Fatalf("reply = %s (%v): not the template's object", got, err)
				}
				again, _ := llmtest.DefaultReply(call)
				if again != got {
					t.Errorf("the same call got %s, then %s", got, again)
				}
				seen[got] = true
			}
			if len(seen) < 2 {
				t.Errorf("20 prompts got one reply: the scores do not spread over the scale")
			}
		})
	}
	// A prompt without a template keeps the answer/score form.
	got, _ := llmtest.DefaultReply(llmtest.ChatCall{ResponseFormat: "json_object", Messages: []llmtest.Message{{Role: "user", Content: `Answer with JSON only: {"facts": ["..."]}`}}})
	if !strings.Contains(got, `"answer"`) {
		t.Errorf("a template without placeholders changed the reply: %s", got)
	}
}
