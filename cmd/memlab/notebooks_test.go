package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
)

// The paper notebooks (issue 9), each run the way docs/REPRODUCING.md does.
var paperNotebooks = []string{
	"clonemem_retrieval", "clonemem_qa", "clonemem_ablation_embedding", "clonemem_ablation_units",
	"clonemem_breakdown", "knowme_table1", "error_analysis",
}

// knowMeDataset1 is KnowMe-Bench dataset 1 in shared/, beside the project.
const knowMeDataset1 = "../../../shared/datasets/knowmebench/dataset1"

// runNotebook runs notebooks/NAME.go with params and checks what every run must
// have: exit 0, the .ipynb and the report, and every figure it displayed a
// decodable PNG. It returns stdout and the output directory.
func runNotebook(t *testing.T, name string, params ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"run", "../../notebooks/" + name + ".go", "-o", dir, "-no-store", "-quiet"}, params...)
	code, stdout, stderr := memlab(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", name, code, stdout, stderr)
	}
	for _, f := range []string{name + ".ipynb", name + ".md"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %s missing or empty: %v", name, f, err)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) == 0 {
		t.Errorf("%s: no figure written", name)
	}
	for _, p := range pngs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %s is not a PNG: %v", name, filepath.Base(p), err)
		}
	}
	return stdout, dir
}

func expect(t *testing.T, name, out string, patterns ...string) {
	t.Helper()
	for _, re := range patterns {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("%s output lacks %s", name, re)
		}
	}
}

// offlineEnv makes sure no endpoint is configured.
func offlineEnv(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
}

// noLLMNames fails when an offline output shows a number under an LLM-judged
// metric's name: offline, those names may only appear in sentences saying
// they need a model.
func noLLMNames(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "(LLM judge)") {
			t.Errorf("%s: offline table line names an LLM-judged metric: %s", name, line)
		}
	}
}

func TestPaperNotebooksOfflineOnSample(t *testing.T) {
	offlineEnv(t)
	cases := map[string][]string{
		"clonemem_retrieval": {
			`\| 10 \| Recall-Flat \| 0\.6579 \[0\.\d+, 0\.\d+\] \(n=54\)`, // Table 3's layout: Flat BM25's Recall-Flat@10 first
			`\| k \| metric \| BM25 Flat \|.*\| lsa \(offline\) Flat \|.*\| timeline \|`,
			`skipped 6 points: needs an extractor model`, `\| k \| run \| k \| records \|`,
			`\| system=timeline k=20 \| 20 \| 54 \| 0\.843 \[`, `Holm-adjusted`, `Δ Recall-Flat`,
		},
		"clonemem_qa": {
			`\| 10 \| Token F1 \(proxy\) \| 0\.202 \[0\.\d+, 0\.\d+\] \(n=54\) \| +\| 0\.178 \[`, // Table 4: k x metric rows, Oracle, Flat, timeline
			`\| k \| metric \| Oracle \| Oracle \(paper\) \| Flat \| Flat \(paper\) \|`, `\| 20 \| choice accuracy \| 44\.44 \[`,
			`Evidence coverage \(proxy for memory recall\)`, `they need the judge model`,
			`skipped 18 points: needs an extractor model`, `paired difference against system=oracle reader=extractive k=20`,
		},
		"clonemem_ablation_embedding": {
			`\| k \| metric \| BM25 \| BM25 \(paper\) \| hashed \(offline\) \|`, `\| 10 \| Recall-Flat \| 0\.6579 \[`,
			`\| flat\(embedder=hashed\) \| 10 \| 54 \| 0\.\d+ \[`, `paired difference against flat-bm25`,
			`skipped 2 points: needs an embedder model`, `skipped 3 points: needs a backbone model`,
		},
		"clonemem_ablation_units": {
			`\| k \| metric \| w/o mem \|.*\| w/o org \(join=separate\) \|.*\| combined \(join=merge_raw\) \|`,
			`\| system=flat\(bm25,units=summary\+keywords\+facts\+raw,join=separate\) reader=extractive \| 10 \| 54 \| 0\.\d+ \[`,
			`paired difference against system=flat\(bm25,join=none\) reader=extractive`, `\| reader \| run \| k \| records \|`,
		},
		"clonemem_breakdown": {
			`### By task`, `### By dimension`, `\| trajectory \| flat-bm25 \| 10 \| 6 \| `,
			`\| opinion \| timeline \| 10 \|`, `McNemar's exact test`, `### nDCG@k by task x dimension|### Choice accuracy by task x dimension`,
		},
		"knowme_table1": {
			`\| single_point_factual \| base-recent \| 50 \| 9 \| 0\.\d+ \[`,
			`\| extractive \| system=naive reader=extractive \| 50 \| 54 \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=54\) \| [+-]0\.\d+, p = `,
			`needs an extractor model`, `the KnowMe-Bench score needs a judge model`, `paired difference against system=recent\(tokens=24000\) reader=extractive`,
		},
		"error_analysis": {
			`\| cause \| count \| share of questions \| by task \|`, `\| unanswerable, answered with a commitment \| \d+ \|`,
			`trajectory, Recall-Flat < 0\.50`, `\*\*Gold evidence:\*\*`, `✓ = gold`, `\*\*Judge:\*\* none \(no judge model configured\)`,
		},
	}
	for _, name := range paperNotebooks {
		t.Run(name, func(t *testing.T) {
			out, _ := runNotebook(t, name)
			expect(t, name, out, cases[name]...)
			noLLMNames(t, name, out)
		})
	}
}

