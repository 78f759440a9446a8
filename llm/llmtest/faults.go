package llmtest

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Fault kinds; each is also the outcome counted in Stats.ByOutcome.
const (
	// FaultRateLimit answers 429 rate_limit_exceeded with a Retry-After
	// header (and retry-after-ms).
	FaultRateLimit = "rate_limit"
	// FaultServerError answers 500 server_error.
	FaultServerError = "server_error"
	// FaultUnavailable answers 503 (overloaded).
	FaultUnavailable = "unavailable"
	// FaultStall holds the connection without answering until the client
	// goes away or the server closes.
	FaultStall = "stall"
	// FaultTruncate sends a 200 whose body stops halfway through the JSON,
	// then closes the connection.
	FaultTruncate = "truncate"
	// FaultBadJSON answers a chat call with message content that is not
	// JSON. By rate it hits only calls whose response_format asks for JSON;
	// by script it hits any chat call. Embedding calls ignore it.
	FaultBadJSON = "bad_json"
	// FaultEmpty answers 200 with an empty choices list (chat) or an empty
	// data list (embeddings).
	FaultEmpty = "empty"
	// FaultUnauthorized answers a model call 401 invalid_api_key, as a
	// server does whose model list is open but whose calls need a key the
	// client does not have (the endpoint check passes, every call fails).
	FaultUnauthorized = "unauthorized"
)

// faultKinds lists the kinds in the order the random plan stacks their
// rates on [0, 1) (a new kind goes last, so that existing plans replay).
var faultKinds = []string{FaultRateLimit, FaultServerError, FaultUnavailable, FaultStall, FaultTruncate, FaultBadJSON, FaultEmpty, FaultUnauthorized}

// Faults is the fault plan: a script by call number, then seeded random
// rates. A call that gets a fault consumes no scripted reply and does not
// call the Responder, so a retry gets the answer the failed call would
// have had.
type Faults struct {
	// Rates are the probabilities, each in [0, 1] and summing to at most 1,
	// that a model call gets each fault.
	Rate429      float64 // FaultRateLimit
	Rate500      float64 // FaultServerError
	Rate503      float64 // FaultUnavailable
	RateStall    float64 // FaultStall
	RateTruncate float64 // FaultTruncate
	RateBadJSON  float64 // FaultBadJSON (chat calls that ask for JSON only)
	RateEmpty    float64 // FaultEmpty
	Rate401      float64 // FaultUnauthorized
	// RetryAfter is the wait a 429 asks for: Retry-After in whole seconds
	// (rounded up) and retry-after-ms in milliseconds; 0 sends "0".
	RetryAfter time.Duration
	// RetryAfterDate sends Retry-After as an HTTP date (now + RetryAfter,
	// rounded up to the second) instead of seconds, and no retry-after-ms.
	RetryAfterDate bool
	// NoRetryAfter sends 429s without any Retry-After header.
	NoRetryAfter bool
	// Seed seeds the random plan; the draw for call n depends only on Seed
	// and n.
	Seed uint64
	// Script forces faults on given call numbers, before the random plan.
	Script []Fault
}

// Fault forces one fault on one call.
type Fault struct {
	// Call is the call number it hits (model calls, chat and embeddings
	// together, numbered from 1 in order of arrival).
	Call int
	// Kind is one of the Fault* kinds.
	Kind string
	// RetryAfter overrides Faults.RetryAfter for a 429 when not 0.
	RetryAfter time.Duration
	// RetryAfterDate sends this 429's Retry-After as an HTTP date.
	RetryAfterDate bool
}

