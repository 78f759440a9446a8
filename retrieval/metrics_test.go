package retrieval

import (
	"math"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func groups(sets ...[]string) []datasets.EvidenceGroup {
	var gs []datasets.EvidenceGroup
	for _, s := range sets {
		gs = append(gs, datasets.EvidenceGroup{TraceIDs: s})
	}
	return gs
}

// 1/log2(i+1) for ranks 1..3: 1, 0.6309297535714575, 0.5.
var (
	g2 = 1 / math.Log2(3)
	g3 = 0.5
)

func TestScoreRetrieval(t *testing.T) {
	tests := []struct {
		desc   string
		ranked []string
		groups []datasets.EvidenceGroup
		k      int
		want   RetrievalScore
	}{
		{
			// top3 = a x b; gold {a,b,c}; G1 complete, G2 untouched.
			// DCG = 1 + 0.5 (ranks 1 and 3); IDCG = 1 + g2 + 0.5.
			desc: "any-all but not all-any", ranked: []string{"a", "x", "b", "y"},
			groups: groups([]string{"a", "b"}, []string{"c"}), k: 3,
			want: RetrievalScore{K: 3, HasGold: true, RecallFlat: 2.0 / 3, AllAll: 0, AllAny: 0, AnyAll: 1, AnyAny: 1,
				MRR: 1, NDCG: 1.5 / (1.5 + g2)},
		},
		{
			// top3 = x a c; every group touched, none complete.
			// Recall 2/4; MRR 1/2; DCG = g2 + 0.5; IDCG (min(4,3)=3) = 1 + g2 + 0.5.
			desc: "all-any but not any-all", ranked: []string{"x", "a", "c", "b"},
			groups: groups([]string{"a", "b"}, []string{"c", "d"}), k: 3,
			want: RetrievalScore{K: 3, HasGold: true, RecallFlat: 0.5, AllAll: 0, AllAny: 1, AnyAll: 0, AnyAny: 1,
				MRR: 0.5, NDCG: (g2 + g3) / (1 + g2 + g3)},
		},
		{
			// The empty group is ignored: otherwise All-Any would be 0.
			desc: "empty groups ignored", ranked: []string{"a"},
			groups: groups(nil, []string{"a"}, []string{}), k: 1,
			want: RetrievalScore{K: 1, HasGold: true, RecallFlat: 1, AllAll: 1, AllAny: 1, AnyAll: 1, AnyAny: 1, MRR: 1, NDCG: 1},
		},
		{
			// Deduplicated before the cut: top2 = a b (not a a). b at rank 2:
			// MRR 1/2, DCG = g2, IDCG = 1.
			desc: "duplicate ids across units", ranked: []string{"a", "a", "b", "a", "c"},
			groups: groups([]string{"b"}), k: 2,
			want: RetrievalScore{K: 2, HasGold: true, RecallFlat: 1, AllAll: 1, AllAny: 1, AnyAll: 1, AnyAny: 1, MRR: 0.5, NDCG: g2},
		},
		{
			// Repeated ids inside and across groups count once in the gold union {a,b}.
			desc: "repeated gold ids", ranked: []string{"b", "a"},
			groups: groups([]string{"a", "a"}, []string{"a", "b"}), k: 5,
			want: RetrievalScore{K: 5, HasGold: true, RecallFlat: 1, AllAll: 1, AllAny: 1, AnyAll: 1, AnyAny: 1, MRR: 1, NDCG: 1},
		},
		{
			// k beyond the list: the whole list counts; IDCG over min(3,10)=3 ranks.
			// Recall 1/3; MRR 1/2; DCG = g2; IDCG = 1 + g2 + 0.5.
			desc: "k beyond list length", ranked: []string{"x", "a"},
			groups: groups([]string{"a", "b", "c"}), k: 10,
			want: RetrievalScore{K: 10, HasGold: true, RecallFlat: 1.0 / 3, AllAll: 0, AllAny: 1, AnyAll: 0, AnyAny: 1,
				MRR: 0.5, NDCG: g2 / (1 + g2 + g3)},
		},
		{
			desc: "k zero keeps nothing", ranked: []string{"a", "b"},
			groups: groups([]string{"a"}), k: 0,
			want: RetrievalScore{K: 0, HasGold: true},
		},
		{
			desc: "gold outside top k", ranked: []string{"x", "y", "a"},
			groups: groups([]string{"a"}), k: 2,
			want: RetrievalScore{K: 2, HasGold: true},
		},
		{
			desc: "empty ranking", ranked: nil,
			groups: groups([]string{"a"}), k: 5,
			want: RetrievalScore{K: 5, HasGold: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := ScoreRetrieval(tc.ranked, tc.groups, tc.k)
			if got.K != tc.want.K || got.HasGold != tc.want.HasGold {
				t.Fatalf("K, HasGold = %d, %v; want %d, %v", got.K, got.HasGold, tc.want.K, tc.want.HasGold)
			}
			checkScores(t, got, tc.want)
		})
	}
}

func checkScores(t *testing.T, got, want RetrievalScore) {
	t.Helper()
	pairs := []struct {
		name      string
		got, want float64
	}{
		{"RecallFlat", got.RecallFlat, want.RecallFlat}, {"AllAll", got.AllAll, want.AllAll},
		{"AllAny", got.AllAny, want.AllAny}, {"AnyAll", got.AnyAll, want.AnyAll},
		{"AnyAny", got.AnyAny, want.AnyAny}, {"MRR", got.MRR, want.MRR}, {"NDCG", got.NDCG, want.NDCG},
	}
	for _, p := range pairs {
		if math.IsNaN(p.want) != math.IsNaN(p.got) || (!math.IsNaN(p.want) && !near(p.got, p.want)) {
			t.Errorf("%s = %v, want %v", p.name, p.got, p.want)
		}
	}
}

func TestScoreRetrievalNoGold(t *testing.T) {
	nan := math.NaN()
	for _, gs := range [][]datasets.EvidenceGroup{nil, groups(nil, []string{}), {{Statement: "no ids"}}} {
		got := ScoreRetrieval([]string{"a", "b"}, gs, 5)
		if got.HasGold || got.K != 5 {
			t.Errorf("groups %v: HasGold, K = %v, %d; want false, 5", gs, got.HasGold, got.K)
		}
		checkScores(t, got, RetrievalScore{RecallFlat: nan, AllAll: nan, AllAny: nan, AnyAll: nan, AnyAny: nan, MRR: nan, NDCG: nan})
	}
}

func TestMeanRetrieval(t *testing.T) {
	a := ScoreRetrieval([]string{"a"}, groups([]string{"a"}), 5)           // all 1
	b := ScoreRetrieval([]string{"x", "a"}, groups([]string{"a", "b"}), 5) // recall 1/2, MRR 1/2
	none := ScoreRetrieval([]string{"a"}, nil, 5)                          // NaN, excluded

	mean, with, without := MeanRetrieval([]RetrievalScore{a, none, b})
	if with != 2 || without != 1 || !mean.HasGold || mean.K != 5 {
		t.Fatalf("counts %d/%d, HasGold %v, K %d; want 2/1, true, 5", with, without, mean.HasGold, mean.K)
	}
	// b: AllAll 0, AllAny 1, AnyAll 0, AnyAny 1; DCG = g2, IDCG = 1 + g2.
	checkScores(t, mean, RetrievalScore{RecallFlat: 0.75, AllAll: 0.5, AllAny: 1, AnyAll: 0.5, AnyAny: 1,
		MRR: 0.75, NDCG: (1 + g2/(1+g2)) / 2})

	b10 := ScoreRetrieval([]string{"a"}, groups([]string{"a"}), 10)
	if m, _, _ := MeanRetrieval([]RetrievalScore{a, b10}); m.K != -1 {
		t.Errorf("mixed K: mean.K = %d, want -1", m.K)
	}

	nan := math.NaN()
	m, with, without := MeanRetrieval([]RetrievalScore{none, none})
	if m.HasGold || with != 0 || without != 2 {
		t.Errorf("no gold: HasGold %v, counts %d/%d", m.HasGold, with, without)
	}
	checkScores(t, m, RetrievalScore{RecallFlat: nan, AllAll: nan, AllAny: nan, AnyAll: nan, AnyAny: nan, MRR: nan, NDCG: nan})
	if _, with, without := MeanRetrieval(nil); with != 0 || without != 0 {
		t.Errorf("nil: counts %d/%d", with, without)
	}
}

func TestTraceRanking(t *testing.T) {
	hits := []Hit{
		{UnitID: "u1", TraceIDs: []string{"t3", "t1"}},
		{UnitID: "u2", TraceIDs: nil},
		{UnitID: "u3", TraceIDs: []string{"t1", "t2", "t3"}},
		{UnitID: "u4", TraceIDs: []string{"t4", "t4"}},
	}
	got := TraceRanking(hits)
	want := []string{"t3", "t1", "t2", "t4"}
	if len(got) != len(want) {
		t.Fatalf("TraceRanking = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("TraceRanking = %v, want %v", got, want)
		}
	}
	if got := TraceRanking(nil); len(got) != 0 {
		t.Errorf("TraceRanking(nil) = %v", got)
	}
}

// TestSessionRecall: gold sessions covered by the top k, each session
// once, duplicates skipped before the cut, NaN without gold sessions.
func TestSessionRecall(t *testing.T) {
	ev := func(ids ...string) []datasets.EvidenceGroup {
		var gs []datasets.EvidenceGroup
		for _, id := range ids {
			gs = append(gs, datasets.EvidenceGroup{TraceIDs: []string{id}})
		}
		return gs
	}
	for _, c := range []struct {
		name   string
		ranked []string
		gold   []datasets.EvidenceGroup
		k      int
		want   float64
	}{
		{"one of two sessions", []string{"D1:9", "D3:1"}, ev("D1:3", "D1:5", "D2:1"), 10, 0.5},
		{"another turn of the session counts", []string{"D2:7"}, ev("D2:1"), 1, 1},
		{"cut at k", []string{"D5:1", "D2:7"}, ev("D2:1"), 1, 0},
		{"duplicates do not use up k", []string{"D5:1", "D5:1", "D2:7"}, ev("D2:1"), 2, 1},
		{"ids of no session", []string{"x", "D2:1"}, ev("D2:1", "bad"), 2, 1},
		{"no gold session", []string{"D1:1"}, ev("bad"), 5, math.NaN()},
		{"no gold", []string{"D1:1"}, nil, 5, math.NaN()},
		{"k 0", []string{"D1:1"}, ev("D1:1"), 0, 0},
	} {
		got := SessionRecall(c.ranked, c.gold, c.k, datasets.LoCoMoSession)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: SessionRecall = %v, want %v", c.name, got, c.want)
		}
	}
}
