package retrieval

import (
	"math"

	"github.com/memlab/memlab/datasets"
)

// RetrievalScore is the trace-level retrieval score of one question at k
// (metrics.md, "Retrieval"). When HasGold is false the question has no gold
// trace id and every value is NaN: it must be excluded from averages and
// counted apart (MeanRetrieval does).
type RetrievalScore struct {
	K       int
	HasGold bool
	// RecallFlat is the share of the union of gold ids found in the top k.
	RecallFlat float64
	// AllAll is 1 if every evidence group has all its ids in the top k, else 0.
	AllAll float64
	// AllAny is 1 if every group has at least one id in the top k, else 0.
	AllAny float64
	// AnyAll is 1 if some group has all its ids in the top k, else 0.
	AnyAll float64
	// AnyAny is 1 if some group has at least one id in the top k, else 0.
	AnyAny float64
	// MRR is 1/rank of the first gold id within the top k, 0 if none.
	MRR float64
	// NDCG is nDCG@k with binary gains over the gold union.
	NDCG float64
}

// ScoreRetrieval scores a ranked list of trace ids (e.g. TraceRanking of a
// System's hits) against evidence groups at k.
//
// The list is deduplicated keeping the first occurrence, then cut at k (k <=
// 0 keeps nothing; a k beyond the list keeps it all). Empty groups are
// ignored, and so are repeated ids inside a group. With gold union G and top
// k list T (ranks 1..|T|):
//
//	RecallFlat = |G ∩ T| / |G|
//	MRR        = 1 / (rank of the first id of T in G), or 0
//	DCG        = Σ_{i: T_i ∈ G} 1 / log2(i + 1)
//	IDCG       = Σ_{i=1}^{min(|G|, k)} 1 / log2(i + 1)
//	NDCG       = DCG / IDCG (0 when k <= 0)
//
// and the group recalls as documented on RetrievalScore. When G is empty,
// HasGold is false and every value is NaN.
func ScoreRetrieval(ranked []string, groups []datasets.EvidenceGroup, k int) RetrievalScore {
	s := RetrievalScore{K: k}
	var sets []map[string]bool
	gold := map[string]bool{}
	for _, g := range groups {
		set := map[string]bool{}
		for _, id := range g.TraceIDs {
			set[id] = true
			gold[id] = true
		}
		if len(set) > 0 {
			sets = append(sets, set)
		}
	}
	if len(gold) == 0 {
		nan := math.NaN()
		s.RecallFlat, s.AllAll, s.AllAny, s.AnyAll, s.AnyAny, s.MRR, s.NDCG = nan, nan, nan, nan, nan, nan, nan
		return s
	}
	s.HasGold = true

	top := map[string]bool{}
	var found int
	var dcg float64
	rank := 0
	for _, id := range ranked {
		if rank >= k {
			break
		}
		if top[id] {
			continue
		}
		top[id] = true
		rank++
		if gold[id] {
			found++
			dcg += 1 / math.Log2(float64(rank)+1)
			if s.MRR == 0 {
				s.MRR = 1 / float64(rank)
			}
		}
	}
	s.RecallFlat = float64(found) / float64(len(gold))

	allAll, allAny, anyAll, anyAny := true, true, false, false
	for _, set := range sets {
		n := 0
		for id := range set {
			if top[id] {
				n++
			}
		}
		full, some := n == len(set), n > 0
		allAll = allAll && full
		allAny = allAny && some
		anyAll = anyAll || full
		anyAny = anyAny || some
	}
	s.AllAll, s.AllAny, s.AnyAll, s.AnyAny = b2f(allAll), b2f(allAny), b2f(anyAll), b2f(anyAny)

	var idcg float64
	for i := 1; i <= min(len(gold), k); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	if idcg > 0 {
		s.NDCG = dcg / idcg
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// MeanRetrieval averages the scores that have gold (HasGold) field by field
// and returns how many had gold and how many had none. The mean's K is the
// common K of the averaged scores, or -1 if they differ. With no score with
// gold, the mean has HasGold false and NaN values.
func MeanRetrieval(scores []RetrievalScore) (mean RetrievalScore, withGold, withoutGold int) {
	k, mixed := 0, false
	for _, s := range scores {
		if !s.HasGold {
			withoutGold++
			continue
		}
		if withGold == 0 {
			k = s.K
		} else if s.K != k {
			mixed = true
		}
		withGold++
		mean.RecallFlat += s.RecallFlat
		mean.AllAll += s.AllAll
		mean.AllAny += s.AllAny
		mean.AnyAll += s.AnyAll
		mean.AnyAny += s.AnyAny
		mean.MRR += s.MRR
		mean.NDCG += s.NDCG
	}
	if withGold == 0 {
		nan := math.NaN()
		return RetrievalScore{RecallFlat: nan, AllAll: nan, AllAny: nan, AnyAll: nan, AnyAny: nan, MRR: nan, NDCG: nan},
			0, withoutGold
	}
	n := float64(withGold)
	mean.K = k
	if mixed {
		mean.K = -1
	}
	mean.HasGold = true
	mean.RecallFlat /= n
	mean.AllAll /= n
	mean.AllAny /= n
	mean.AnyAll /= n
	mean.AnyAny /= n
	mean.MRR /= n
	mean.NDCG /= n
	return mean, withGold, withoutGold
}

// MetricSessionRecall names the session-level recall of LoCoMo questions
// (SessionRecall), as tables show it.
const MetricSessionRecall = "Session recall"

// SessionRecall is the share of the gold sessions that the top k
// retrieved traces cover: with sessionOf mapping a trace id to its session
// (datasets.LoCoMoSession for LoCoMo's dialogue ids "D<session>:<turn>"; an
// id it does not map belongs to no session), S_G the sessions of the gold
// union of the groups and S_T those of the first k distinct ids of ranked,
//
//	SessionRecall = |S_G ∩ S_T| / |S_G|
//
// It is NaN when S_G is empty (no gold id maps to a session), so such a
// question is left out of the means, never scored 0 or 1. Each gold
// session counts once however many gold turns it holds (LoCoMo's script,
// scoring retrieved session summaries, counts each gold turn instead).
// It reads only the ranking made at the question's time and the trace ids:
// nothing dated after the question shapes it.
func SessionRecall(ranked []string, groups []datasets.EvidenceGroup, k int, sessionOf func(id string) (int, bool)) float64 {
	gold := map[int]bool{}
	for _, g := range groups {
		for _, id := range g.TraceIDs {
			if s, ok := sessionOf(id); ok {
				gold[s] = true
			}
		}
	}
	if len(gold) == 0 {
		return math.NaN()
	}
	seen, covered := map[string]bool{}, map[int]bool{}
	for _, id := range ranked {
		if len(seen) >= k {
			break
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if s, ok := sessionOf(id); ok && gold[s] {
			covered[s] = true
		}
	}
	return float64(len(covered)) / float64(len(gold))
}
