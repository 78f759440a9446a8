package runs

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

func TestSpecNamesModelsAndEndpointsNeverKeys(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("MEMLAB_JUDGE_MODEL", "judge-a")
	t.Setenv("MEMLAB_BACKBONE_MODEL", "reader-a")
	conf, err := llm.DefaultConfig()
	if err != nil || conf == nil {
		t.Fatalf("config: %v", err)
	}
	client, err := llm.New(conf, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{System: flat, Reader: reader, K: 5,
		Judges: []Judge{KnowMeJudge(judge.NewKnowMeJudge(client, nil, judge.Config{}))}}
	spec := SpecOf(d, cfg)
	js := spec.JSON()
	for _, want := range []string{"reader-a@default(http://127.0.0.1:9/v1)", "target=judge-a@default(http://127.0.0.1:9/v1)", "knowme/memlab"} {
		if !strings.Contains(js, want) {
			t.Errorf("spec lacks %q:\n%s", want, js)
		}
	}
	if strings.Contains(js, key) || strings.Contains(js, "SECRET") {
		t.Fatalf("the spec holds the key:\n%s", js)
	}
	// Another judge model is another run.
	other := cfg
	other.Judges = []Judge{KnowMeJudge(judge.NewKnowMeJudge(client, nil, judge.Config{Model: "judge-b"}))}
	if SpecOf(d, other).ID() == spec.ID() {
		t.Error("changing the judge model kept the run id")
	}
}

func TestCodeVersionNamesTheRevision(t *testing.T) {
	v := record.CodeVersion()
	if v == "" || v == "unknown" {
		t.Fatalf("code version %q", v)
	}
	// In a git checkout (as in CI and development) the revision is there,
	// stamped or asked of git.
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			rev := strings.TrimSpace(string(out))[:12]
			if !strings.Contains(v, rev) {
				t.Errorf("code version %q does not name revision %s", v, rev)
			}
		}
	}
}

func TestErrataMakeAnotherRun(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	cfg := Config{System: flat, K: 5}
	fixed := *d
	fixed.Errata = "errata.csv sha256:0123 (0 excluded, 1 patched)"
	if SpecOf(d, cfg).ID() == SpecOf(&fixed, cfg).ID() {
		t.Error("a patched dataset kept the run id")
	}
	if !strings.Contains(SpecOf(&fixed, cfg).JSON(), `"errata":"errata.csv sha256:0123`) {
		t.Error("the spec does not name the errata")
	}
	if strings.Contains(SpecOf(d, cfg).JSON(), "errata") {
		t.Error("a dataset without errata names errata (run ids of older runs would change)")
	}
}

// TestBM25ConstantsMakeDifferentRuns: a sweep over k1 or b must not resume
// one point's records for another (they once shared a run id).
func TestBM25ConstantsMakeDifferentRuns(t *testing.T) {
	d, def := runtest.SampleFlat(t)
	other, err := retrieval.NewFlat(d, retrieval.BM25Params{K1: 1.5, B: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := retrieval.NewFlat(d, retrieval.DefaultBM25Params())
	if err != nil {
		t.Fatal(err)
	}
	id := func(s retrieval.System) string {
		return SpecOf(d, Config{System: s, Reader: generate.NewExtractive(), K: 10}).ID()
	}
	if id(def) == id(other) || other.Name() != "flat-bm25(k1=1.5,b=0.5)" {
		t.Errorf("b = 0.5 is run %s (%s), the defaults %s", id(other), other.Name(), id(def))
	}
	if id(def) != id(explicit) || def.Name() != "flat-bm25" {
		t.Errorf("the defaults, given or not, are one run: %s %s", id(def), id(explicit))
	}
}

// A parameter or a component name naming a URL with credentials (a
// notebook's -p endpoint=..., a system configured with a server address)
// reaches the spec, the store and the manifest without them; the host
// stays, so two servers are two runs.
func TestSpecLeavesURLCredentialsOut(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	spec := SpecOf(d, Config{System: flat, K: 5, Params: map[string]string{
		"server": "http://alice:SECRET-pw@10.0.0.5:8080/v1?api_key=SECRET-key&region=eu"}})
	js := spec.JSON()
	if strings.Contains(js, "SECRET") || strings.Contains(js, "alice") {
		t.Fatalf("the spec holds a credential: %s", js)
	}
	if !strings.Contains(js, "10.0.0.5:8080/v1") || !strings.Contains(js, "region=eu") {
		t.Fatalf("the spec lost the server's address: %s", js)
	}
	other := SpecOf(d, Config{System: flat, K: 5, Params: map[string]string{"server": "http://10.0.0.6:8080/v1"}})
	if spec.ID() == other.ID() {
		t.Fatal("two servers share a run id")
	}
}