// ValidFault reports whether kind is one of the Fault* kinds.
func ValidFault(kind string) bool {
	for _, k := range faultKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// validate checks the options and returns the fault script by call number.
func (o *Options) validate() (map[int]Fault, error) {
	if o.Latency < 0 {
		return nil, fmt.Errorf("options: Latency = %v: want >= 0", o.Latency)
	}
	if o.Jitter < 0 {
		return nil, fmt.Errorf("options: Jitter = %v: want >= 0", o.Jitter)
	}
	if o.Concurrency < 0 {
		return nil, fmt.Errorf("options: Concurrency = %d: want >= 0", o.Concurrency)
	}
	if o.EmbeddingDims < 0 || o.EmbeddingDims > maxEmbeddingDims {
		return nil, fmt.Errorf("options: EmbeddingDims = %d: want 0 to %d", o.EmbeddingDims, maxEmbeddingDims)
	}
	f := &o.Faults
	sum := 0.0
	for i, r := range f.rates() {
		if math.IsNaN(r) || r < 0 || r > 1 {
			return nil, fmt.Errorf("options: Faults.%s = %v: want a rate in [0, 1]", rateNames[i], r)
		}
		sum += r
	}
	if sum > 1+1e-9 {
		return nil, fmt.Errorf("options: Faults rates sum to %v: want at most 1", sum)
	}
	if f.RetryAfter < 0 {
		return nil, fmt.Errorf("options: Faults.RetryAfter = %v: want >= 0", f.RetryAfter)
	}
	script := make(map[int]Fault, len(f.Script))
	for i, ft := range f.Script {
		if ft.Call < 1 {
			return nil, fmt.Errorf("options: Faults.Script[%d].Call = %d: want a call number >= 1", i, ft.Call)
		}
		if !ValidFault(ft.Kind) {
			return nil, fmt.Errorf("options: Faults.Script[%d].Kind = %q: want one of %v", i, ft.Kind, faultKinds)
		}
		if ft.RetryAfter < 0 {
			return nil, fmt.Errorf("options: Faults.Script[%d].RetryAfter = %v: want >= 0", i, ft.RetryAfter)
		}
		if _, dup := script[ft.Call]; dup {
			return nil, fmt.Errorf("options: Faults.Script[%d]: call %d already has a fault", i, ft.Call)
		}
		script[ft.Call] = ft
	}
	return script, nil
}

var rateNames = []string{"Rate429", "Rate500", "Rate503", "RateStall", "RateTruncate", "RateBadJSON", "RateEmpty", "Rate401"}

// rates returns the rates in faultKinds order.
func (f *Faults) rates() []float64 {
	return []float64{f.Rate429, f.Rate500, f.Rate503, f.RateStall, f.RateTruncate, f.RateBadJSON, f.RateEmpty, f.Rate401}
}

// Stream constants keep the fault and jitter draws independent when both
// seeds are equal.
const (
	faultStream  = 0x6c6c6d746573746d // "llmtestm"
	jitterStream = 0x6a6974746572ab01
)

// faultFor returns the fault for call n ("" for none). chat tells a chat
// call from an embedding call; jsonAsked whether the chat call asked for
// JSON.
func (s *Server) faultFor(n int, chat, jsonAsked bool) Fault {
	if ft, ok := s.script[n]; ok {
		if ft.Kind == FaultBadJSON && !chat {
			return Fault{}
		}
		return ft
	}
	f := &s.opts.Faults
	rates := f.rates()
	total := 0.0
	for _, r := range rates {
		total += r
	}
	if total == 0 {
		return Fault{}
	}
	u := rand.New(rand.NewPCG(f.Seed^faultStream, uint64(n))).Float64()
	acc := 0.0
	for i, r := range rates {
		acc += r
		if u < acc {
			kind := faultKinds[i]
			if kind == FaultBadJSON && (!chat || !jsonAsked) {
				return Fault{}
			}
			return Fault{Call: n, Kind: kind}
		}
	}
	return Fault{}
}

// jitter draws call n's extra latency in [0, max).
func jitter(seed uint64, n int, max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	r := rand.New(rand.NewPCG(seed^jitterStream, uint64(n)))
	return time.Duration(r.Int64N(int64(max)))
}

// writeFaultStatus answers the HTTP-status faults (429, 500, 503, 401)
// and returns false for the other kinds.
func (s *Server) writeFaultStatus(w http.ResponseWriter, ft Fault) bool {
	switch ft.Kind {
	case FaultRateLimit:
		f := &s.opts.Faults
		d := f.RetryAfter
		if ft.RetryAfter > 0 {
			d = ft.RetryAfter
		}
		if !f.NoRetryAfter {
			if f.RetryAfterDate || ft.RetryAfterDate {
				w.Header().Set("Retry-After", RetryAfterDate(time.Now(), d))
			} else {
				w.Header().Set("Retry-After", strconv.FormatInt(ceilSeconds(d), 10))
				w.Header().Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
			}
		}
		writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
			fmt.Sprintf("Rate limit reached (llmtest fault on call %d). Please try again in %v.", ft.Call, d))
		return true
	case FaultServerError:
		writeError(w, http.StatusInternalServerError, "server_error", "",
			fmt.Sprintf("The server had an error while processing your request (llmtest fault on call %d).", ft.Call))
		return true
	case FaultUnavailable:
		writeError(w, http.StatusServiceUnavailable, "server_error", "",
			fmt.Sprintf("The engine is currently overloaded, please try again later (llmtest fault on call %d).", ft.Call))
		return true
	case FaultUnauthorized:
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			fmt.Sprintf("Incorrect API key provided (llmtest fault on call %d).", ft.Call))
		return true
	}
	return false
}

// ceilSeconds rounds d up to whole seconds.
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// RetryAfterDate formats the HTTP-date form of Retry-After for a wait of d
// from now, rounded up to the whole second.
func RetryAfterDate(now time.Time, d time.Duration) string {
	t := now.Add(d)
	if t2 := t.Truncate(time.Second); !t2.Equal(t) {
		t = t2.Add(time.Second)
	}
	return t.UTC().Format(http.TimeFormat)
}

// stall holds the request until the client goes away or the server closes.
func (s *Server) stall(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
	}
}

// writeTruncated sends a 200 header announcing all of body, half of it,
// and closes the connection.
func writeTruncated(w http.ResponseWriter, body []byte) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// No hijacking (e.g. HTTP/2): abort the response mid-body instead.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	bw := bufio.NewWriter(conn)
	if buf != nil {
		bw = buf.Writer
	}
	fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body))
	_, _ = bw.Write(body[:len(body)/2])
	_ = bw.Flush()
}
