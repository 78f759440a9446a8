package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/memlab/memlab/internal/tokencount"
	"hash/fnv"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// wireChatRequest holds the fields of a chat request the server reads.
// Pointers tell an absent field from a zero one.
type wireChatRequest struct {
	Model               *string         `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	N                   *int            `json:"n"`
	Stream              bool            `json:"stream"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int64          `json:"seed"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// content decodes a message content: a string, null, or a list of parts
// whose text parts are concatenated.
func (m wireMessage) content() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", errors.New("want a string or a list of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// parseStop reads "stop": a string or a list of strings.
func parseStop(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("want a string or a list of strings")
	}
	return list, nil
}

// parseChat turns a body into a ChatCall, or returns the 400 message.
func parseChat(body []byte) (ChatCall, string) {
	var req wireChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return ChatCall{}, fmt.Sprintf("We could not parse the JSON body of your request: %v", err)
	}
	c := ChatCall{Stream: req.Stream, Body: string(body)}
	if req.Model != nil {
		c.Model = *req.Model
	}
	for i, m := range req.Messages {
		text, err := m.content()
		if err != nil {
			return c, fmt.Sprintf("Invalid 'messages[%d].content': %v.", i, err)
		}
		c.Messages = append(c.Messages, Message{Role: m.Role, Content: text})
	}
	if req.Temperature != nil {
		c.Temperature, c.HasTemperature = *req.Temperature, true
	}
	if req.TopP != nil {
		c.TopP, c.HasTopP = *req.TopP, true
	}
	if req.Seed != nil {
		c.Seed, c.HasSeed = *req.Seed, true
	}
	if req.MaxTokens != nil {
		c.MaxTokens = *req.MaxTokens
	} else if req.MaxCompletionTokens != nil {
		c.MaxTokens = *req.MaxCompletionTokens
	}
	if req.N != nil {
		c.Choices = *req.N
	}
	stop, err := parseStop(req.Stop)
	if err != nil {
		return c, fmt.Sprintf("Invalid 'stop': %v.", err)
	}
	c.Stop = stop
	if rf := req.ResponseFormat; rf != nil {
		c.ResponseFormat = rf.Type
		if rf.JSONSchema != nil {
			c.SchemaName = rf.JSONSchema.Name
			if len(rf.JSONSchema.Schema) > 0 && string(rf.JSONSchema.Schema) != "null" {
				c.Schema = string(rf.JSONSchema.Schema)
			}
		}
	}
	// Check the request the way OpenAI does, after recording what is known.
	switch {
	case req.Model == nil || c.Model == "":
		return c, "you must provide a model parameter"
	case len(req.Messages) == 0:
		return c, "Invalid 'messages': empty array. Expected an array with minimum length 1."
	case c.Temperature < 0 || c.Temperature > 2:
		return c, fmt.Sprintf("Invalid 'temperature': %v. Expected a value between 0 and 2.", c.Temperature)
	case c.TopP < 0 || c.TopP > 1:
		return c, fmt.Sprintf("Invalid 'top_p': %v. Expected a value between 0 and 1.", c.TopP)
	case c.MaxTokens < 0:
		return c, fmt.Sprintf("Invalid 'max_tokens': %d. Expected a value >= 1.", c.MaxTokens)
	case c.Choices < 0 || c.Choices > 128:
		return c, fmt.Sprintf("Invalid 'n': %d. Expected a value between 1 and 128.", c.Choices)
	}
	switch c.ResponseFormat {
	case "", "text", "json_object", "json_schema":
	default:
		return c, fmt.Sprintf("Invalid 'response_format.type': %q. Expected 'text', 'json_object' or 'json_schema'.", c.ResponseFormat)
	}
	return c, ""
}

// JSONAsked reports whether the call's response_format asks for JSON.
func (c ChatCall) JSONAsked() bool {
	return c.ResponseFormat == "json_object" || c.ResponseFormat == "json_schema"
}

// LastUser returns the content of the last user message, or of the last
// message when none is from the user.
func (c ChatCall) LastUser() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].Role == "user" {
			return c.Messages[i].Content
		}
	}
	if len(c.Messages) > 0 {
		return c.Messages[len(c.Messages)-1].Content
	}
	return ""
}

type chatResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             usage        `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      respMessage `json:"message"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type respMessage struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Refusal *string `json:"refusal"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// handleChat serves POST /v1/chat/completions and returns the outcome.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, n int) string {
	if !s.checkAuth(w, r) {
		return s.count(OutcomeUnauthorized)
	}
	body, ok := readBody(w, r)
	if !ok {
		return s.count(OutcomeBadRequest)
	}
	call, bad := parseChat(body)
	call.N = n
	call.Header = redactedHeader(r.Header)
	rec := &call
	s.mu.Lock()
	if !s.opts.Forget {
		s.calls = append(s.calls, rec)
	}
	s.mu.Unlock()
	if bad != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", bad)
		return s.finishChat(rec, OutcomeBadRequest)
	}
	if call.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "unsupported_value",
			"llmtest: streaming is not supported; send \"stream\": false.")
		return s.finishChat(rec, OutcomeBadRequest)
	}
	if !s.checkModel(w, call.Model) {
		return s.finishChat(rec, OutcomeNotFound)
	}

	ft := s.faultFor(n, true, call.JSONAsked())
	if ft.Kind == FaultStall {
		s.finishChat(rec, FaultStall)
		s.stall(r.Context())
		return FaultStall
	}
	if !s.wait(r.Context(), n) {
		return s.finishChat(rec, OutcomeCanceled)
	}
	if ft.Kind != "" {
		s.finishChat(rec, ft.Kind)
		if s.writeFaultStatus(w, ft) {
			return ft.Kind
		}
		content, _ := DefaultReply(call)
		switch ft.Kind {
		case FaultBadJSON:
			content = badJSON(content)
		case FaultEmpty:
			content = ""
		}
		resp := s.chatResponse(call, content, ft.Kind == FaultEmpty)
		if ft.Kind == FaultTruncate {
			b, _ := json.Marshal(resp)
			writeTruncated(w, b)
			return ft.Kind
		}
		writeJSON(w, http.StatusOK, resp)
		return ft.Kind
	}

	content, err := s.reply(call)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) {
			status, typ := se.Status, se.Type
			if status == 0 {
				status = http.StatusInternalServerError
			}
			if typ == "" {
				typ = "server_error"
			}
			writeError(w, status, typ, se.Code, se.Message)
		} else {
			writeError(w, http.StatusInternalServerError, "server_error", "", err.Error())
		}
		return s.finishChat(rec, OutcomeResponderError)
	}
	s.finishChat(rec, OutcomeOK)
	writeJSON(w, http.StatusOK, s.chatResponse(call, content, false))
	return OutcomeOK
}

