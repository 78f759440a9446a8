package construct

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memlab/memlab/llm"
)

// Pipeline is a benchmark construction pipeline: a DAG of named steps.
// Steps are listed in an order that respects their dependencies (After
// names only steps listed before it); the items of a step are made by the
// pipeline's Go code, which calls Build.Do once per item with the refs of
// the items it was made from, so items of different steps overlap as far
// as their own dependencies allow.
type Pipeline struct {
	Name    string
	Version int
	Steps   []*Step
}

// Step is one named step: a model role, a versioned prompt, typed JSON
// input and output, and an optional check (Verify-and-Revise).
type Step struct {
	// Name identifies the step ("knowme.anu"); Stage is its stage in the
	// paper ("B"), Title what it makes, for tables.
	Name, Stage, Title string
	// Version is the step's code version: bump it when its code check or
	// the way its output is read changes (a prompt's changes are seen by
	// its hash).
	Version int
	// After names the steps whose items this step's items are made from.
	After []string
	// Role and Model choose the model (llm.RoleBackbone, ...; Model ""
	// = the role's model).
	Role, Model string
	// Prompt makes the first output from the input; Revise, when set,
	// makes the next from {source, previous, feedback} after a failed
	// check. Without Revise a failed check rejects the item at once.
	Prompt Prompt
	Revise *Prompt
	// Check verifies each output; nil accepts the first output that
	// decodes.
	Check *Check
	// Temperature and MaxTokens are sent with every call of the step
	// (MaxTokens 0 = the server's default).
	Temperature float64
	MaxTokens   int
	// Stub returns a placeholder output of the shape and typical size the
	// step makes from in: a dry run uses it instead of a model's reply, so
	// that the steps after it are planned from it.
	Stub func(in any) any
}

// Check is the verification of a step's output. Code, when set, checks
// the output without a model (indices in range, verbatim spans present);
// a model check (Prompt) then has the checker model compare the output
// with its source and list the source's facts the output misses and the
// output's facts the source does not support: the item passes when the
// checker says PASS and
//
//	delta = Alpha * missing/source_facts + Beta * unsupported/output_facts
//
// is at most Epsilon (KnowMe-Bench's verify-and-revise, appendix A). A
// failed check (either kind) sends its feedback to the step's Revise
// prompt, at most MaxRevisions times; then the item is rejected.
type Check struct {
	Code func(in, out any) []string
	// Prompt is the checker's prompt over {source, output}; nil = code
	// check only.
	Prompt *Prompt
	// Source picks what the output is checked against (nil = the input).
	Source func(in any) any
	// Role and Model choose the checker (Role "" = llm.RoleJudge).
	Role, Model string
	// Epsilon is the acceptance threshold on delta; Alpha and Beta weigh
	// omission and hallucination (0 = the paper's 0.4 and 0.6).
	Epsilon, Alpha, Beta float64
	// MaxRevisions is k_max (0 = 3).
	MaxRevisions int
	// Stub is the checker's reply in a dry run (nil = a PASS with 12
	// facts on each side).
	Stub func(in, out any) Verdict
}

// DefaultMaxRevisions is k_max when a check sets none (KnowMe-Bench's 3).
const DefaultMaxRevisions = 3

func (c *Check) maxRevisions() int {
	if c == nil {
		return 0
	}
	if c.MaxRevisions > 0 {
		return c.MaxRevisions
	}
	return DefaultMaxRevisions
}

func (c *Check) weights() (alpha, beta float64) {
	alpha, beta = c.Alpha, c.Beta
	if alpha == 0 && beta == 0 {
		alpha, beta = 0.4, 0.6
	}
	return alpha, beta
}

func (c *Check) role() string {
	if c.Role == "" {
		return llm.RoleJudge
	}
	return c.Role
}

func (c *Check) source(in any) any {
	if c.Source == nil {
		return in
	}
	return c.Source(in)
}

