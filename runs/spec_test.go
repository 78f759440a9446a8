package runs

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
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
	d, flat := sampleFlat(t)
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
	v := CodeVersion()
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
	d, flat := sampleFlat(t)
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
