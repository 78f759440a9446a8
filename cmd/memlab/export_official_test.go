package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/formats"
)

// storedRun runs one Flat BM25 grid point over data (offline, extractive
// reader) into the store and returns the new run's id.
func storedRun(t *testing.T, store, data string) string {
	t.Helper()
	list := func() map[string]bool {
		code, stdout, stderr := memlab(t, "runs", "list", "-store", store)
		if code != 0 && !strings.Contains(stderr, "no such file") && !strings.Contains(stderr, "does not exist") {
			t.Fatalf("runs list: exit %d\n%s%s", code, stdout, stderr)
		}
		ids := map[string]bool{}
		for _, m := range regexp.MustCompile(`\| ([0-9a-f]{16}) \|`).FindAllStringSubmatch(stdout, -1) {
			ids[m[1]] = true
		}
		return ids
	}
	before := list()
	if code, stdout, stderr := memlab(t, "grid", "-data", data, "-p", "system=flat(bm25)", "-k", "5", "-store", store, "-quiet"); code != 0 {
		t.Fatalf("grid over %s: exit %d\n%s\n%s", data, code, stdout, stderr)
	}
	for id := range list() {
		if !before[id] {
			return id
		}
	}
	t.Fatalf("grid over %s stored no new run", data)
	return ""
}

// TestRunsExportOfficialFormats: runs export writes a stored run in the
// official scorers' inputs (CloneMem's results files, KnowMe-Bench's judge
// input, LoCoMo's qa files), which read back with one entry per record;
// a dataset of another benchmark or another fingerprint, a missing -data
// or -o, or two runs are errors that say so.
func TestRunsExportOfficialFormats(t *testing.T) {
	offlineEnv(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")

	sample := storedRun(t, store, "sample")
	out := filepath.Join(dir, "clonemem")
	code, stdout, stderr := memlab(t, "runs", "export", "-store", store, "-format", "clonemem", "-data", "sample", "-o", out, sample)
	if code != 0 || !strings.Contains(stdout, "wrote 54 records of run "+sample) {
		t.Fatalf("clonemem: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		items, err := formats.ReadCloneMem(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n += len(items)
	}
	if len(files) != 2 || n != 54 {
		t.Errorf("clonemem: %d files with %d questions, want 2 personas' files with 54", len(files), n)
	}

	knowme := "../../datasets/testdata/knowme"
	km := storedRun(t, store, knowme)
	code, stdout, stderr = memlab(t, "runs", "export", "-store", store, "-format", "knowme", "-data", knowme, km)
	if code != 0 {
		t.Fatalf("knowme: exit %d\n%s\n%s", code, stdout, stderr)
	}
	items, err := formats.ReadKnowMe(strings.NewReader(stdout))
	d, _ := datasets.Open(knowme)
	if err != nil || len(items) != len(d.Questions) {
		t.Errorf("knowme: %d items (%v), want %d", len(items), err, len(d.Questions))
	}

	conv := `{"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "I love pottery classes."}],
  "qa": [{"question": "What is the name of Ann's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
         {"question": "What does Bo love?", "answer": "pottery classes", "evidence": ["D1:2"], "category": 4}]}`
	locomo := filepath.Join(dir, "07.json")
	if err := os.WriteFile(locomo, []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
	lc := storedRun(t, store, locomo)
	out = filepath.Join(dir, "locomo")
	code, stdout, stderr = memlab(t, "runs", "export", "-store", store, "-format", "locomo", "-data", locomo, "-key", "bm25_top_5", "-o", out, lc)
	if code != 0 {
		t.Fatalf("locomo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "07.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		QA []map[string]any `json:"qa"`
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.QA) != 2 || f.QA[0]["bm25_top_5_prediction"] == nil || f.QA[1]["bm25_top_5_prediction_context"] == nil {
		t.Errorf("locomo file (%v):\n%s", err, b)
	}

	for _, c := range []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"another benchmark's data", []string{"-format", "knowme", "-data", "sample", sample}, 2, "is a clonemem dataset"},
		{"another fingerprint", []string{"-format", "clonemem", "-data", "../../datasets/testdata/clonemem", "-o", filepath.Join(dir, "x"), sample}, 1, "give the run's dataset"},
		{"no -data", []string{"-format", "clonemem", "-o", filepath.Join(dir, "x"), sample}, 2, "needs -data PATH"},
		{"no -o", []string{"-format", "locomo", "-data", locomo, lc}, 2, "-o DIR"},
		{"two runs", []string{"-format", "clonemem", "-data", "sample", "-o", filepath.Join(dir, "x"), sample, km}, 2, "takes one RUN"},
		{"-data with csv", []string{"-data", "sample", sample}, 2, "-data is for"},
	} {
		code, stdout, stderr := memlab(t, append([]string{"runs", "export", "-store", store}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s\n%s", c.desc, code, c.code, c.want, stdout, stderr)
		}
	}
}
