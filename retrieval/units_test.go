package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// fakeExtractor answers by rule: summary "S(text)", keywords "k1","k2",
// facts one item per word; empty text gives no items; a text containing
// "FAIL" gives an error.
type fakeExtractor struct{ calls int }

func (f *fakeExtractor) Name() string { return "fake" }

func (f *fakeExtractor) Extract(ctx context.Context, kind, text string) ([]string, error) {
	f.calls++
	if strings.Contains(text, "FAIL") {
		return nil, errors.New("model returned invalid json")
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	switch kind {
	case llm.ExtractSummary:
		return []string{"S(" + text + ")"}, nil
	case llm.ExtractKeywords:
		return []string{"k1", " ", "k2"}, nil
	default:
		return strings.Fields(text), nil
	}
}

var three = []datasets.Trace{
	{ID: "a", Time: day(1), Text: "red fox"},
	{ID: "b", Time: day(2), Text: "blue"},
	{ID: "c", Time: day(3), Text: ""},
}

type u struct{ id, kind, text string }

func brief(us []Unit) []u {
	var out []u
	for _, x := range us {
		out = append(out, u{x.ID, x.Kind, x.Text})
	}
	return out
}

func TestBuildUnitsJoinModes(t *testing.T) {
	sk := []string{llm.ExtractSummary, llm.ExtractFacts}
	tests := []struct {
		opts     UnitOptions
		want     []u
		fallback int
	}{
		{UnitOptions{}, []u{{"a", KindChunk, "red fox"}, {"b", KindChunk, "blue"}, {"c", KindChunk, ""}}, 0},
		{UnitOptions{Expansions: sk, Join: JoinSeparate}, []u{
			{"a#summ", KindSummary, "S(red fox)"}, {"a#facts", KindFacts, "red; fox"},
			{"b#summ", KindSummary, "S(blue)"}, {"b#facts", KindFacts, "blue"},
			{"c", KindChunk, ""}}, 1},
		{UnitOptions{Expansions: sk, Join: JoinSeparate, UseRaw: true}, []u{
			{"a", KindChunk, "red fox"}, {"a#summ", KindSummary, "S(red fox)"}, {"a#facts", KindFacts, "red; fox"},
			{"b", KindChunk, "blue"}, {"b#summ", KindSummary, "S(blue)"}, {"b#facts", KindFacts, "blue"},
			{"c", KindChunk, ""}}, 0},
		{UnitOptions{Expansions: sk, Join: JoinMerge}, []u{
			{"a#merged", KindMerged, "S(red fox)\nred; fox"}, {"b#merged", KindMerged, "S(blue)\nblue"},
			{"c", KindChunk, ""}}, 1},
		{UnitOptions{Expansions: sk, Join: JoinMerge, UseRaw: true}, []u{
			{"a#merged", KindMerged, "S(red fox)\nred; fox"}, {"a", KindChunk, "red fox"},
			{"b#merged", KindMerged, "S(blue)\nblue"}, {"b", KindChunk, "blue"},
			{"c", KindChunk, ""}}, 0},
		{UnitOptions{Expansions: []string{llm.ExtractKeywords}, Join: JoinMergeRaw}, []u{
			{"a#merged_raw", KindMergedRaw, "red fox\nk1; k2"}, {"b#merged_raw", KindMergedRaw, "blue\nk1; k2"},
			{"c#merged_raw", KindMergedRaw, ""}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.opts.Join+tc.opts.Label(), func(t *testing.T) {
			ex := &fakeExtractor{}
			units, rep, err := BuildUnits(context.Background(), three, ex, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := brief(units); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("units\n got %v\nwant %v", got, tc.want)
			}
			for _, x := range units {
				tr := three[strings.IndexByte("abc", x.ID[0])]
				if len(x.TraceIDs) != 1 || x.TraceIDs[0] != tr.ID || !x.Time.Equal(tr.Time) {
					t.Errorf("unit %s: traces %v time %v, want [%s] %v", x.ID, x.TraceIDs, x.Time, tr.ID, tr.Time)
				}
			}
			if rep.RawFallback != tc.fallback || rep.Units != len(units) || rep.Traces != 3 || rep.Calls != ex.calls {
				t.Errorf("report %+v, want fallback %d, units %d, calls %d", rep, tc.fallback, len(units), ex.calls)
			}
			if ex.calls != 3*len(tc.opts.Expansions) {
				t.Errorf("extractor calls = %d, want %d", ex.calls, 3*len(tc.opts.Expansions))
			}
		})
	}
}

func TestBuildUnitsExtractorFailure(t *testing.T) {
	traces := []datasets.Trace{{ID: "ok", Text: "fine day"}, {ID: "bad", Text: "FAIL here"}}
	units, rep, err := BuildUnits(context.Background(), traces, &fakeExtractor{},
		UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractSummary}, Join: JoinSeparate})
	if err != nil {
		t.Fatal(err)
	}
	want := []u{{"ok#facts", KindFacts, "fine; day"}, {"ok#summ", KindSummary, "S(fine day)"}, {"bad", KindChunk, "FAIL here"}}
	if got := brief(units); !reflect.DeepEqual(got, want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	if rep.Failed != 2 || rep.Calls != 4 || rep.RawFallback != 1 || len(rep.Failures) != 2 || !strings.Contains(rep.Failures[0], "trace bad facts: model returned invalid json") {
		t.Errorf("report %+v", rep)
	}
}

func TestBuildUnitsErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts UnitOptions
		ex   llm.Extractor
		want string
	}{
		{UnitOptions{Expansions: []string{llm.ExtractFacts}, Join: JoinNone}, &fakeExtractor{}, `join "none" with expansions`},
		{UnitOptions{Expansions: []string{"tags"}}, &fakeExtractor{}, `unknown expansion "tags"`},
		{UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractFacts}}, &fakeExtractor{}, "listed twice"},
		{UnitOptions{Join: "zip"}, &fakeExtractor{}, `unknown join "zip"`},
		{UnitOptions{Join: JoinMerge}, &fakeExtractor{}, "needs at least one expansion"},
		{UnitOptions{Expansions: []string{llm.ExtractFacts}}, nil, "need an extractor"},
	} {
		_, _, err := BuildUnits(ctx, three, tc.ex, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "retrieval: build units: ") {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := BuildUnits(cctx, three, &fakeExtractor{}, UnitOptions{Expansions: []string{llm.ExtractFacts}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestAggregateScores(t *testing.T) {
	units := []Unit{
		{ID: "a", Kind: KindChunk, TraceIDs: []string{"a"}},
		{ID: "a#s", Kind: KindSummary, TraceIDs: []string{"a"}},
		{ID: "a#f1", Kind: KindFacts, TraceIDs: []string{"a"}},
		{ID: "a#f2", Kind: KindFacts, TraceIDs: []string{"a"}},
		{ID: "b", Kind: KindChunk, TraceIDs: []string{"b"}},
		{ID: "b#s", Kind: KindSummary, TraceIDs: []string{"b"}},
		{ID: "c", Kind: "", TraceIDs: []string{"c"}}, // raw only: fallback
		{ID: "d#s", Kind: KindSummary, TraceIDs: []string{"d"}},
		{ID: "e", Kind: KindChunk, TraceIDs: []string{"e"}},
	}
	nan := func() float64 { var z float64; return z / z }()
	scores := []float64{3, 1, 2, 4, 0.5, 2, 1.5, 2, nan}
	// a: raw 3, summ 1, facts mean(2,4)=3 -> use raw: (3+1+3)/3 = 7/3; no raw: (1+3)/2 = 2
	// b: raw 0.5, summ 2 -> 1.25 / 2;  c: 1.5 both;  d: 2 both;  e: not admitted.
	for _, tc := range []struct {
		raw  bool
		want []TraceScore
	}{
		{true, []TraceScore{{"a", 7.0 / 3}, {"d", 2}, {"c", 1.5}, {"b", 1.25}}},
		{false, []TraceScore{{"a", 2}, {"b", 2}, {"d", 2}, {"c", 1.5}}},
	} {
		got, err := AggregateScores(units, scores, tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("raw=%v: got %v, want %v", tc.raw, got, tc.want)
		}
		for i := range got {
			if got[i].TraceID != tc.want[i].TraceID || !near(got[i].Score, tc.want[i].Score) {
				t.Errorf("raw=%v: %d = %v, want %v", tc.raw, i, got[i], tc.want[i])
			}
		}
	}
	if _, err := AggregateScores(units, scores[:2], true); err == nil {
		t.Error("length mismatch: no error")
	}
}
