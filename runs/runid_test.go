package runs_test

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// TestRunIDsOfExistingStoresStayTheSame: a run store written by an earlier
// memlab resumes only if the same config over the same dataset still has
// the same spec, byte for byte, and so the same run id. The ids and specs
// below were computed before runs/ was split into record, runstore,
// reports and formats (commit 0f3afea), by running this test's two
// configs through runs.SpecOf and logging Spec.ID() and Spec.JSON(): one
// offline (flat BM25, the extractive reader, k = 5), one with a model
// reader and two LLM judges (one renamed) on a fixed endpoint, and
// notebook parameters. Since component specs they are the legacy ids
// (record.Spec.LegacyID), by which a run stored before them is found and
// adopted: a change to either would make every such run be asked again.
func TestRunIDsOfExistingStoresStayTheSame(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := llm.ParseConfig("fixed.conf", strings.NewReader("[endpoint e]\nbase_url = http://127.0.0.1:9/v1\n"+
		"[role backbone]\nendpoint = e\nmodel = reader-a\n[role judge]\nendpoint = e\nmodel = judge-a\n"),
		func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(conf, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cfg      runs.Config
		id, json string
	}{
		{"offline", runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, "9728cacee368cf96",
			`{"dataset":"sample","fingerprint":"5aca6d877c18191db3a5dda90e66b716209e1dde7b472637366dd473ce70a599","questions":54,"questions_hash":"6f614b014c6e4841","system":"flat-bm25","reader":"extractive (offline)","k":5}`},
		{"models and judges", runs.Config{System: flat, Reader: reader, K: 10, Params: map[string]string{"seed": "7", "embedder": "lsa"},
			Judges: []runs.Judge{
				runs.KnowMeJudge(judge.NewKnowMeJudge(client, nil, judge.Config{})),
				runs.RenameJudge(runs.CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{Model: "judge-b"})), "qa-b"),
			}}, "47f75b1be5a41efd",
			`{"dataset":"sample","fingerprint":"5aca6d877c18191db3a5dda90e66b716209e1dde7b472637366dd473ce70a599","questions":54,"questions_hash":"6f614b014c6e4841","system":"flat-bm25","reader":"model-reader(backbone:reader-a,free=97166dc2675a,mc=fd21e206fe4f,knowme=616a4ff8d2f6) reader-a@e(http://127.0.0.1:9/v1)","k":10,"judges":["knowme/memlab target=judge-a@e(http://127.0.0.1:9/v1),retries=2,max_tokens=0,text=false,prompts=c56075bea5546e35","qa-b target=judge-b@e(http://127.0.0.1:9/v1),retries=2,max_tokens=0,text=false,prompts=b71d5e231b37c138"],"params":{"embedder":"lsa","seed":"7"}}`},
	} {
		spec := runs.SpecOf(d, tc.cfg)
		if got := spec.LegacyJSON(); got != tc.json {
			t.Errorf("%s: legacy spec changed:\n got %s\nwant %s", tc.name, got, tc.json)
		}
		if got := spec.LegacyID(); got != tc.id {
			t.Errorf("%s: run id %s, want %s: every stored run of this config would be asked again", tc.name, got, tc.id)
		}
	}
}