func TestKnowMeNotebookOnDataset1Offline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five memory systems over KnowMe dataset 1 (6,644 entries, 1,010 questions), about 2 minutes; skipped under -short")
	}
	if _, err := os.Stat(knowMeDataset1); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (it lives in shared/, beside the project): %v", knowMeDataset1, err)
	}
	offlineEnv(t)
	out, _ := runNotebook(t, "knowme_table1", "-p", "data="+absPath(t, knowMeDataset1))
	// Table 1's layout: the seven tasks as T1..T7 with the paper's columns, base (the recent
	// long context) first, Mem0 skipped.
	expect(t, "knowme_table1", out,
		`\| part \| metric \| backbone \| system \| T1 \| T1 \(paper\) \| T2 \|`,
		`\| dataset 1 \| Token F1 \(proxy\) \| extractive \(offline\) \| base \| 0\.\d+ \[`,
		`\| dataset 1 \| Token F1 \(proxy\) \| extractive \(offline\) \| timeline \| 0\.\d+ \[`, `needs an extractor model`,
		`the KnowMe-Bench score needs a judge model`)
	noLLMNames(t, "knowme_table1", out)
}

// loCoMoData is the five LoCoMo conversations in shared/, beside the project.
const loCoMoData = "../../../shared/datasets/locomo"

