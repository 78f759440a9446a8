package runs

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// TestRunAdoptsARunStoredUnderItsLegacyID: a run store written before
// component specs keeps a run under its legacy id (the hash of the display
// names) with the legacy spec. Run over the same config finds it, re-keys
// it and its records to the new id and resumes it: no question is read
// again, and the legacy id is gone.
func TestRunAdoptsARunStoredUnderItsLegacyID(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	r := &countingReader{Reader: generate.NewExtractive()}
	cfg := Config{System: flat, Reader: r, K: 5}
	ref, err := Run(context.Background(), d, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec := SpecOf(d, cfg)
	if spec.ID() == spec.LegacyID() {
		t.Fatalf("new and legacy ids are both %s", spec.ID())
	}

	// The store as the code before component specs wrote it.
	st := runtest.OpenStore(t)
	var legacy record.Spec
	if err := json.Unmarshal([]byte(spec.LegacyJSON()), &legacy); err != nil {
		t.Fatal(err)
	}
	if legacy.ID() != spec.LegacyID() || legacy.JSON() != spec.LegacyJSON() {
		t.Fatalf("legacy spec read back: id %s, want %s", legacy.ID(), spec.LegacyID())
	}
	l, err := st.Begin(context.Background(), legacy, "flat k=5", false)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range ref.Records {
		if err := st.Put(context.Background(), spec.LegacyID(), i, 1, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Release(retrieval.Meter{}, time.Second); err != nil {
		t.Fatal(err)
	}

	calls := r.n.Load()
	again, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.n.Load() - calls; got != 0 {
		t.Errorf("resuming a legacy run called the reader %d times, want 0", got)
	}
	if again.ID != spec.ID() || again.Resumed != len(d.Questions) {
		t.Errorf("resumed run: id %s (want %s), resumed %d of %d", again.ID, spec.ID(), again.Resumed, len(d.Questions))
	}
	runtest.SameRecords(t, again.Records, ref.Records)
	if _, err := st.Run(spec.LegacyID()); err == nil {
		t.Errorf("the legacy id %s is still in the store", spec.LegacyID())
	}
	info, err := st.Run(spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete() || info.Sessions != 2 || info.Spec.JSON() != spec.JSON() || info.Spec.ID() != spec.ID() {
		t.Errorf("adopted run: complete %v, sessions %d, spec %s (id %s), want %s (id %s)",
			info.Complete(), info.Sessions, info.Spec.JSON(), info.Spec.ID(), spec.JSON(), spec.ID())
	}
}
