package llmtest

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// OptionDoc describes one command-line flag of the fake server.
type OptionDoc struct {
	Flag  string // flag name without dashes, e.g. "latency"
	Field string // the Options field it sets, e.g. "Latency" or "Faults.Rate429"
	Help  string // one line for help text
}

// OptionDocs lists the flags RegisterFlags defines, in help order. The
// listen address is not among them: Serve takes it as an argument.
var OptionDocs = []OptionDoc{
	{"api-key", "APIKey", "require this bearer token on every request (empty: no auth)"},
	{"models", "Models", "comma-separated model names to accept; others get 404 model_not_found (empty: any)"},
	{"dims", "EmbeddingDims", "embedding size when a request sets no \"dimensions\" (0: 64)"},
	{"latency", "Latency", "fixed wait before answering each model call, e.g. 50ms"},
	{"jitter", "Jitter", "extra wait drawn uniformly from [0, jitter) per call"},
	{"seed", "Seed", "seed of the latency jitter"},
	{"concurrency", "Concurrency", "model calls answered at once; more wait their turn (0: no limit)"},
	{"forget", "Forget", "keep no call in memory (a long run); the counts are kept"},
	{"stats", "StatsPath", "serve the counts as JSON on GET at this path, e.g. /stats (empty: not served)"},
	{"reply", "Replies", "scripted chat reply, consumed in order (repeatable)"},
	{"rule", "Rules", "SUBSTRING=>REPLY: answer REPLY when the last user message contains SUBSTRING (repeatable)"},
	{"rate-429", "Faults.Rate429", "probability of a 429 rate limit with Retry-After"},
	{"rate-500", "Faults.Rate500", "probability of a 500 server error"},
	{"rate-503", "Faults.Rate503", "probability of a 503 overloaded error"},
	{"rate-stall", "Faults.RateStall", "probability of holding the connection until the client gives up"},
	{"rate-truncate", "Faults.RateTruncate", "probability of a 200 body cut in half on a closed connection"},
	{"rate-bad-json", "Faults.RateBadJSON", "probability of non-JSON content when response_format asks for JSON"},
	{"rate-empty", "Faults.RateEmpty", "probability of an empty choices (or embeddings data) list"},
	{"rate-401", "Faults.Rate401", "probability of a 401 invalid_api_key on a model call (the model list stays open)"},
	{"retry-after", "Faults.RetryAfter", "wait a 429 asks for in Retry-After (seconds, rounded up) and retry-after-ms"},
	{"retry-after-date", "Faults.RetryAfterDate", "send Retry-After as an HTTP date instead of seconds"},
	{"fault-seed", "Faults.Seed", "seed of the random fault plan"},
	{"fault", "Faults.Script", "N:KIND: force fault KIND (rate_limit, server_error, unavailable, stall, truncate, bad_json, empty, unauthorized) on call N (repeatable)"},
}

// RegisterFlags defines the flags of OptionDocs on fs, each setting its
// field of o when parsed. It panics if fs already defines one of them.
func RegisterFlags(fs *flag.FlagSet, o *Options) {
	help := map[string]string{}
	for _, d := range OptionDocs {
		help[d.Flag] = d.Help
	}
	fs.StringVar(&o.APIKey, "api-key", o.APIKey, help["api-key"])
	fs.Func("models", help["models"], func(v string) error {
		o.Models = nil
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				o.Models = append(o.Models, m)
			}
		}
		return nil
	})
	fs.IntVar(&o.EmbeddingDims, "dims", o.EmbeddingDims, help["dims"])
	fs.DurationVar(&o.Latency, "latency", o.Latency, help["latency"])
	fs.DurationVar(&o.Jitter, "jitter", o.Jitter, help["jitter"])
	fs.Uint64Var(&o.Seed, "seed", o.Seed, help["seed"])
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, help["concurrency"])
	fs.BoolVar(&o.Forget, "forget", o.Forget, help["forget"])
	fs.StringVar(&o.StatsPath, "stats", o.StatsPath, help["stats"])
	fs.Func("reply", help["reply"], func(v string) error {
		o.Replies = append(o.Replies, v)
		return nil
	})
	fs.Func("rule", help["rule"], func(v string) error {
		contains, reply, ok := strings.Cut(v, "=>")
		if !ok {
			return fmt.Errorf("llmtest: flag -rule %q: want SUBSTRING=>REPLY", v)
		}
		o.Rules = append(o.Rules, Rule{Contains: contains, Reply: reply})
		return nil
	})
	f := &o.Faults
	fs.Float64Var(&f.Rate429, "rate-429", f.Rate429, help["rate-429"])
	fs.Float64Var(&f.Rate500, "rate-500", f.Rate500, help["rate-500"])
	fs.Float64Var(&f.Rate503, "rate-503", f.Rate503, help["rate-503"])
	fs.Float64Var(&f.RateStall, "rate-stall", f.RateStall, help["rate-stall"])
	fs.Float64Var(&f.RateTruncate, "rate-truncate", f.RateTruncate, help["rate-truncate"])
	fs.Float64Var(&f.RateBadJSON, "rate-bad-json", f.RateBadJSON, help["rate-bad-json"])
	fs.Float64Var(&f.RateEmpty, "rate-empty", f.RateEmpty, help["rate-empty"])
	fs.Float64Var(&f.Rate401, "rate-401", f.Rate401, help["rate-401"])
	fs.DurationVar(&f.RetryAfter, "retry-after", f.RetryAfter, help["retry-after"])
	fs.BoolVar(&f.RetryAfterDate, "retry-after-date", f.RetryAfterDate, help["retry-after-date"])
	fs.Uint64Var(&f.Seed, "fault-seed", f.Seed, help["fault-seed"])
	fs.Func("fault", help["fault"], func(v string) error {
		ft, err := ParseFault(v)
		if err != nil {
			return err
		}
		f.Script = append(f.Script, ft)
		return nil
	})
}

// ParseFault reads a scripted fault written "N:KIND", e.g. "3:rate_limit".
func ParseFault(s string) (Fault, error) {
	num, kind, ok := strings.Cut(s, ":")
	if !ok {
		return Fault{}, fmt.Errorf("llmtest: parse fault %q: want N:KIND", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 1 {
		return Fault{}, fmt.Errorf("llmtest: parse fault %q: call number %q: want an integer >= 1", s, num)
	}
	kind = strings.TrimSpace(kind)
	if !ValidFault(kind) {
		return Fault{}, fmt.Errorf("llmtest: parse fault %q: kind %q: want one of %s", s, kind, strings.Join(faultKinds, ", "))
	}
	return Fault{Call: n, Kind: kind}, nil
}