// TestLoCoMoNotebookOffline: notebooks/locomo.go on the five conversations:
// every offline system's turn- and session-level recall and LoCoMo F1 of
// the extractive reader per category (named by LoCoMo's official
// numbering, said under the tables), overall means over categories 1-4 and
// 1-5, each table saying where category 5 is, J said to be skipped, and
// three figures.
func TestLoCoMoNotebookOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight memory systems over 999 LoCoMo questions, about 40 s; skipped under -short")
	}
	if _, err := os.Stat(loCoMoData); err != nil {
		t.Skipf("LoCoMo conversations not found at %s (they live in shared/, beside the project): %v", loCoMoData, err)
	}
	offlineEnv(t)
	out, dir := runNotebook(t, "locomo", "-p", "data="+absPath(t, loCoMoData))
	expect(t, "locomo", out,
		`locomo: 5 conversations, 2760 turns, 999 questions; 20 defects`,
		`offline: no endpoint is configured, so only the extractive reader answers`,
		`\| Recall-Flat: point \\ task \| adversarial \| multi-hop \| open-domain \| single-hop \| temporal \|`,
		`\| oracle \| 1\.000 \[1\.000, 1\.000\] \(n=237\) \| 1\.000 \[1\.000, 1\.000\] \(n=142\) \|`,
		`\| timeline \| 0\.\d+ \[`, `Categories: LoCoMo's official numbering: 1 multi-hop`,
		`\| Session recall: point \\ task \| adversarial \| multi-hop \|`,
		`\| oracle \| 1\.000 \[1\.000, 1\.000\] \(n=237\) \| 1\.000 \[1\.000, 1\.000\] \(n=142\) \| 1\.000`,
		`\| LoCoMo F1: point \\ task \| adversarial \| multi-hop \|`,
		`\| flat\(bm25\) \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=237\) \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=142\) \|`,
		`Category 5 \(adversarial\) has its own column, in its numerator and denominator`, `it is not a model`,
		`The J column is skipped: J is an LLM judge's label`,
		`\*\*Categories 1-4\*\* \(category 5 in neither numerator nor denominator`,
		`\| oracle \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=762\) \| 1\.000 \[1\.000, 1\.000\] \(n=760\) \| 1\.000 \[1\.000, 1\.000\] \(n=760\) \|`,
		`\*\*Categories 1-5\*\* \(category 5 in numerator and denominator`,
		`\| oracle \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=999\) \|`)
	noLLMNames(t, "locomo", out)
	noNA(t, "locomo", out, "LoCoMo F1")
	for _, f := range []string{"locomo_recall_by_category.png", "locomo_f1_by_category.png", "locomo_recall_heatmap.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}

// TestLoCoMoNotebookWithFakeModels: notebooks/locomo.go with every role on
// the fake server (two systems): the model reader answers beside the
// extractive one, the J judge labels the answers of categories 1-4, and the
// F1 and J tables have a value in every cell.
func TestLoCoMoNotebookWithFakeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two systems and two readers over 999 LoCoMo questions with the fake server, about 15 s; skipped under -short")
	}
	if _, err := os.Stat(loCoMoData); err != nil {
		t.Skipf("LoCoMo conversations not found at %s (they live in shared/, beside the project): %v", loCoMoData, err)
	}
	srv := fakeServer(t)
	out, _ := runNotebook(t, "locomo", "-p", "data="+absPath(t, loCoMoData), "-p", "systems=flat(bm25),oracle")
	expect(t, "locomo", out,
		`\| LoCoMo F1: point \\ task \| adversarial \| multi-hop \|`,
		`\| system=oracle reader=reader\(free_temperature=0\) \| \d\.\d+ \[\d\.\d+, \d\.\d+\] \(n=237\) \|`,
		`\| LoCoMo J \(LLM judge\): point \\ task \| multi-hop \| open-domain \| single-hop \| temporal \|`,
		`\| system=flat\(bm25\) reader=extractive \| \d\.\d+ \[\d\.\d+, \d\.\d+\] \(n=142\) \|`,
		`\| system=oracle reader=reader\(free_temperature=0\) \| \d\.\d+ \[\d\.\d+, \d\.\d+\] \(n=142\) \|`,
		`Category 5 has no column and is in neither numerator nor denominator`)
	if strings.Contains(out, "The J column is skipped") || strings.Contains(out, "offline: no endpoint") {
		t.Errorf("the notebook says it is offline although a model is configured")
	}
	noNA(t, "locomo", out, "LoCoMo F1", "LoCoMo J")
	// The model reader answers 2 x 999 questions, the judge 4 x 762 answers
	// (the call cache answers the repeated prompts).
	if n := srv.Stats().ByPath[llmtest.PathChat]; n < 3000 {
		t.Errorf("%d chat calls reached the server: too few for the model reader and the judge", n)
	}
}

