package viewer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// lruStore is a run store with runs a, b and c of 30, 30 and 10 records,
// opened read-only; the ids by label.
func lruStore(t *testing.T) (*runstore.Store, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids := map[string]string{}
	ctx := context.Background()
	for _, run := range []struct {
		label string
		n     int
	}{{"a", 30}, {"b", 30}, {"c", 10}} {
		spec := record.Spec{Dataset: "synthetic", Fingerprint: run.label, Questions: run.n, QuestionsHash: run.label, System: "flat", K: 10}
		lease, err := st.Begin(ctx, spec, run.label, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := range run.n {
			r := record.Record{QuestionID: fmt.Sprintf("%s%02d", run.label, i), CorpusID: "p", Task: "t", K: 10,
				Retrieval: retrieval.RetrievalScore{K: 10, HasGold: true, AllAny: float64(i % 2)}}
			if err := st.Put(ctx, spec.ID(), i, 1, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := lease.Release(retrieval.Meter{}, time.Second); err != nil {
			t.Fatal(err)
		}
		ids[run.label] = spec.ID()
	}
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	return ro, ids
}

// TestRecordCacheIsBounded: the viewer keeps at most Options.MaxRecords
// records, dropping the runs used least recently (a run larger than the
// bound is kept alone); a dropped run's page reads it again, and the runs
// page still shows its means without reading it.
func TestRecordCacheIsBounded(t *testing.T) {
	st, ids := lruStore(t)
	h := New(st, Options{MaxRecords: 50, Refresh: -1})
	v := h.(*viewer)
	srv := httptest.NewServer(h)
	defer srv.Close()
	visit := func(label string) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/run/" + ids[label])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("run %s: status %d", label, resp.StatusCode)
		}
	}
	held := func(want int, labels ...string) {
		t.Helper()
		v.mu.Lock()
		n, got := v.runs.records()
		v.mu.Unlock()
		var wantIDs []string
		for _, l := range labels {
			wantIDs = append(wantIDs, ids[l])
		}
		if n != want || !slices.Equal(got, wantIDs) {
			t.Fatalf("cache holds %d records of %v, want %d of runs %v", n, got, want, labels)
		}
	}
	visit("a")
	held(30, "a")
	visit("b") // 60 > 50: a goes
	held(30, "b")
	visit("c")
	held(40, "c", "b")
	visit("b") // used: b first
	held(40, "b", "c")
	visit("a") // 70: c, the least recently used, goes, then b
	held(30, "a")
	// The runs page shows every run's means, none read again.
	v.mu.Lock()
	v.runs = newRunCache(50)
	v.mu.Unlock()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	held(0)
	for _, l := range []string{"a", "b", "c"} {
		info, err := st.Run(ids[l])
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := v.summary(info); !ok || s.Questions == 0 {
			t.Errorf("run %s's means are not kept", l)
		}
	}

	// A bound smaller than a run keeps that run alone; no bound keeps all.
	small := New(st, Options{MaxRecords: 20, Refresh: -1}).(*viewer)
	for _, l := range []string{"a", "c", "b"} {
		if _, err := small.load(ids[l]); err != nil {
			t.Fatal(err)
		}
	}
	if n, got := small.runs.records(); n != 30 || !slices.Equal(got, []string{ids["b"]}) {
		t.Errorf("bound 20: cache holds %d records of %v, want run b's 30 alone", n, got)
	}
	all := New(st, Options{MaxRecords: -1, Refresh: -1}).(*viewer)
	for _, l := range []string{"a", "b", "c"} {
		if _, err := all.load(ids[l]); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := all.runs.records(); n != 70 {
		t.Errorf("no bound: cache holds %d records, want 70", n)
	}
	if d := New(st, Options{}).(*viewer); d.opts.MaxRecords != DefaultMaxRecords {
		t.Errorf("default bound %d, want %d", d.opts.MaxRecords, DefaultMaxRecords)
	}
}

// TestDroppedRunServedAgain: a page of a run dropped from the cache reads
// it again and shows the same.
func TestDroppedRunServedAgain(t *testing.T) {
	st, ids := lruStore(t)
	srv := httptest.NewServer(New(st, Options{MaxRecords: 30, Refresh: -1}))
	defer srv.Close()
	first := get(t, srv, "/run/"+ids["a"]+"?outcome=allany1")
	get(t, srv, "/run/"+ids["b"])
	if again := get(t, srv, "/run/"+ids["a"]+"?outcome=allany1"); again != first || !strings.Contains(again, "15 of 30 questions") {
		t.Errorf("run a read again shows another page (or not its 15 questions of All-Any = 1)")
	}
}

func get(t *testing.T, srv *httptest.Server, path string) string {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return string(b)
}
