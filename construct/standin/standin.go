// Package standin is a scripted stand-in for the model of the benchmark
// construction pipelines (package construct): it answers every prompt of
// both pipelines from the prompt's own input (the JSON block between
// "<<<INPUT" and "INPUT>>>") with rules, never with a model. Its answers
// are valid and faithful enough for every check to pass, so tests and
// offline demos build small benchmarks end to end against the in-repo fake
// OpenAI-compatible server (llm/llmtest); what it writes shows the
// pipeline, it is not a benchmark.
//
// Reply is an llmtest.Responder; Start runs a fake server answering with
// it (and with llmtest's latency and faults), Client a client on it.
//
// # Dependencies
//
// standin imports construct (to read the prompts' task and input) and the
// llm layer.
package standin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// Reply answers one chat call of a construction pipeline: the task on the
// prompt's first line ("TASK: knowme.anu v1") picks the rule, the input
// block is what it reads. A prompt it does not know is an error (the fake
// server answers it 500).
func Reply(call llmtest.ChatCall) (string, error) {
	user := call.LastUser()
	task := construct.TaskOf(user)
	name, _, _ := strings.Cut(task, " v")
	in, ok := construct.InputOf(user)
	if !ok {
		return "", fmt.Errorf("standin: the prompt of %q has no input block", task)
	}
	f, ok := rules[name]
	if !ok {
		return "", fmt.Errorf("standin: no rule for task %q", task)
	}
	out, err := f(in)
	if err != nil {
		return "", fmt.Errorf("standin: %s: %w", task, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// rules answer each prompt, by name; a revision prompt reads its source.
var rules = map[string]func(in json.RawMessage) (any, error){}

func register(name string, f func(in json.RawMessage) (any, error)) {
	rules[name] = f
	rules[name+".revise"] = func(in json.RawMessage) (any, error) {
		var r struct {
			Source json.RawMessage `json:"source"`
		}
		if err := json.Unmarshal(in, &r); err != nil {
			return nil, err
		}
		return f(r.Source)
	}
}

// pass is a checker's verdict that finds nothing wrong, counting the
// sentences of the source as its facts.
func pass(in json.RawMessage) (any, error) {
	n := strings.Count(string(in), ". ") + 1
	return construct.Verdict{Decision: "PASS", SourceFacts: n, OutputFacts: n, Missing: []string{}, Unsupported: []string{}, Feedback: ""}, nil
}

// Options are a stand-in server's options: llmtest's, with the stand-in
// as the responder (unless Responder is set: a test's own rules in front
// of it).
type Options = llmtest.Options

// Start runs a fake OpenAI-compatible server that answers with Reply
// (when opts.Responder is nil), on a free loopback port.
func Start(opts Options) (*llmtest.Server, error) {
	if opts.Responder == nil {
		opts.Responder = Reply
	}
	return llmtest.Start(opts)
}

// Client returns a model client whose every role is on the server at
// url (a Server's URL; model "standin"), with max_concurrency conc (0 =
// 8), one attempt per call and no call cache unless opts.Cache is set.
func Client(url string, conc int, opts llm.Options) (*llm.Client, error) {
	cfg := llm.SingleEndpoint(url, "standin")
	ep := cfg.Endpoints["default"]
	ep.MaxAttempts = 1
	if conc > 0 {
		ep.MaxConcurrency = conc
	}
	return llm.New(cfg, opts)
}
