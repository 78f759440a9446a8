package runstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// TestBeginAdoptsALegacyRun: a run stored under its legacy id (the spec
// before component specs) is re-keyed by Begin of the same config with its
// records and its failure history; a legacy run of another spec under that
// id is an inconsistent store, an error.
func TestBeginAdoptsALegacyRun(t *testing.T) {
	runtest.EachBackend(t, testBeginAdoptsALegacyRun)
}

func testBeginAdoptsALegacyRun(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	d, flat := runtest.SampleFlat(t)
	spec := runs.SpecOf(d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5})
	var legacy record.Spec
	if err := json.Unmarshal([]byte(spec.LegacyJSON()), &legacy); err != nil {
		t.Fatal(err)
	}
	l, err := st.Begin(ctx, legacy, "old", false)
	if err != nil {
		t.Fatal(err)
	}
	q := d.Questions[0].ID
	if err := st.Put(ctx, spec.LegacyID(), 0, 1, record.Record{QuestionID: q, Failure: "retrieve: 503"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, spec.LegacyID(), 0, 2, record.Record{QuestionID: q, Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(retrieval.Meter{}, time.Second); err != nil {
		t.Fatal(err)
	}
	l, err = st.Begin(ctx, spec, "new", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(retrieval.Meter{}, time.Second); err != nil {
		t.Fatal(err)
	}
	recs, err := st.Records(spec.ID())
	if err != nil || len(recs) != 1 || recs[0].QuestionID != q {
		t.Fatalf("records under the new id: %v, %v", recs, err)
	}
	fails, err := st.Failures(spec.ID())
	if err != nil || len(fails) != 1 || fails[0].Failure != "retrieve: 503" {
		t.Fatalf("failures under the new id: %v, %v", fails, err)
	}
	if old, err := st.Records(spec.LegacyID()); err != nil || len(old) != 0 {
		t.Errorf("records left under the legacy id: %v, %v", old, err)
	}
	if info, err := st.Run(spec.ID()); err != nil || info.Spec.ID() != spec.ID() || info.Sessions != 2 {
		t.Errorf("adopted run: %+v, %v", info, err)
	}

	// Another config with the same legacy id but another legacy spec
	// stored under it: the store is inconsistent.
	other := runs.SpecOf(d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 7})
	if _, err := st.Exec(`INSERT INTO runs (id, label, dataset, fingerprint, system, reader, k, spec, code_version, questions,
		created_at, updated_at) VALUES (?, 'x', '', '', '', '', 7, ?, '', 0, 0, 0)`, other.LegacyID(), `{"k":8}`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Begin(ctx, other, "other", false); err == nil || !strings.Contains(err.Error(), "legacy run "+other.LegacyID()) ||
		!strings.Contains(err.Error(), "inconsistent") {
		t.Errorf("a legacy run of another spec: error %v", err)
	}
}