// noNA fails when a table whose header line names one of metrics has a
// cell without a value ("n/a").
func noNA(t *testing.T, name, out string, metrics ...string) {
	t.Helper()
	in, header := false, true
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") {
			in, header = false, true
			continue
		}
		if header {
			header = false
			for _, m := range metrics {
				in = in || strings.Contains(line, m)
			}
		}
		if in && strings.Contains(line, "n/a") {
			t.Errorf("%s: a %v table has a cell without value: %s", name, metrics, line)
		}
	}
}

// fakeServer starts the in-repo fake OpenAI-compatible server and points
// every role at it. Its rules make the judges' and the multiple-choice
// reader's replies readable, so the judged cells hold counts of judged items;
// everything else gets the server's deterministic placeholder replies.
func fakeServer(t *testing.T) *llmtest.Server {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{Rules: []llmtest.Rule{
		{Contains: "QA_consistency_score", Reply: `{"QA_consistency_score": 2, "QA_consistency_reason": "fake judge"}`},
		{Contains: "Mem_helpful_score", Reply: `{"Mem_recall": 0.5, "Mem_helpful_score": 1, "Mem_hits": [], "Mem_helpful_reason": "fake judge"}`},
		{Contains: "Reply with one letter.", Reply: "A"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return useFakeServer(t, srv)
}

// useFakeServer points every role at srv through the environment, with an
// empty call cache of the test's own, and closes srv when the test ends.
func useFakeServer(t *testing.T, srv *llmtest.Server) *llmtest.Server {
	t.Helper()
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", filepath.Join(t.TempDir(), "calls.db"))
	return srv
}

func TestPaperNotebooksWithFakeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the seven notebooks with every role on the fake server (A-Mem and Mem0 ingest every trace once per embedder and k), about 25 s; skipped under -short")
	}
	// "n judged / n failed" as reports.JudgeTable and the notebooks' own tables write it.
	counts := `\| \d+ / \d+ \|`
	cases := map[string][]string{
		"clonemem_retrieval": {`\| hashed \(offline\) A-Mem \|`, `\| embedder role Mem0 \|`, `\| embedder role Flat \|`,
			`\| system=mem0\(embedder=embedder\) k=20 \| 20 \| 54 \| \d\.\d+ \[`},
		"clonemem_ablation_embedding": {`\| flat\(embedder=model-embedder\) · model-reader \| 10 \| 54 \|`, `\| 10 \| QA consistency \| `, `QA consistency \(LLM judge\)`},
		"clonemem_ablation_units":     {`\| reader \| system=flat\(bm25,join=none\) reader=reader \|`, `\| 10 \| QA consistency \| `, `QA consistency \(LLM judge\)`},
		"clonemem_qa": {`\| 10 \| QA consistency \| 0\.6667 \[0\.6667, 0\.6667\] \(n=54\) \| +\| 0\.6667 \[0\.6667, 0\.6667\] \(n=54\) \| 0\.6892 \|`, `\| 4o-mini A-Mem \| 4o-mini A-Mem \(paper\) \|`,
			`system=amem reader=gpt-4o-mini k=10 \| 10 \| 54 \| 2\.000 \[`, `\| hallucination rate \| perfect rate \|`, counts},
		"clonemem_breakdown": {`QA consistency \(LLM judge\) \| Δ QA consistency \(LLM judge\)`, `\| trajectory \| timeline \| 10 \| 6 \| `},
		"knowme_table1": {`\| extractive \| system=mem0 reader=extractive \| 50 \| 54 \| 2\.000 \[`, `system=naive reader=qwen3-32b`,
			`\| gpt-5-mini \| system=naive reader=gpt-5-mini \| 50 \| 54 \| \d`},
		"error_analysis": {`\*\*Judge\*\* clonemem-qa/memlab \(gpt-4o-mini\), QA consistency \(LLM judge\) = 2: fake judge`},
	}
	for _, name := range paperNotebooks {
		t.Run(name, func(t *testing.T) {
			srv := fakeServer(t)
			out, _ := runNotebook(t, name)
			expect(t, name, out, cases[name]...)
			if strings.Contains(out, "needs a model") {
				t.Errorf("%s: a row says it needs a model although one is configured", name)
			}
			if st := srv.Stats(); st.ByPath[llmtest.PathChat] == 0 {
				t.Errorf("%s made no chat call", name)
			}
		})
	}
}

// TestCrossBenchmarkNotebook: notebooks/cross_benchmark.go runs the offline
// systems on the sample, KnowMe dataset 1 and the five LoCoMo conversations
// and lays each system's recall out by benchmark, titled by benchmark (not
// by path), with intervals, the paired comparisons within each benchmark
// and the figure.
func TestCrossBenchmarkNotebook(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four memory systems over 2,063 questions of three benchmarks, about 40 s; skipped under -short")
	}
	for _, p := range []string{knowMeDataset1, loCoMoData} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("benchmark data not found at %s (it lives in shared/, beside the project): %v", p, err)
		}
	}
	offlineEnv(t)
	out, dir := runNotebook(t, "cross_benchmark", "-p", "knowme="+absPath(t, knowMeDataset1), "-p", "locomo="+absPath(t, loCoMoData),
		"-p", "systems=flat(bm25),timeline,recent,oracle")
	expect(t, "cross_benchmark", out,
		`\| CloneMem sample \| 2 \| 117 \| 54 \| 54 \| 54 \|`, `\| KnowMe-Bench dataset1 \| 1 \| 6644 \| 1010 \| 896 \|`, `\| LoCoMo \| 5 \| 2760 \| 999 \| 997 \|`,
		`\| Recall-Flat: system \\ dataset \| CloneMem sample \| KnowMe-Bench dataset1 \| LoCoMo \|`,
		`\| oracle \| 1\.000 \[1\.000, 1\.000\] \(n=54\) \| 0\.9\d\d \[0\.9\d\d, 0\.9\d\d\] \(n=896\) \| 1\.000 \[1\.000, 1\.000\] \(n=997\) \|`,
		`\| All-Any: system \\ dataset \|`,
		`\| LoCoMo \| system=timeline dataset=LoCoMo \| 10 \| 999 \| 0\.\d+ \[`,
		`Compared within each dataset against the baseline there`)
	noLLMNames(t, "cross_benchmark", out)
	if _, err := os.Stat(filepath.Join(dir, "cross_benchmark_recall.png")); err != nil {
		t.Errorf("figure: %v", err)
	}
}

