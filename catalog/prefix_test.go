package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

// prefixSpecs are the systems whose PrefixStable claim is checked, with
// knobs that change how they rank.
var prefixSpecs = []string{
	"flat(bm25)", "flat(dense:lsa)", "flat(dense:hashed)", "flat(hybrid:lsa)",
	"flat(units=facts+raw)", "flat(units=summary+raw,join=merge_raw)", "flat(units=keywords+raw,join=separate)",
	"flat(expansion_hits=true,units=facts+raw)", "flat(bm25,stats=corpus)",
	"naive", "naive(embedder=lsa)", "none", "recent", "oracle", "timeline", "memos",
	"memos(window=4,overlap=0)", "memos(mode=fine)", "mem0", "mem0(chunk_hits=true)", "amem", "amem(chunk_hits=true)",
}

// TestPrefixStable checks every system (the model-built ones against the
// fake server) that claims
// retrieval.PrefixStable: at every question of the sample, Retrieve at
// k is the first k hits of Retrieve at the largest k. It logs which of
// the others would pass too, so a claim can be added with evidence.
func TestPrefixStable(t *testing.T) {
	d, err := datasets.Open("")
	if err != nil {
		t.Fatal(err)
	}
	env := &catalog.Env{Data: d, Client: runtest.FakeClient(t, mem0Script())}
	ctx := context.Background()
	ks := []int{1, 3, 5, 10, 20}
	for _, spec := range prefixSpecs {
		sys, err := catalog.System(env, spec)
		if err != nil {
			t.Logf("%s: not offline (%v)", spec, err)
			continue
		}
		p, claims := sys.(retrieval.PrefixStable)
		claims = claims && p.PrefixStable()
		stable, at, most := true, "", 0
		for _, q := range retrieval.SortByAskedAt(d.Questions) {
			top, err := sys.Retrieve(ctx, q, ks[len(ks)-1])
			if err != nil {
				t.Fatalf("%s: %s: %v", spec, q.ID, err)
			}
			most = max(most, len(top))
			for _, k := range ks[:len(ks)-1] {
				hits, err := sys.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatalf("%s: %s at k=%d: %v", spec, q.ID, k, err)
				}
				if !sameHits(hits, top[:min(k, len(top))]) {
					stable, at = false, q.ID
				}
			}
			if !stable {
				break
			}
		}
		switch {
		case claims && most < 2 && spec != "none":
			t.Errorf("%s claims PrefixStable but no question got two hits: the check proves nothing", spec)
		case claims && !stable:
			t.Errorf("%s claims PrefixStable but at %s its top k is not the prefix of its top %d", spec, at, ks[len(ks)-1])
		case !claims && stable:
			t.Logf("%s: prefix-stable on the sample, no claim", spec)
		case !claims:
			t.Logf("%s: not prefix-stable (at %s)", spec, at)
		}
	}
}

func sameHits(a, b []retrieval.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UnitID != b[i].UnitID || a[i].Score != b[i].Score || a[i].Text != b[i].Text || !slices.Equal(a[i].TraceIDs, b[i].TraceIDs) {
			return false
		}
	}
	return true
}

// mem0Script is a fake Mem0 extractor: each trace's first sentence is a
// fact, and every fact is added as a new memory.
func mem0Script() llmtest.Responder {
	var mu sync.Mutex
	last, n := "", 0
	return func(call llmtest.ChatCall) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		msg := call.LastUser()
		if strings.HasPrefix(msg, "Input:") {
			text := msg[strings.Index(msg, "] ")+2:]
			if i := strings.IndexAny(text, ".!?\n"); i > 0 {
				text = text[:i]
			}
			last = text
			js, _ := json.Marshal(map[string][]string{"facts": {text}})
			return string(js), nil
		}
		n++
		js, _ := json.Marshal(map[string]any{"memory": []map[string]string{{"id": strconv.Itoa(1000 + n), "text": last, "event": "ADD"}}})
		return string(js), nil
	}
}