// Verdict is a checker model's reply: its decision, how many atomic facts
// (entities, times, actions, places) it found in the source and in the
// output, the source facts the output misses and the output facts the
// source does not support, and its feedback to the generator. Omission,
// Hallucination and Delta are computed from them (Score).
type Verdict struct {
	Decision    string   `json:"decision"`
	SourceFacts int      `json:"source_facts"`
	OutputFacts int      `json:"output_facts"`
	Missing     []string `json:"missing"`
	Unsupported []string `json:"unsupported"`
	Feedback    string   `json:"feedback"`
	// Problems are the code check's findings (no model).
	Problems      []string `json:"problems,omitempty"`
	Omission      float64  `json:"omission"`
	Hallucination float64  `json:"hallucination"`
	Delta         float64  `json:"delta"`
	Pass          bool     `json:"pass"`
}

// Score computes the omission and hallucination rates, delta and the
// decision of v under c's weights and threshold: pass when the checker
// said PASS and delta <= Epsilon (a checker's REJECT rejects whatever the
// counts).
func (c *Check) Score(v Verdict) Verdict {
	alpha, beta := c.weights()
	rate := func(n, of int) float64 {
		if n == 0 {
			return 0
		}
		if of < n {
			of = n // more listed than counted: every fact of that side
		}
		return float64(n) / float64(of)
	}
	v.Omission = rate(len(v.Missing), v.SourceFacts)
	v.Hallucination = rate(len(v.Unsupported), v.OutputFacts)
	v.Delta = alpha*v.Omission + beta*v.Hallucination
	v.Pass = strings.EqualFold(strings.TrimSpace(v.Decision), "PASS") && v.Delta <= c.Epsilon+1e-12
	return v
}

// feedback is what the generator is told after v failed.
func (v Verdict) feedback() string {
	var b strings.Builder
	if len(v.Problems) > 0 {
		b.WriteString("Problems found: " + strings.Join(v.Problems, "; ") + ".")
	}
	if len(v.Missing) > 0 {
		b.WriteString(" Facts of the source the output misses: " + strings.Join(v.Missing, "; ") + ".")
	}
	if len(v.Unsupported) > 0 {
		b.WriteString(" Facts of the output the source does not support: " + strings.Join(v.Unsupported, "; ") + ".")
	}
	if v.Feedback != "" {
		b.WriteString(" " + v.Feedback)
	}
	if b.Len() == 0 {
		b.WriteString("The checker rejected the output without saying why; make it strictly faithful to the source.")
	}
	return strings.TrimSpace(b.String())
}

// Step returns the step called name, or nil.
func (p *Pipeline) Step(name string) *Step {
	for _, s := range p.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Validate checks the DAG: unique step names, After naming earlier steps
// only, prompts that parse, a stub for every step.
func (p *Pipeline) Validate() error {
	seen := map[string]bool{}
	for i, s := range p.Steps {
		if s.Name == "" {
			return fmt.Errorf("construct: pipeline %s: step %d has no name", p.Name, i)
		}
		if seen[s.Name] {
			return fmt.Errorf("construct: pipeline %s: step %q is listed twice", p.Name, s.Name)
		}
		for _, a := range s.After {
			if !seen[a] {
				return fmt.Errorf("construct: pipeline %s: step %q comes after %q, which is not a step listed before it", p.Name, s.Name, a)
			}
		}
		seen[s.Name] = true
		if !slices.Contains(llm.Roles(), s.Role) {
			return fmt.Errorf("construct: pipeline %s: step %q: unknown role %q (want one of %s)", p.Name, s.Name, s.Role, strings.Join(llm.Roles(), ", "))
		}
		if s.Stub == nil {
			return fmt.Errorf("construct: pipeline %s: step %q has no Stub (a dry run could not plan what follows it)", p.Name, s.Name)
		}
		prompts := []*Prompt{&s.Prompt, s.Revise}
		if s.Check != nil {
			prompts = append(prompts, s.Check.Prompt)
		}
		for _, pr := range prompts {
			if pr == nil {
				continue
			}
			if _, err := pr.Render(nil); err != nil && !strings.Contains(err.Error(), "render") {
				return fmt.Errorf("construct: pipeline %s: step %q: %w", p.Name, s.Name, err)
			}
		}
	}
	return nil
}

// dependsOn reports whether step s may take items of step dep as inputs
// (dep is s, or s comes after it, directly or not).
func (p *Pipeline) dependsOn(s *Step, dep string) bool {
	if s.Name == dep {
		return true
	}
	for _, a := range s.After {
		if a == dep {
			return true
		}
		if as := p.Step(a); as != nil && p.dependsOn(as, dep) {
			return true
		}
	}
	return false
}