// TestTimelineStateNotebookOffline: notebooks/timeline_state.go on the
// sample (issue 24): the per-type comparison of timeline with Flat and the
// Oracle, the pooled time-shaped questions, both halves of the split, the
// abstention signal's ROC AUC with its interval and its precision and
// recall, the dev-half refit of the threshold, and the ROC figure.
func TestTimelineStateNotebookOffline(t *testing.T) {
	offlineEnv(t)
	out, dir := runNotebook(t, "timeline_state")
	expect(t, "timeline_state", out,
		`\| unanswerable \| timeline \| 10 \| 6 \| `, `\| trajectory \| oracle \| 10 \| 6 \| 1\.000 \[1\.000, 1\.000\]`,
		`question types where timeline is significantly worse than Flat \(Holm p < 0\.05\): \d+`,
		`\| timeline \| 10 \| 20 \| 0\.\d+ \[`, `### dev half \(odd question numbers\)`, `### eval half \(even question numbers\)`,
		`\| questions \| n \| unanswerable \| ROC AUC \[95% CI\] \| precision \| recall \|`,
		`\| all \| 54 \| 6 \| 0\.\d+ \[0\.\d+, (0\.\d+|1\.000)\] \| 0\.\d+ \| 0\.\d+ \|`, `\| dev half \| 28 \| 3 \|`, `\| eval half \| 26 \| 3 \|`,
		`Youden threshold on the dev half: 0\.500 `, `abstain=0\.5,`,
		`unanswerable choice accuracy: timeline 0\.\d+, Flat 0\.\d+ \(target: at least Flat \+ 0\.3 = 0\.\d+\): (met|missed)`,
		`### answerable`, `\| extractive\(signal=ignore\) \| 10 \| 48 \| 0\.\d+ \[`, `\| extractive \| 10 \| 48 \| 0\.\d+ \[0\.\d+, 0\.\d+\] \(n=48\) \| [+-]0\.\d+, p = `)
	noLLMNames(t, "timeline_state", out)
	if _, err := os.Stat(filepath.Join(dir, "timeline_state_roc.png")); err != nil {
		t.Errorf("ROC figure: %v", err)
	}
}

