package llm

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// go-openai returns an error without the response headers, so the
// Retry-After of a 429 or 503 is captured by the transport into a holder the
// attempt puts in the request's context.

type attemptKey struct{}

// attemptInfo is what the transport saw of one attempt's response.
type attemptInfo struct {
	status     int
	retryAfter time.Duration // 0 = none given
}

type captureTransport struct{ base http.RoundTripper }

func (t captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok {
			info.status = resp.StatusCode
			info.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			// OpenAI also sends the wait in milliseconds; it is more precise.
			if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
				info.retryAfter = time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	return resp, err
}

func withAttemptInfo(ctx context.Context) (context.Context, *attemptInfo) {
	info := &attemptInfo{}
	return context.WithValue(ctx, attemptKey{}, info), info
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date
// (RFC 9110, 10.2.3). It returns 0 when the value is absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
