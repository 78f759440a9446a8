// Package llmtest is a fake OpenAI-compatible server for tests, benchmarks
// and offline demos of memlab's model client.
//
// It is a real HTTP server on a loopback listener (127.0.0.1:0 by default)
// that speaks the wire format go-openai sends and parses:
//
//	POST /v1/chat/completions   non-streaming chat ("stream": true gets a 400)
//	POST /v1/embeddings         input as a string, a list of strings or token ids;
//	                            "dimensions"; encoding_format float or base64
//	GET  /v1/models             the accepted models (Options.Models)
//	GET  /v1/models/{id}        one model, 404 model_not_found when unknown
//
// Errors have OpenAI's shape, {"error":{"message","type","param","code"}},
// with the matching HTTP status: 400 bad request, 401 missing or wrong key
// (Options.APIKey), 404 unknown model (when Options.Models is not empty) or
// path, 405 wrong method, 429/500/503/401 faults.
//
// # Answers
//
// A chat call that is not hit by a fault is answered by the first of:
// the queue of scripted replies (Options.Replies, Server.Enqueue), consumed
// in order; the first Rule whose Contains is in the last user message; the
// Options.Responder; DefaultReply. DefaultReply is deterministic: free text
// derived from the last user message, or, when response_format asks for
// JSON, a JSON object: for json_object, the object of the prompt's JSON
// template when it ends as a judge prompt does ({"score": <integer>, ...}:
// each score drawn from its scale, TemplateReply), else {"answer": ...,
// "score": ...}; for json_schema, one placeholder value per schema
// property. The reply is cut
// at the first stop sequence and after max_tokens words (finish_reason
// "length"). Token counts are words (CountTokens). Embeddings are
// deterministic unit vectors (Vector): the normalized sum of one
// pseudo-random vector per word, so texts that share words are similar.
//
// # Latency and faults
//
// Every model call waits Options.Latency plus a jitter drawn uniformly from
// [0, Options.Jitter), then may get a fault: 429 with Retry-After, 500, 503,
// a stall that holds the connection until the client goes away, a body cut
// in half on a closed connection, message content that is not JSON, an
// empty choices (or data) list, or a 401 on the call alone (the model list
// stays open, so a client's endpoint check passes). Faults come from Faults.Script (by call
// number) or from a seeded random plan (Faults.Rate*). Random draws depend
// only on the seed and the call number, never on goroutine timing, so a
// plan replays identically. Waits follow the request's context: a client
// that times out or cancels frees its handler at once.
//
// Options.Concurrency bounds the model calls answered at once, as a
// server's batch size does: a call beyond it waits its turn before its
// latency starts.
//
// # Recording
//
// The server counts requests by path and outcome, tracks the maximum number
// of requests in flight, and records each chat call (ChatCall) and embedding
// call (EmbedCall) as received, with headers minus the Authorization value,
// so tests can assert what the client sent (Options.Forget keeps none, for
// long runs). It counts the model calls by client host and the calls whose
// body an earlier call had (sent again), and serves the counts as JSON at
// Options.StatsPath, for scripts that drive a server in another process.
// Reset starts a new count.
//
// The zero Options give an open server with no latency and no faults. All
// methods are safe for concurrent use. The package never writes to
// os.Stdout or os.Stderr; Options.Log receives one line per request when
// set.
//
// # Dependencies
//
// llmtest is part of the llm layer: it imports nothing of memlab above llm
// (internal/archtest enforces it).
package llmtest
