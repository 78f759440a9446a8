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
			`skipped 6 points: needs an extractor model`, `\*\*k = 20\*\*`,
			`\| system=timeline k=20 \| 20 \| 54 \| 0\.843 \[`, `Holm-adjusted`, `Δ Recall-Flat`,
		},
		"clonemem_qa": {
			`\| Oracle \| 20 \| 54 \| 0\.\d+ \[`, `\| Flat \(BM25\) k=5 \| 5 \| 54 \|`, `\| timeline k=20 \| 20 \| 54 \|`,
			`Token F1 \(proxy\)`, `Evidence coverage \(proxy for memory recall\)`, `Choice accuracy`,
			`QA consistency, memory helpfulness and memory recall \(LLM judge\) are not computed`,
			`A-Mem: needs a model`, `Mem0: needs a model`, `paired difference against Oracle`,
		},
		"clonemem_ablation_embedding": {
			`\| k \| metric \| BM25 \| BM25 \(paper\) \| hashed \(offline\) \|`, `\| 10 \| Recall-Flat \| 0\.6579 \[`,
			`\| embedder=hashed reader=extractive \| 10 \| 54 \| 0\.\d+ \[`, `paired difference against embedder=bm25 reader=extractive`,
			`skipped 2 points: needs an embedder model`, `skipped 3 points: needs a backbone model`,
		},
		"clonemem_ablation_units": {
			`\| k \| metric \| w/o mem \|.*\| w/o org \(join=separate\) \|.*\| combined \(join=merge_raw\) \|`,
			`\| system=flat\(bm25,units=summary\+keywords\+facts\+raw,join=separate\) reader=extractive \| 10 \| 54 \| 0\.\d+ \[`,
			`paired difference against system=flat\(bm25,join=none\) reader=extractive`, `\*\*reader = extractive\*\*`,
		},
		"clonemem_breakdown": {
			`### Retrieval by task`, `### Answers by dimension`, `\| trajectory \| Recall-Flat \| 6 \| `,
			`\| opinion \| Choice accuracy \|`, `McNemar exact p = `,
		},
		"knowme_table1": {
			`### sample: Token F1 \(proxy\), percent`, `\| base model \(no memory\) \| 0\.0 \|`,
			`\| Naive RAG \(k=50\) \| \d+\.\d \(\+\d+\.\d\) \|`, `\| Mem0 \| needs a model \|`,
			`the KnowMe-Bench score needs a judge model`, `paired difference against base model \(no memory\)`,
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
	out, _ := runNotebook(t, "knowme_table1", "-p", "data="+knowMeDataset1)
	// The seven tasks in level order, base model first, Mem0 without numbers.
	expect(t, "knowme_table1", out,
		`\| system \| Information Extraction \| Adversarial Abstention \| Temporal Reasoning \| Logical Event Ordering \| Mnestic Trigger Analysis \| Mind-Body Interaction \| Expert-Annotated Psychoanalysis \| overall \|`,
		`\| base model \(no memory\) \| 0\.0 \|`, `\| timeline \| \d+\.\d \(\+\d+\.\d\) \|`, `\| Mem0 \| needs a model \|`,
		`the KnowMe-Bench score needs a judge model`)
	noLLMNames(t, "knowme_table1", out)
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
		"clonemem_qa": {`\| oracle \| 20 \| QA consistency \(LLM judge\) \| 0\.667 \| 2\.000 \| 54 / 0 \|`,
			`\| Memory helpfulness \(LLM judge\) \| 0\.500 \|`, `\| A-Mem k=10 \| 10 \| 54 \| 2\.000 \[`, counts},
		"clonemem_ablation_embedding": {`\| embedder=embedder reader=reader \| 10 \| 54 \|`, `\| 10 \| QA consistency \| `, `QA consistency \(LLM judge\)`},
		"clonemem_ablation_units":     {`\*\*reader = reader\*\*`, `\| 10 \| QA consistency \| `, `QA consistency \(LLM judge\)`},
		"clonemem_breakdown":          {`### LLM judges by task`, counts},
		"knowme_table1":               {`\| base model \(no memory\) \| \d+\.\d \(\d+ / \d+\) \|`, `\| Mem0 \| \d+\.\d \(\d+ / \d+\) \(`},
		"error_analysis":              {`\*\*Judge\*\* clonemem-qa/memlab \(gpt-4o-mini\), QA consistency \(LLM judge\) = 2: fake judge`},
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
