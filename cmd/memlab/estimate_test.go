package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// TestDryRunEstimateAgainstTheRunOnTheFakeServer is issue 10's cost
// done-when on a notebook that calls models in every stage: the
// CloneMem QA notebook at k = 5 with every role on the fake server (the
// model reader, the two CloneMem judges, A-Mem and Mem0 ingesting with
// models). `memlab run -dry-run` writes its estimates; the real run then
// spends, per run and stage, what they say: the read stage of the systems
// that retrieve without a model within 10 %, every judge and memory stage
// inside its range or above its lower bound.
func TestDryRunEstimateAgainstTheRunOnTheFakeServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CloneMem QA notebook twice against the fake server; skipped under -short")
	}
	srv := fakeServer(t)
	dir := t.TempDir()
	code, out, stderr := memlab(t, "run", "-dry-run", "-quiet", "-o", dir, "-p", "klist=5", "../../notebooks/clonemem_qa.go")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	// (The client's start-up check lists the models; nothing else may be asked.)
	if st := srv.Stats(); st.ByPath[llmtest.PathChat]+st.ByPath[llmtest.PathEmbeddings] != 0 {
		t.Fatalf("the dry run made calls: %+v", st.ByPath)
	}
	b, err := os.ReadFile(filepath.Join(dir, "clonemem_qa.estimate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ests []*record.Estimate
	if err := json.Unmarshal(b, &ests); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", reports.EstimateTable(ests).Markdown())

	store := filepath.Join(dir, "runs.db")
	if code, out, stderr := memlab(t, "run", "-quiet", "-store", store, "-o", filepath.Join(dir, "real"), "-p", "klist=5", "../../notebooks/clonemem_qa.go"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	st, err := runstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var flatRead, modelMemories int
	type memory struct {
		ingest, search record.StageEstimate
		meter          retrieval.Meter
	}
	memories := map[string]*memory{}
	for _, e := range ests {
		recs, err := st.Records(e.RunID)
		if err != nil || len(recs) != e.Questions {
			t.Fatalf("%s (%s): %d records, %v", e.Label, e.RunID, len(recs), err)
		}
		var ret, read, judged llm.TallyCounts
		for _, r := range recs {
			ret, read, judged = ret.Add(r.Usage.Retrieve), read.Add(r.Usage.Read), judged.Add(r.Usage.Judge)
		}
		t.Logf("%s: made retrieve %d calls, read %d calls %d tokens, judge %d calls %d tokens",
			e.Label, ret.Calls, read.Calls, read.PromptTokens, judged.Calls, judged.PromptTokens)
		// Reads: the calls are always known; their prompts when the
		// system retrieves without a model.
		if read.Calls != e.Read.Calls {
			t.Errorf("%s: read calls estimated %d, made %d", e.Label, e.Read.Calls, read.Calls)
		}
		if e.Read.Known {
			flatRead++
			if math.Abs(float64(e.Read.PromptTokens-read.PromptTokens)) > 0.10*float64(read.PromptTokens) {
				t.Errorf("%s: read prompt tokens estimated %d, made %d", e.Label, e.Read.PromptTokens, read.PromptTokens)
			}
		}
		// Judges: within the range (a lower bound when no range is known).
		if judged.Calls < e.Judge.Calls || e.Judge.MaxCalls > 0 && judged.Calls > e.Judge.MaxCalls {
			t.Errorf("%s: judge calls %d outside %d–%d", e.Label, judged.Calls, e.Judge.Calls, e.Judge.MaxCalls)
		}
		if judged.PromptTokens < e.Judge.PromptTokens || e.Judge.MaxPromptTokens > 0 && judged.PromptTokens > e.Judge.MaxPromptTokens {
			t.Errorf("%s: judge prompt tokens %d outside %d–%d", e.Label, judged.PromptTokens, e.Judge.PromptTokens, e.Judge.MaxPromptTokens)
		}
		// Memories that call models: their meter against the plan, exact
		// or a lower bound. The points of one system share one memory
		// (grid.Grid): its work is planned once, at one point, and metered
		// at whichever points made it, so plan and meter are summed per
		// system.
		ri, err := st.Run(e.RunID)
		if err != nil {
			t.Fatal(err)
		}
		sys, _, _ := strings.Cut(e.Label, " reader=")
		mem := memories[sys]
		if mem == nil {
			mem = &memory{ingest: record.StageEstimate{Known: true}, search: record.StageEstimate{Known: true}}
			memories[sys] = mem
		}
		mem.ingest, mem.search = addStage(mem.ingest, e.Ingest), addStage(mem.search, e.Retrieve)
		mem.meter = mem.meter.Add(ri.Meter)
	}
	for sys, mem := range memories {
		if mem.ingest.Calls+mem.search.Calls == 0 {
			continue
		}
		modelMemories++
		m := mem.meter
		t.Logf("%s: planned ingest %d calls %d embeds (exact %v), search %d calls %d embeds (exact %v); meter %+v",
			sys, mem.ingest.Calls, mem.ingest.Embeds, mem.ingest.Known, mem.search.Calls, mem.search.Embeds, mem.search.Known, m)
		for _, c := range []struct {
			stage         string
			plan          record.StageEstimate
			calls, embeds int
		}{{"ingest", mem.ingest, m.IngestCalls, m.IngestEmbeds}, {"search", mem.search, m.QueryCalls, m.QueryEmbeds}} {
			if c.plan.Known && (c.calls != c.plan.Calls || c.embeds != c.plan.Embeds) ||
				c.calls < c.plan.Calls || c.embeds < c.plan.Embeds {
				t.Errorf("%s %s: planned %d calls %d embeds (exact %v), made %d and %d", sys, c.stage, c.plan.Calls, c.plan.Embeds, c.plan.Known, c.calls, c.embeds)
			}
		}
	}
	if flatRead == 0 || modelMemories == 0 {
		t.Errorf("want runs with exact read prompts (%d) and with model-calling memories (%d)", flatRead, modelMemories)
	}
}

// addStage sums two stage estimates: exact only when both are.
func addStage(a, b record.StageEstimate) record.StageEstimate {
	return record.StageEstimate{Calls: a.Calls + b.Calls, Embeds: a.Embeds + b.Embeds, Known: a.Known && b.Known}
}
