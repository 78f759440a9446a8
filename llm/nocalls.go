package llm

import "context"

// ErrNoCalls is the Error kind of a call refused because its context says
// no model may be called (WithoutCalls): a cost estimate running offline
// components, which must not spend anything by accident.
const ErrNoCalls = "no_calls"

type noCallsKey struct{}

// WithoutCalls returns a context under which a Client refuses every Chat
// and Embed, cache hits included, with an *Error of kind ErrNoCalls and
// without touching the network, the cache or its usage.
func WithoutCalls(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCallsKey{}, true)
}

// CallsAllowed reports whether ctx lets a Client call models (see
// WithoutCalls).
func CallsAllowed(ctx context.Context) bool {
	no, _ := ctx.Value(noCallsKey{}).(bool)
	return !no
}

func refused(role, model string) error {
	return &Error{Kind: ErrNoCalls, Model: model, Message: "no model may be called here (a cost estimate): role " + role}
}
