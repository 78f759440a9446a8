package reports

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
)

// TestDryRunTotal: the dry run's total adds every run's stages and the
// calls refused outside runs; a stage known only from below makes the
// total a lower bound, embedding calls have no completion, and the total
// line says it all on one line.
func TestDryRunTotal(t *testing.T) {
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	exact := record.StageEstimate{Known: true} // no calls
	es := []*record.Estimate{
		{Label: "a", Questions: 10, Read: record.StageEstimate{Calls: 10, MaxCalls: 10, PromptTokens: 1000, MaxPromptTokens: 1000, MaxCompletionTokens: 500, Known: true, Model: "m"},
			Judge: record.StageEstimate{Calls: 10, MaxCalls: 30, PromptTokens: 2000, MaxPromptTokens: 6000, MaxCompletionTokens: 300, Model: "m"}},
		{Label: "b", Questions: 10, Ingest: exact, Retrieve: exact, Judge: exact,
			Read: record.StageEstimate{Calls: 10, MaxCalls: 10, PromptTokens: 1200, MaxPromptTokens: 1200, MaxCompletionTokens: 500, Known: true, Model: "m"}},
	}
	refused := []llm.RefusedCalls{{Role: llm.RoleEmbedder, Endpoint: "e", Model: "emb", Calls: 104, EmbedCalls: 104, Texts: 6644, PromptTokens: 421131}}
	d := NewDryRun(es, refused)
	if d.Outside.Calls != 104 || d.Outside.Embeds != 6644 || d.Outside.Known || d.Outside.Model != "emb" {
		t.Errorf("outside = %+v", d.Outside)
	}
	tot := d.Total
	if tot.Calls != 134 || tot.PromptTokens != 425331 || tot.Embeds != 6644 || tot.Known || tot.MaxCalls != 0 || tot.Model != "several models" {
		t.Errorf("total = %+v", tot)
	}
	if tot.MaxCompletionTokens != 1300 {
		t.Errorf("total completion bound %d, want 1300 (embeddings have none)", tot.MaxCompletionTokens)
	}
	md := d.Table().Markdown()
	for _, want := range []string{"| outside runs (refused) |  | before or beside runs.Run | ≥ 104 | ≥ 421131 | 0 | 6644 | emb |",
		"| total | 20 | all | ≥ 134 | ≥ 425331 | 1300 | 6644 | several models |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	line := d.TotalLine()
	if want := "dry run total over 2 run(s) and 104 call(s) refused outside runs: ≥ 134 model calls, ≥ 425331 prompt tokens, 6644 embedded texts"; !strings.HasPrefix(line, want) {
		t.Errorf("total line %q, want it to start %q", line, want)
	}

	// Without refusals and with every stage exact, the total is exact.
	d = NewDryRun(es[1:], nil)
	if d.Total.Calls != 10 || !d.Total.Known || d.Total.MaxCalls != 10 || strings.Contains(d.Table().Markdown(), "outside") {
		t.Errorf("exact total = %+v\n%s", d.Total, d.Table().Markdown())
	}
	if line := d.TotalLine(); !strings.Contains(line, ": 10 model calls, 1200 prompt tokens, 0 embedded texts") {
		t.Errorf("exact total line %q", line)
	}
}
