package construct

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

// FileName is the persona file's name in the release's pattern,
// <name>_<person_id>_benchmark_<language>.json.
func (r *CloneMemResult) FileName() string {
	var b strings.Builder
	for _, c := range strings.ToLower(r.Profile.Name) {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "persona"
	}
	return fmt.Sprintf("%s_%s_benchmark_%s.json", name, r.Params.PersonID, r.Params.Language)
}

// Write writes the persona file (FileName) under dir, with the
// provenance of every trace and question (provenance.jsonl) and the
// review file (review.md): the build's table, what each filter removed,
// and a sample of questions (ReviewSample) with the traces they cite.
func (r *CloneMemResult) Write(dir string) error {
	if err := datasets.WriteCloneMemFile(filepath.Join(dir, r.FileName()), r.file()); err != nil {
		return err
	}
	if err := writeProvenance(filepath.Join(dir, ProvenanceFile), r.Provenance); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReviewFile), []byte(r.review()), 0o644)
}

// file is the persona file: the release's fields of the persona, its
// traces and its questions.
func (r *CloneMemResult) file() datasets.CloneMemFile {
	f := datasets.CloneMemFile{PersonName: r.Profile.Name, PersonID: r.Params.PersonID}
	for _, t := range r.Traces {
		f.Context = append(f.Context, t.CloneMemTrace)
	}
	for _, q := range r.Questions {
		f.Questions = append(f.Questions, q.CloneMemQuestion)
	}
	return f
}

// ReviewSample is how many questions the review file shows (drawn with
// the build's seed), CloneMem's small human review.
const ReviewSample = 20

func (r *CloneMemResult) review() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review of CloneMem build %s: %s (%s)\n\n", r.Build.ID, r.Profile.Name, r.Params.PersonID)
	fmt.Fprintf(&b, "%d traces, %d questions. Tick each question whose answer the cited traces support at its time, whose options need the reasoning its type targets, and whose wording a friend would use; note what is wrong otherwise (the provenance file names the step that made it).\n\n",
		len(r.Traces), len(r.Questions))
	b.WriteString(StatsTable(r.Build.Stats(), r.Build.Total()).Markdown())
	b.WriteString("\n## Quality control\n\n")
	for _, k := range []string{"unsupported", "format", "sufficiency", "choices"} {
		what := map[string]string{"unsupported": "plans that found no meaningful question (not made)", "format": "removed by the format filter",
			"sufficiency": "removed by the evidence-sufficiency filter", "choices": "removed by the multiple-choice validator"}[k]
		fmt.Fprintf(&b, "- %s: %d\n", what, r.Filtered[k])
	}
	b.WriteString("\n")
	writeDropped(&b, r.Dropped)
	byID := map[string]Trace{}
	for _, t := range r.Traces {
		byID[t.ID] = t
	}
	idx := make([]int, len(r.Questions))
	for i := range idx {
		idx[i] = i
	}
	rng := rand.New(rand.NewPCG(uint64(r.Build.Seed()), hashSeed("review", 0)))
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	idx = idx[:min(ReviewSample, len(idx))]
	sort.Ints(idx)
	fmt.Fprintf(&b, "## A sample of %d questions\n\n", len(idx))
	for _, i := range idx {
		q := r.Questions[i]
		fmt.Fprintf(&b, "- [ ] **%s** (%s, %s, asked %s) %s\n  - answer: %s\n", q.ID, q.QuestionType, q.Dimension, q.QuestionTime, q.Question, q.Answer)
		for _, c := range q.Choices {
			mark := ""
			if c.ID == q.CorrectChoiceID {
				mark = " ✓"
			}
			if c.ID != q.CorrectChoiceID && containsString(q.laterTrue, c.Text) {
				mark = " (true later)"
			}
			fmt.Fprintf(&b, "  - %s. %s%s\n", c.ID, c.Text, mark)
		}
		for _, g := range q.Evidence {
			fmt.Fprintf(&b, "  - evidence: %s\n", g.Statement)
			for _, id := range g.DigitalTraceIDs {
				t := byID[id]
				fmt.Fprintf(&b, "    - %s %s: %s\n", t.EventDate, t.Medium, text.Clip(strings.ReplaceAll(t.Content, "\n", " / "), 240))
			}
		}
	}
	return b.String()
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if strings.TrimSpace(x) == strings.TrimSpace(s) {
			return true
		}
	}
	return false
}
