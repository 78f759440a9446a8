package grid

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

func sample(t testing.TB) *datasets.Dataset {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// alone runs one point as a notebook would without a grid: its system
// built from its spec on its own, no store.
func alone(t *testing.T, env *catalog.Env, d *datasets.Dataset, system, reader string, k int, params map[string]string) *record.Result {
	t.Helper()
	e := *env
	e.Data = d
	sys, err := catalog.System(&e, system)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := catalog.Reader(&e, reader)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runs.Run(context.Background(), d, runs.Config{System: sys, Reader: rd, K: k, Params: params}, runs.Options{NoStore: true, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGridEqualsSeparateRuns: every point of a grid, whose points share
// built systems and searches, has the records and the run id of the same
// configuration run on its own.
func TestGridEqualsSeparateRuns(t *testing.T) {
	d := sample(t)
	g := Grid{Data: d,
		Axes: []record.Axis{
			Axis("system", "flat(bm25)", "timeline", "oracle"),
			Axis("embedder", "bm25", "lsa"),
			Ks(3, 10),
		},
		Params:  map[string]string{"notebook": "test"},
		Options: runs.Options{NoStore: true},
	}
	// timeline and oracle take no embedder: the axis is an error there.
	if _, err := g.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "embedder") {
		t.Fatalf("embedder axis on timeline: %v, want an error naming the embedder", err)
	}
	g.Axes = []record.Axis{Axis("system", "flat(bm25)", "flat(dense:lsa)", "timeline", "oracle"), Ks(3, 10)}
	set, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Points) != 8 {
		t.Fatalf("%d points, want 8", len(set.Points))
	}
	for _, p := range set.Points {
		if p.Err != nil || p.Skipped != nil {
			t.Fatalf("%s: err %v, skipped %v", p.Label, p.Err, p.Skipped)
		}
		k := 3
		if p.Params["k"] == "10" {
			k = 10
		}
		want := alone(t, &catalog.Env{}, d, p.Params["system"], "extractive", k, map[string]string{"notebook": "test"})
		if p.Result.ID != want.ID {
			t.Errorf("%s: run id %s, alone %s", p.Label, p.Result.ID, want.ID)
		}
		runtest.SameRecords(t, p.Result.Records, want.Records)
	}
	if p := set.Points[0]; p.Label != "system=flat(bm25) k=3" || p.System != "flat(bm25)" || p.Reader != "extractive" || p.K != 3 {
		t.Errorf("point 0: %+v", p)
	}
}

// TestSkipsNeedModelTyped: offline, a point whose system needs a model is
// skipped with a *catalog.NeedsModelError naming its role, and a judge
// that needs one is left out with a note; the others run.
func TestSkipsNeedModelTyped(t *testing.T) {
	set, err := Grid{Data: sample(t), Judges: []string{"judge(clonemem)"},
		Axes:    []record.Axis{Axis("system", "flat(bm25)", "mem0"), Axis("reader", "extractive", "qwen3-32b")},
		Options: runs.Options{NoStore: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, p := range set.Points {
		var nm *catalog.NeedsModelError
		switch {
		case p.Params["system"] == "flat(bm25)" && p.Params["reader"] == "extractive":
			if !p.Ran() {
				t.Errorf("%s did not run: %v %v", p.Label, p.Err, p.Skipped)
			}
			ran++
		case !errors.As(p.Skipped, &nm):
			t.Errorf("%s: skipped = %v, want a NeedsModelError", p.Label, p.Skipped)
		case p.Params["system"] == "mem0" && nm.Role != "extractor":
			t.Errorf("%s: role %q, want extractor", p.Label, nm.Role)
		case p.Params["system"] != "mem0" && (nm.Role != "backbone" || nm.Component != "reader(model=qwen3-32b)"):
			t.Errorf("%s: %+v, want the backbone of reader(model=qwen3-32b)", p.Label, nm)
		}
	}
	if ran != 1 {
		t.Fatalf("%d points ran, want 1", ran)
	}
	if len(set.Notes) != 1 || !strings.Contains(set.Notes[0], "judge(clonemem)") {
		t.Errorf("notes %q, want one naming judge(clonemem)", set.Notes)
	}
}

// TestRerunComputesNothing: with a store, a grid run again takes every
// record from the store, and a grid with one more point computes only it.
func TestRerunComputesNothing(t *testing.T) {
	st := runtest.OpenStore(t)
	g := Grid{Data: sample(t), Axes: []record.Axis{Axis("system", "flat(bm25)", "timeline"), Ks(5, 10)},
		Options: runs.Options{Store: st}}
	if _, err := g.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.Axes[0].Values = append(g.Axes[0].Values, "flat(dense:lsa)")
	set, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fresh := 0
	for _, p := range set.Points {
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		if p.Result.Resumed == len(p.Result.Records) {
			continue
		}
		if p.Params["system"] != "flat(dense:lsa)" || p.Result.Resumed != 0 {
			t.Errorf("%s: resumed %d of %d", p.Label, p.Result.Resumed, len(p.Result.Records))
		}
		fresh++
	}
	if fresh != 2 {
		t.Fatalf("%d points computed, want the 2 new ones", fresh)
	}
}

// TestMemoryBuiltOnce: points that differ in k and reader share one Mem0:
// its extraction calls are those of one run, not one per point.
func TestMemoryBuiltOnce(t *testing.T) {
	d := sample(t)
	var calls atomic.Int64
	script := func(call llmtest.ChatCall) (string, error) {
		if strings.HasPrefix(call.LastUser(), "Input:") {
			calls.Add(1)
			return `{"facts": []}`, nil
		}
		return "A", nil
	}
	env := &catalog.Env{Client: runtest.FakeClient(t, script)}
	alone(t, env, d, "mem0", "extractive", 10, nil)
	one := calls.Swap(0)
	if one == 0 {
		t.Fatal("mem0 made no extraction call")
	}
	set, err := Grid{Data: d, Env: env, System: "mem0",
		Axes:    []record.Axis{Ks(5, 10, 20), Axis("reader", "extractive", "reader")},
		Options: runs.Options{NoStore: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Points {
		if !p.Ran() || p.Err != nil {
			t.Fatalf("%s: %v %v", p.Label, p.Err, p.Skipped)
		}
	}
	if got := calls.Load(); got != one {
		t.Fatalf("6 points made %d extraction calls, one run makes %d", got, one)
	}
}

// TestSharedOutOfOrder: a view that asks a later question first (its
// run resumed the earlier ones) does not make an incremental memory skip
// ahead of another view's earlier question.
func TestSharedOutOfOrder(t *testing.T) {
	d := sample(t)
	sys, err := catalog.System(&catalog.Env{Data: d}, "memos")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := retrieval.NewShared(d, sys, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	a, b := sh.View(), sh.View()
	ctx := context.Background()
	qs := d.Questions
	var last datasets.Question
	for _, q := range qs {
		if q.CorpusID == qs[0].CorpusID && q.AskedAt.After(last.AskedAt) {
			last = q
		}
	}
	if _, err := a.Retrieve(ctx, last, 5); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if _, err := b.Retrieve(ctx, q, 5); err != nil {
			t.Fatalf("question %s after a later one: %v", q.ID, err)
		}
	}
	if _, err := b.Retrieve(ctx, qs[0], 7); err == nil {
		t.Fatal("k = 7, not shared, did not fail")
	}
}

func TestParseAxis(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{"system=flat(bm25),timeline", []string{"flat(bm25)", "timeline"}, ""},
		{"system=flat(bm25,units=facts+raw), decomposed(flat(dense:lsa))", []string{"flat(bm25,units=facts+raw)", "decomposed(flat(dense:lsa))"}, ""},
		{"k=5,10", []string{"5", "10"}, ""},
		{"system=flat(bm25", nil, "not closed"},
		{"system=a,,b", nil, "empty"},
		{"system=a,a", nil, "twice"},
		{"nothing", nil, "want name="},
	}
	for _, c := range cases {
		a, err := ParseAxis(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(a.Values, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q %v, want %q", c.in, a.Values, err, c.want)
		}
	}
}

// TestAxisErrors: an axis no component takes, or a bad value, is an error
// naming it.
func TestAxisErrors(t *testing.T) {
	for _, c := range []struct {
		axis record.Axis
		want string
	}{
		{Axis("colour", "red"), `axis "colour"`},
		{Axis("k", "ten"), "not a positive integer"},
		{Axis("system", "flatt"), "flat"},
		{Axis("join", "merge_rw"), "merge_raw"},
		{Axis("persona", "nobody"), "no corpus"},
	} {
		_, err := Grid{Data: sample(t), Axes: []record.Axis{c.axis}}.Points()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.axis, err, c.want)
		}
	}
	pts, err := Grid{Data: sample(t), Axes: []record.Axis{Axis("embedder", "text-embedding-3-small"), Axis("reader", "qwen3-32b"), Axis("topic_boost", "0.5")}, System: "flat(bm25)"}.Points()
	if err == nil {
		t.Fatalf("topic_boost on flat: no error (%v)", pts)
	}
	pts, err = Grid{Data: sample(t), Axes: []record.Axis{Axis("embedder", "text-embedding-3-small"), Axis("reader", "qwen3-32b")}}.Points()
	if err != nil {
		t.Fatal(err)
	}
	if want := "system=flat(dense:embedder(model=text-embedding-3-small)) reader=reader(model=qwen3-32b) judges= k=10"; pts[0] != want {
		t.Errorf("point %q, want %q", pts[0], want)
	}
}

// TestDryRunCountsSharedWorkOnce: a dry run's estimates count a memory
// built for several points once, and its searches once per depth it is
// searched at; no call is made.
func TestDryRunCountsSharedWorkOnce(t *testing.T) {
	d := sample(t)
	var calls atomic.Int64
	env := &catalog.Env{Client: runtest.FakeClient(t, func(llmtest.ChatCall) (string, error) { calls.Add(1); return "{}", nil })}
	t.Setenv(llm.DryRunEnv, "1")
	set, err := Grid{Data: d, Env: env, System: "mem0", Axes: []record.Axis{Ks(5, 10), Axis("reader", "extractive", "reader")},
		Options: runs.Options{NoStore: true}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ingest, counted := 0, 0
	for _, p := range set.Points {
		if p.Result == nil || p.Result.Estimate == nil {
			t.Fatalf("%s: no estimate (%v)", p.Label, p.Err)
		}
		if c := p.Result.Estimate.Ingest.Calls; c > 0 {
			ingest, counted = c, counted+1
		}
	}
	if counted != 1 || ingest == 0 {
		t.Fatalf("ingest counted at %d points (%d calls), want once", counted, ingest)
	}
	if calls.Load() != 0 {
		t.Fatalf("a dry run made %d calls", calls.Load())
	}
}
