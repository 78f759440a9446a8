package construct

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memlab/memlab/text"
)

// Files a build writes beside the benchmark (names the loaders skip: not
// .json).
const (
	ProvenanceFile = "provenance.jsonl"
	ReviewFile     = "review.md"
)

// releasedEntry is a stream entry in KnowMe-Bench's released field names
// and order, empty primitives as null.
type releasedEntry struct {
	ID           int     `json:"id"`
	Timestamp    string  `json:"timestamp"`
	Location     *string `json:"location"`
	Action       *string `json:"action"`
	Dialogue     *string `json:"dialogue"`
	Environment  *string `json:"environment"`
	Background   *string `json:"background"`
	InnerThought *string `json:"inner_thought"`
}

func nullable(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// writeJSON writes v as indented JSON to path, creating its directory.
func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("construct: write %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("construct: write %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("construct: write %s: %w", path, err)
	}
	return nil
}

// Write writes the dataset in KnowMe-Bench's released layout under dir:
// input/NAME.json (the stream), question/TASK_questions.json and
// answer/TASK_answers.json per task with questions, plus the provenance
// of every entry and question (provenance.jsonl) and the review file
// (review.md). dir must not hold another dataset's files.
func (r *KnowMeResult) Write(dir string) error {
	var p KnowMeParams
	if err := json.Unmarshal(r.Build.Spec.Params, &p); err != nil {
		return fmt.Errorf("construct: knowme: params: %w", err)
	}
	for _, sub := range []string{"input", "question", "answer"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return fmt.Errorf("construct: write %s: %w", dir, err)
		}
	}
	entries := make([]releasedEntry, len(r.Stream))
	for i, e := range r.Stream {
		entries[i] = releasedEntry{ID: e.ID, Timestamp: e.Timestamp, Location: nullable(e.Location), Action: nullable(e.Action),
			Dialogue: nullable(e.Dialogue), Environment: nullable(e.Environment), Background: nullable(e.Background), InnerThought: nullable(e.Mind)}
	}
	if err := writeJSON(filepath.Join(dir, "input", p.Name+".json"), entries); err != nil {
		return err
	}
	for _, task := range sortedKeys(r.Tasks) {
		type q struct {
			ID       int    `json:"id"`
			Question string `json:"question"`
		}
		type a struct {
			ID        int             `json:"id"`
			Answer    json.RawMessage `json:"answer"`
			Evidence  []int           `json:"evidence"`
			Type      string          `json:"type,omitempty"`
			Strategy  string          `json:"strategy,omitempty"`
			Reasoning string          `json:"reasoning,omitempty"`
		}
		var qs []q
		var as []a
		for _, x := range r.Tasks[task] {
			qs = append(qs, q{x.ID, x.Question})
			as = append(as, a{x.ID, x.Answer, x.Evidence, x.Type, x.Strategy, x.Reasoning})
		}
		if err := writeJSON(filepath.Join(dir, "question", task+"_questions.json"), qs); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(dir, "answer", task+"_answers.json"), as); err != nil {
			return err
		}
	}
	if err := writeProvenance(filepath.Join(dir, ProvenanceFile), r.Provenance); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReviewFile), []byte(r.review()), 0o644)
}

func writeProvenance(path string, prov []Provenance) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, p := range prov {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("construct: write %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("construct: write %s: %w", path, err)
	}
	return nil
}

// review is the file a person reviews the build with: what was dropped
// and why, then every question with its answer and the entries it cites,
// each with a box to tick.
func (r *KnowMeResult) review() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review of KnowMe-Bench build %s\n\n", r.Build.ID)
	b.WriteString("Tick each question whose answer the cited entries support and whose wording a reader understands; note what is wrong otherwise. Errors go back to the step that made them (the provenance file names it).\n\n")
	b.WriteString(StatsTable(r.Build.Stats(), r.Build.Total()).Markdown())
	b.WriteString("\n")
	writeDropped(&b, r.Dropped)
	byID := map[int]StreamEntry{}
	for _, e := range r.Stream {
		byID[e.ID] = e
	}
	for _, task := range sortedKeys(r.Tasks) {
		fmt.Fprintf(&b, "## %s\n\n", task)
		for _, q := range r.Tasks[task] {
			fmt.Fprintf(&b, "- [ ] **%d.** %s\n  - answer: %s\n", q.ID, q.Question, answerText(q.Answer))
			for _, id := range q.Evidence {
				e := byID[id]
				fmt.Fprintf(&b, "  - entry %d (%s, %s): %s\n", id, e.Timestamp, e.Location, text.Clip(entryText(e), 300))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func writeDropped(b *strings.Builder, dropped []Dropped) {
	if len(dropped) == 0 {
		b.WriteString("Nothing was dropped.\n\n")
		return
	}
	counts := map[string]int{}
	for _, d := range dropped {
		counts[d.Step]++
	}
	b.WriteString("## Dropped (flagged for review)\n\n")
	for _, s := range sortedKeys(counts) {
		fmt.Fprintf(b, "- %s: %d\n", s, counts[s])
	}
	b.WriteString("\n")
	ds := append([]Dropped(nil), dropped...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Step != ds[j].Step {
			return ds[i].Step < ds[j].Step
		}
		return ds[i].Item < ds[j].Item
	})
	for _, d := range ds {
		fmt.Fprintf(b, "- %s, %s (%d revisions): %s\n", d.Step, d.Item, d.Revisions, d.Reason)
	}
	b.WriteString("\n")
}

func answerText(a json.RawMessage) string {
	var s string
	if json.Unmarshal(a, &s) == nil {
		return s
	}
	var list []struct {
		Rank  int    `json:"rank"`
		Event string `json:"event"`
	}
	if json.Unmarshal(a, &list) == nil {
		var parts []string
		for _, e := range list {
			parts = append(parts, fmt.Sprintf("%d. %s", e.Rank, e.Event))
		}
		return strings.Join(parts, " ")
	}
	return string(a)
}

func entryText(e StreamEntry) string {
	var parts []string
	for _, f := range []struct{ k, v string }{{"Action", e.Action}, {"Dialogue", e.Dialogue}, {"Environment", e.Environment}, {"Background", e.Background}, {"Mind", e.Mind}} {
		if f.v != "" {
			parts = append(parts, f.k+": "+f.v)
		}
	}
	return strings.Join(parts, " | ")
}