// finishChat sets a recorded call's outcome and counts it.
func (s *Server) finishChat(rec *ChatCall, outcome string) string {
	s.mu.Lock()
	rec.Outcome = outcome
	s.byOutcome[outcome]++
	s.mu.Unlock()
	return outcome
}

// reply picks the content of an answered call: scripted queue, rules,
// Responder, DefaultReply.
func (s *Server) reply(call ChatCall) (string, error) {
	s.mu.Lock()
	if len(s.replies) > 0 {
		r := s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
		return r, nil
	}
	last := call.LastUser()
	for _, rule := range s.rules {
		if strings.Contains(last, rule.Contains) {
			s.mu.Unlock()
			return rule.Reply, nil
		}
	}
	s.mu.Unlock()
	if s.opts.Responder != nil {
		return s.opts.Responder(call)
	}
	return DefaultReply(call)
}

// chatResponse builds the answer: n choices of content, cut at a stop
// sequence and at max_tokens words.
func (s *Server) chatResponse(call ChatCall, content string, empty bool) chatResponse {
	resp := chatResponse{
		ID:                fmt.Sprintf("chatcmpl-llmtest-%d", call.N),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             call.Model,
		Choices:           []chatChoice{},
		SystemFingerprint: "fp_llmtest",
	}
	for _, m := range call.Messages {
		resp.Usage.PromptTokens += CountTokens(m.Content)
	}
	if !empty {
		text, finish := Clip(content, call.Stop, call.MaxTokens)
		k := max(call.Choices, 1)
		for i := range k {
			resp.Choices = append(resp.Choices, chatChoice{
				Index:        i,
				Message:      respMessage{Role: "assistant", Content: text},
				FinishReason: finish,
			})
			resp.Usage.CompletionTokens += CountTokens(text)
		}
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	return resp
}

// Clip cuts a reply as a model would: before the first stop sequence, then
// after maxTokens words (0 = no limit). finish is "length" when maxTokens
// cut it, else "stop".
func Clip(content string, stop []string, maxTokens int) (text, finish string) {
	cut := len(content)
	for _, st := range stop {
		if st == "" {
			continue
		}
		if i := strings.Index(content, st); i >= 0 && i < cut {
			cut = i
		}
	}
	text = content[:cut]
	if maxTokens > 0 {
		words := 0
		inWord := false
		for i, r := range text {
			space := r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xA0
			if !space && !inWord {
				words++
				if words > maxTokens {
					return strings.TrimRight(text[:i], " \n\t\r\v\f"), "length"
				}
			}
			inWord = !space
		}
	}
	return text, "stop"
}

// CountTokens is the server's token count, the same as
// llm.EstimateTokens: whitespace-separated words, plus one per CJK
// character beyond the first of a word.
func CountTokens(text string) int {
	return tokencount.Estimate(text)
}

// DefaultReply is the deterministic answer used when no scripted reply,
// rule or Responder answers. For text it is
//
//	llmtest answer <8 hex digits of a hash of the last user message>: <its first 12 words>
//
// For response_format json_object it is the object the prompt asks for
// when a line of the last user message is a JSON template whose values are
// placeholders in angle brackets, as judge prompts end:
//
//	{"QA_consistency_score": <0, 1, 2 or 3>, "QA_consistency_reason": "<one or two sentences>"}
//
// (see TemplateReply); else {"answer": <that text>, "score": <1 to 5, from
// the hash>}. For json_schema, an object with one
// placeholder value per property of the schema (enum: the first value;
// string: "llmtest <property name>"; integer: 3 and number: 0.5, moved
// into [minimum, maximum]; boolean: true; arrays: minItems items, at least
// one unless maxItems is 0), or the json_object answer when the schema is
// missing or not an object schema.
func DefaultReply(call ChatCall) (string, error) {
	last := call.LastUser()
	h := fnv.New32a()
	h.Write([]byte(last))
	sum := h.Sum32()
	words := strings.Fields(last)
	if len(words) > 12 {
		words = words[:12]
	}
	text := fmt.Sprintf("llmtest answer %08x: %s", sum, strings.Join(words, " "))
	if !call.JSONAsked() {
		return text, nil
	}
	var v any = map[string]any{"answer": text, "score": 1 + int(sum%5)}
	if obj, ok := TemplateReply(last, text); ok {
		v = obj
	}
	if call.ResponseFormat == "json_schema" && call.Schema != "" {
		var schema map[string]any
		if err := json.Unmarshal([]byte(call.Schema), &schema); err == nil {
			if obj, ok := placeholder(schema, schema, "value", 0).(map[string]any); ok {
				v = obj
			}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("llmtest: default reply for call %d: %w", call.N, err)
	}
	return string(b), nil
}

// placeholder builds a value that satisfies the common JSON Schema
// keywords of schema; root resolves local $refs.
func placeholder(schema, root map[string]any, name string, depth int) any {
	if depth > 16 {
		return nil
	}
	if ref, ok := schema["$ref"].(string); ok {
		for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
			if key, ok := strings.CutPrefix(ref, prefix); ok {
				defs, _ := root[strings.Trim(prefix[1:], "/")].(map[string]any)
				if sub, ok := defs[key].(map[string]any); ok {
					return placeholder(sub, root, name, depth+1)
				}
			}
		}
		if ref == "#" {
			return placeholder(root, root, name, depth+1)
		}
		return nil
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := schema[key].([]any); ok {
			for _, a := range alts {
				if sub, ok := a.(map[string]any); ok && !isNullSchema(sub) {
					return placeholder(sub, root, name, depth+1)
				}
			}
		}
	}
	typ := ""
	switch t := schema["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				typ = s
				break
			}
		}
	}
	if typ == "" {
		if _, ok := schema["properties"]; ok {
			typ = "object"
		} else if _, ok := schema["items"]; ok {
			typ = "array"
		}
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, p := range props {
			if sub, ok := p.(map[string]any); ok {
				obj[k] = placeholder(sub, root, k, depth+1)
			}
		}
		if req, ok := schema["required"].([]any); ok {
			for _, x := range req {
				if k, ok := x.(string); ok {
					if _, done := obj[k]; !done {
						obj[k] = "llmtest " + k
					}
				}
			}
		}
		return obj
	case "array":
		k := 1
		if v, ok := num(schema["minItems"]); ok && v > 1 {
			k = int(v)
		}
		if v, ok := num(schema["maxItems"]); ok && v < float64(k) {
			k = int(v)
		}
		k = min(k, 64)
		items, _ := schema["items"].(map[string]any)
		arr := make([]any, 0, k)
		for range k {
			if items == nil {
				arr = append(arr, "llmtest "+name)
			} else {
				arr = append(arr, placeholder(items, root, name, depth+1))
			}
		}
		return arr
	case "integer":
		return int64(clamp(3, schema, true))
	case "number":
		return clamp(0.5, schema, false)
	case "boolean":
		return true
	case "null":
		return nil
	}
	s := "llmtest " + name
	if v, ok := num(schema["minLength"]); ok && float64(len(s)) < v {
		s += strings.Repeat("x", int(v)-len(s))
	}
	if v, ok := num(schema["maxLength"]); ok && v >= 0 && float64(len(s)) > v {
		s = s[:int(v)]
	}
	return s
}

