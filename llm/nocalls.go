package llm

import (
	"context"
	"os"
	"sort"
	"sync"
)

// ErrNoCalls is the Error kind of a call refused because no model may be
// called: its context says so (WithoutCalls: a cost estimate running
// offline components, which must not spend anything by accident), or the
// process is a dry run (DryRun).
const ErrNoCalls = "no_calls"

type noCallsKey struct{}

// WithoutCalls returns a context under which a Client refuses every Chat
// and Embed, cache hits included, with an *Error of kind ErrNoCalls and
// without touching the network, the cache or its usage.
func WithoutCalls(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCallsKey{}, true)
}

// CallsAllowed reports whether ctx lets a Client call models (see
// WithoutCalls). A dry run (DryRun) refuses calls whatever ctx says.
func CallsAllowed(ctx context.Context) bool {
	no, _ := ctx.Value(noCallsKey{}).(bool)
	return !no
}

// DryRunEnv is the environment variable that makes a process a dry run
// when it is "1": `memlab run -dry-run` sets it, and the processes it
// starts (notebook workers) inherit it.
const DryRunEnv = "MEMLAB_DRY_RUN"

// DryRun reports whether this process is a dry run (DryRunEnv=1). Then
// every Client refuses every Chat and Embed as under WithoutCalls (cache
// hits included: a dry run says what a run would spend, and the cache may
// be gone by then), records what was refused (Refused), and Default makes
// no endpoint check: nothing at all is sent.
func DryRun() bool { return os.Getenv(DryRunEnv) == "1" }

// RefusedCalls are the model calls of one role and model that a dry run
// refused outside the cost estimates (WithoutCalls refusals are not
// counted: the estimates plan those calls themselves).
type RefusedCalls struct {
	Role, Endpoint, Model string
	// Calls is the number of Chat and Embed calls refused, EmbedCalls the
	// Embed calls among them and Texts the texts those would have embedded.
	Calls, EmbedCalls, Texts int
	// PromptTokens estimates their prompts (EstimateTokens of each message
	// or input).
	PromptTokens int
	// MaxCompletionTokens adds up the chat requests' max_tokens;
	// CompletionUnbounded is true when one of them left it to the server.
	MaxCompletionTokens int
	CompletionUnbounded bool
}

var refusedBook struct {
	mu   sync.Mutex
	rows map[[3]string]*RefusedCalls
}

// Refused returns the calls refused in this dry run so far (since
// ResetRefused), sorted by role, endpoint and model.
func Refused() []RefusedCalls {
	refusedBook.mu.Lock()
	defer refusedBook.mu.Unlock()
	out := make([]RefusedCalls, 0, len(refusedBook.rows))
	for _, r := range refusedBook.rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		if a.Endpoint != b.Endpoint {
			return a.Endpoint < b.Endpoint
		}
		return a.Model < b.Model
	})
	return out
}

// ResetRefused forgets the refused calls counted so far (a new dry run in
// the same process).
func ResetRefused() {
	refusedBook.mu.Lock()
	defer refusedBook.mu.Unlock()
	refusedBook.rows = nil
}

func recordRefused(add RefusedCalls) {
	refusedBook.mu.Lock()
	defer refusedBook.mu.Unlock()
	if refusedBook.rows == nil {
		refusedBook.rows = map[[3]string]*RefusedCalls{}
	}
	k := [3]string{add.Role, add.Endpoint, add.Model}
	r := refusedBook.rows[k]
	if r == nil {
		r = &RefusedCalls{Role: add.Role, Endpoint: add.Endpoint, Model: add.Model}
		refusedBook.rows[k] = r
	}
	r.Calls += add.Calls
	r.EmbedCalls += add.EmbedCalls
	r.Texts += add.Texts
	r.PromptTokens += add.PromptTokens
	r.MaxCompletionTokens += add.MaxCompletionTokens
	r.CompletionUnbounded = r.CompletionUnbounded || add.CompletionUnbounded
}

func refused(role, model string) error {
	return &Error{Kind: ErrNoCalls, Model: model, Message: "no model may be called here (a cost estimate): role " + role}
}

// refuseDryRun refuses a call of a dry run and counts it. role and model
// are the request's ("" = the role's defaults).
func (c *Client) refuseDryRun(role, model, defaultRole string, r RefusedCalls) error {
	if role == "" {
		role = defaultRole
	}
	r.Role, r.Model = role, model
	if ep, m, err := c.cfg.Role(role); err == nil {
		r.Endpoint = ep.Name
		if model == "" {
			r.Model = m
		}
	}
	recordRefused(r)
	return &Error{Kind: ErrNoCalls, Endpoint: r.Endpoint, Model: r.Model,
		Message: "a dry run calls no model (" + DryRunEnv + "=1): role " + role}
}
