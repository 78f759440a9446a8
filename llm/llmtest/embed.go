package llmtest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

type wireEmbedRequest struct {
	Input          json.RawMessage `json:"input"`
	Model          *string         `json:"model"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

// parseInput reads "input": a string, a list of strings, a list of token
// ids, or a list of lists of token ids. Token ids become words "tok<id>".
func parseInput(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("'input' is a required property")
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var tokens []int64
	if err := json.Unmarshal(raw, &tokens); err == nil {
		return []string{tokenText(tokens)}, nil
	}
	var batches [][]int64
	if err := json.Unmarshal(raw, &batches); err == nil {
		out := make([]string, len(batches))
		for i, b := range batches {
			out[i] = tokenText(b)
		}
		return out, nil
	}
	return nil, errors.New("invalid 'input': want a string, a list of strings, or token ids")
}

func tokenText(tokens []int64) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = fmt.Sprintf("tok%d", t)
	}
	return strings.Join(parts, " ")
}

type embedResponse struct {
	Object string      `json:"object"`
	Data   []embedding `json:"data"`
	Model  string      `json:"model"`
	Usage  embedUsage  `json:"usage"`
}

type embedding struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or base64 of little-endian float32s
}

type embedUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// handleEmbeddings serves POST /v1/embeddings and returns the outcome.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request, n int) string {
	if !s.checkAuth(w, r) {
		return s.count(OutcomeUnauthorized)
	}
	body, ok := readBody(w, r)
	if !ok {
		return s.count(OutcomeBadRequest)
	}
	call := EmbedCall{N: n, Header: redactedHeader(r.Header), Body: string(body)}
	var req wireEmbedRequest
	jsonErr := json.Unmarshal(body, &req)
	var inputs []string
	var inputErr error
	if jsonErr == nil {
		if req.Model != nil {
			call.Model = *req.Model
		}
		call.EncodingFormat = req.EncodingFormat
		if req.Dimensions != nil {
			call.Dimensions = *req.Dimensions
		}
		inputs, inputErr = parseInput(req.Input)
		call.Inputs = inputs
	}
	rec := &call
	s.mu.Lock()
	if !s.opts.Forget {
		s.embeds = append(s.embeds, rec)
	}
	s.mu.Unlock()
	if jsonErr != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			fmt.Sprintf("We could not parse the JSON body of your request: %v", jsonErr))
		return s.finishEmbed(rec, OutcomeBadRequest)
	}
	bad := ""
	switch {
	case inputErr != nil:
		bad = inputErr.Error()
	case call.Model == "":
		bad = "you must provide a model parameter"
	case len(inputs) == 0:
		bad = "Invalid 'input': empty array. Expected an array with minimum length 1."
	case req.Dimensions != nil && (call.Dimensions < 1 || call.Dimensions > maxEmbeddingDims):
		bad = fmt.Sprintf("Invalid 'dimensions': %d. Expected a value between 1 and %d.", call.Dimensions, maxEmbeddingDims)
	case call.EncodingFormat != "" && call.EncodingFormat != "float" && call.EncodingFormat != "base64":
		bad = fmt.Sprintf("Invalid 'encoding_format': %q. Expected 'float' or 'base64'.", call.EncodingFormat)
	}
	if bad != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", bad)
		return s.finishEmbed(rec, OutcomeBadRequest)
	}
	if !s.checkModel(w, call.Model) {
		return s.finishEmbed(rec, OutcomeNotFound)
	}

	ft := s.faultFor(n, false, false)
	if ft.Kind == FaultStall {
		s.finishEmbed(rec, FaultStall)
		s.stall(r.Context())
		return FaultStall
	}
	if !s.wait(r.Context(), n) {
		return s.finishEmbed(rec, OutcomeCanceled)
	}
	outcome := OutcomeOK
	if ft.Kind != "" {
		outcome = ft.Kind
	}
	s.finishEmbed(rec, outcome)
	if s.writeFaultStatus(w, ft) {
		return outcome
	}

	dims := call.Dimensions
	if dims == 0 {
		dims = s.opts.EmbeddingDims
	}
	if dims == 0 {
		dims = DefaultEmbeddingDims
	}
	resp := embedResponse{Object: "list", Data: []embedding{}, Model: call.Model}
	for i, text := range inputs {
		resp.Usage.PromptTokens += CountTokens(text)
		if ft.Kind == FaultEmpty {
			continue
		}
		vec := Vector(text, dims)
		e := embedding{Object: "embedding", Index: i, Embedding: vec}
		if call.EncodingFormat == "base64" {
			e.Embedding = encodeBase64(vec)
		}
		resp.Data = append(resp.Data, e)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	if ft.Kind == FaultTruncate {
		b, _ := json.Marshal(resp)
		writeTruncated(w, b)
		return outcome
	}
	writeJSON(w, http.StatusOK, resp)
	return outcome
}

// finishEmbed sets a recorded call's outcome and counts it.
func (s *Server) finishEmbed(rec *EmbedCall, outcome string) string {
	s.mu.Lock()
	rec.Outcome = outcome
	s.byOutcome[outcome]++
	s.mu.Unlock()
	return outcome
}

// encodeBase64 encodes a vector as OpenAI's base64 format: little-endian
// float32s.
func encodeBase64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Vector is the fake embedding of text: the sum of one pseudo-random
// vector with coordinates in [-1, 1) per word (lowercase runs of letters
// and digits, repeats counted), scaled to unit length. A text without words
// gets the vector of a hash of the whole text. Texts that share words have
// a positive cosine; the vector for fewer dims is the renormalized prefix of
// the vector for more, as with OpenAI's "dimensions". dims <= 0 means
// DefaultEmbeddingDims.
func Vector(text string, dims int) []float32 {
	if dims <= 0 {
		dims = DefaultEmbeddingDims
	}
	acc := make([]float64, dims)
	words := 0
	for w := range strings.FieldsFuncSeq(strings.ToLower(text), notWordRune) {
		addWordVector(acc, hash64(w))
		words++
	}
	if words == 0 {
		addWordVector(acc, hash64("\x00"+text))
	}
	norm := 0.0
	for _, x := range acc {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dims)
	if norm == 0 {
		out[0] = 1
		return out
	}
	for i, x := range acc {
		out[i] = float32(x / norm)
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// addWordVector adds the word vector seeded by h: splitmix64 outputs
// mapped to [-1, 1).
func addWordVector(acc []float64, h uint64) {
	state := h
	for i := range acc {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		acc[i] += float64(int64(z)) / (1 << 63)
	}
}