func isNullSchema(s map[string]any) bool {
	t, _ := s["type"].(string)
	return t == "null"
}

// clamp moves x into the schema's [minimum, maximum].
func clamp(x float64, schema map[string]any, integer bool) float64 {
	step := 0.25
	if integer {
		step = 1
	}
	if v, ok := num(schema["minimum"]); ok && x < v {
		x = v
	}
	if v, ok := num(schema["exclusiveMinimum"]); ok && x <= v {
		x = v + step
	}
	if v, ok := num(schema["maximum"]); ok && x > v {
		x = v
	}
	if v, ok := num(schema["exclusiveMaximum"]); ok && x >= v {
		x = v - step
	}
	if integer {
		x = float64(int64(x))
	}
	return x
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// badJSON turns a reply into text that is not JSON and holds no complete
// JSON object either, as a chatty model does.
func badJSON(reply string) string {
	reply = strings.ReplaceAll(reply, "}", "")
	reply = strings.ReplaceAll(reply, "\"", "")
	return "Sure! Here is the JSON you asked for:\n" + reply + ", and that is all"
}

var (
	// templateLineRE is a line holding a JSON template with at least one
	// placeholder in angle brackets.
	templateLineRE = regexp.MustCompile(`^\s*\{\s*".*<[^>]*>.*\}\s*$`)
	// templatePairRE is one "key": value of a template.
	templatePairRE = regexp.MustCompile(`"([^"]+)"\s*:\s*(\[[^\]]*\]|"[^"]*"|<[^>]*>)`)
	// labelsRE is a string placeholder listing labels in capitals:
	// "<CORRECT or WRONG>", "<YES, NO or UNSURE>".
	labelsRE = regexp.MustCompile(`^"<([A-Z][A-Z_]*(?:, [A-Z][A-Z_]*)* or [A-Z][A-Z_]*)>"$`)
	rangeRE  = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s+to\s+(-?\d+(?:\.\d+)?)`)
	numberRE = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	// scaleRE finds a grading scale in the prompt for an <integer>
	// placeholder: "Score from 0 to 5", "Use only the scores 0, 3 and 5".
	scaleRE = regexp.MustCompile(`(?i)(?:score[sd]?\s+from\s+(\d+)\s+to\s+(\d+))|(?:only the scores\s+([\d ,]+(?:and|or)\s+\d+))`)
)

// TemplateReply fills in the JSON template of a prompt: the last line of
// prompt that is an object whose values are placeholders, such as a judge's
//
//	{"score": <integer>, "reasoning": "<short justification>"}
//
// A number placeholder gets a value of its own scale, picked by a hash of
// the prompt and the key, so that the same prompt gets the same reply and
// different prompts spread over the scale: "<0, 1, 2 or 3>" one of those
// values, "<number from 0 to 1>" a number in [0, 1] with two decimals,
// "<integer>" one of the scale the prompt states ("Score from 0 to 5",
// "Use only the scores 0, 3 and 5"; 1 to 5 when it states none). A string
// placeholder listing labels in capitals ("<CORRECT or WRONG>") gets one of
// them, picked the same way; any other string placeholder gets text, a
// list an empty list. ok is false when the prompt
// has no such template.
func TemplateReply(prompt, text string) (map[string]any, bool) {
	lines := strings.Split(prompt, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !templateLineRE.MatchString(lines[i]) {
			continue
		}
		pairs := templatePairRE.FindAllStringSubmatch(lines[i], -1)
		if len(pairs) == 0 {
			continue
		}
		obj := map[string]any{}
		for _, p := range pairs {
			key, val := p[1], p[2]
			h := fnv.New32a()
			h.Write([]byte(key + "\x00" + prompt))
			sum := h.Sum32()
			switch val[0] {
			case '[':
				obj[key] = []any{}
			case '"':
				if m := labelsRE.FindStringSubmatch(val); m != nil {
					labels := strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' })
					labels = slices.DeleteFunc(labels, func(l string) bool { return l == "or" })
					obj[key] = labels[int(sum%uint32(len(labels)))]
				} else {
					obj[key] = text
				}
			default:
				obj[key] = placeholderNumber(val, prompt, sum)
			}
		}
		return obj, true
	}
	return nil, false
}

// placeholderNumber picks the value of a number placeholder (see
// TemplateReply).
func placeholderNumber(ph, prompt string, sum uint32) any {
	inner := strings.ToLower(strings.Trim(ph, "<>"))
	if m := rangeRE.FindStringSubmatch(inner); m != nil && !strings.Contains(inner, "integer") {
		lo, _ := strconv.ParseFloat(m[1], 64)
		hi, _ := strconv.ParseFloat(m[2], 64)
		return math.Round((lo+(hi-lo)*float64(sum%101)/100)*100) / 100
	}
	var choices []int
	if nums := numberRE.FindAllString(inner, -1); len(nums) >= 2 && !rangeRE.MatchString(inner) {
		for _, n := range nums {
			if x, err := strconv.Atoi(n); err == nil {
				choices = append(choices, x)
			}
		}
	} else if m := rangeRE.FindStringSubmatch(inner); m != nil {
		choices = intRange(m[1], m[2])
	} else if m := scaleRE.FindStringSubmatch(prompt); m != nil {
		if m[1] != "" {
			choices = intRange(m[1], m[2])
		} else {
			for _, n := range numberRE.FindAllString(m[3], -1) {
				x, _ := strconv.Atoi(n)
				choices = append(choices, x)
			}
		}
	}
	if len(choices) == 0 {
		choices = []int{1, 2, 3, 4, 5}
	}
	return choices[int(sum%uint32(len(choices)))]
}

func intRange(a, b string) []int {
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || hi < lo || hi-lo > 1000 {
		return nil
	}
	var out []int
	for x := lo; x <= hi; x++ {
		out = append(out, x)
	}
	return out
}