// TestTimelineStateNotebookOnDataset1: the same notebook on KnowMe-Bench
// dataset 1, where the abstention label is the Adversarial Abstention task
// and the questions have no options.
func TestTimelineStateNotebookOnDataset1(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three systems over KnowMe dataset 1 (1,010 questions); skipped under -short")
	}
	if _, err := os.Stat(knowMeDataset1); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (it lives in shared/, beside the project): %v", knowMeDataset1, err)
	}
	offlineEnv(t)
	out, _ := runNotebook(t, "timeline_state", "-p", "data="+absPath(t, knowMeDataset1))
	expect(t, "timeline_state", out,
		`\| Temporal Reasoning \| timeline \| 10 \| 131 \| 0\.\d+ \[`, `\| Adversarial Abstention \| oracle \|`,
		`\| all \| \d+ \| 100 \| 0\.\d+ \[0\.\d+, 0\.\d+\] \|`, `no choice accuracy: the questions have no options`)
	noLLMNames(t, "timeline_state", out)
}

// TestBuildKnowMeNotebookOffline: offline the notebook says building needs
// a model, shows the dry run's cost, builds with the scripted stand-in,
// validates the dataset (no defect) and compares the two systems.
func TestBuildKnowMeNotebookOffline(t *testing.T) {
	offlineEnv(t)
	out, dir := runNotebook(t, "build_knowme")
	expect(t, "build_knowme", out,
		`\| Q \| knowme\.question \| gpt-4o-mini \| 14 \| 28 \|`,
		`Building needs a model`,
		`\|\s+\| all \| 39 \| 0 \| 0 \| 77 \|`,
		`defects: none`,
		`\| flat-bm25 \| 10 \| 14 \|`,
		`\| timeline \| 10 \| 14 \|`)
	for _, f := range []string{"vestvik/input/vestvik.json", "vestvik/provenance.jsonl", "vestvik/review.md", "build_knowme_recall.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestBuildCloneMemNotebookOffline: offline the notebook shows the dry
// runs (the small build and the paper's two settings, priced), says
// building needs a model, builds with the scripted stand-in, validates the
// persona (no defect, no cited trace after its question) and compares the
// two systems.
func TestBuildCloneMemNotebookOffline(t *testing.T) {
	offlineEnv(t)
	out, dir := runNotebook(t, "build_clonemem")
	expect(t, "build_clonemem", out,
		`\| II \| clonemem\.phase \| gpt-4o-mini \| 6 \| 6 \|`,
		`\| 100k \| 1080 \| \d+ \| \d+ \| \d+ \|`,
		`\| 500k \| 5400 \| \d+ \| \d+ \| \d+ \|`,
		`Building needs a model`,
		`defects: none`,
		`cited traces dated after their question's time: 0`,
		`\| flat-bm25 \| 10 \| 72 \|`,
		`\| timeline \| 10 \| 72 \|`)
	for _, f := range []string{"clonemem/provenance.jsonl", "clonemem/review.md", "build_clonemem_recall.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
