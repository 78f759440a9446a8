package weaviate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

// synthMark is in the name of the synthetic dataset and of each of its
// personas, so that it is never taken for a benchmark's data.
const synthMark = "synthetic"

// The word lists of the synthetic texts (those of datasets.WriteSynthetic
// on the branch that adds `memlab datasets synth`, kept here so this
// package's benchmark does not depend on it).
var (
	synthMedia    = []string{"diary", "chat_private", "email", "search_history", "memo", "chat_group", "social_media"}
	synthPeople   = []string{"Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena", "Mateo", "Nia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tove"}
	synthPlaces   = []string{"the harbour market", "Linden Park", "the old library", "Café Morro", "the climbing gym", "Riverside pool", "the night bazaar", "Hillcrest trail", "the jazz cellar", "Station Square", "the pottery studio", "Elm Street bakery", "the botanical garden", "North Pier", "the chess club", "Copper Lane cinema", "the farmers' co-op", "Lakeview hostel", "the vinyl shop", "Saint Ives chapel"}
	synthActs     = []string{"a cello lesson", "a board game night", "a long run", "a birthday dinner", "a job interview", "a pottery class", "a language exchange", "a quiz night", "a flat viewing", "a concert", "a hospital check-up", "a book club", "a wedding rehearsal", "a street festival", "a volunteer shift"}
	synthFeelings = []string{"happy", "anxious", "proud", "tired", "relieved", "annoyed", "calm", "excited", "lonely", "grateful"}
	synthSyll     = []string{"ka", "lo", "mi", "ren", "tas", "vo", "zu", "pel", "dri", "nox", "quo", "sel", "tam", "bri", "gan", "hul"}
)

// synthDataset is a synthetic dataset in memlab's common model, made for
// measuring at scale, never for ranking systems: personas × traces, each
// trace "Went to PLACE with PERSON for ACT and felt FEELING. Notes: ..."
// with 18 to 41 made-up words, dated in order over two years from
// 2022-01-01; and per persona `questions` questions, each about one trace
// (its place, person and activity), asked at a random later trace's time.
// The same arguments give the same dataset (math/rand/v2's PCG seeded by
// seed and the persona's number).
func synthDataset(seed uint64, personas, traces, questions int) *datasets.Dataset {
	d := &datasets.Dataset{
		Name:        fmt.Sprintf("%s-%dx%d-seed%d", synthMark, personas, traces, seed),
		Format:      datasets.FormatCloneMem,
		Source:      "synthetic (retrieval/weaviate test helper)",
		Fingerprint: fmt.Sprintf("%s%dx%dx%ds%d", synthMark, personas, traces, questions, seed),
	}
	start := time.Date(2022, 1, 1, 8, 0, 0, 0, time.UTC)
	step := 2 * 365 * 24 * time.Hour / time.Duration(traces)
	for p := range personas {
		rng := rand.New(rand.NewPCG(seed, uint64(p)+1))
		pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
		word := func() string {
			var b strings.Builder
			for range 2 + rng.IntN(2) {
				b.WriteString(synthSyll[rng.IntN(len(synthSyll))])
			}
			return b.String()
		}
		c := &datasets.Corpus{ID: fmt.Sprintf("%s-p%03d", synthMark, p+1), Name: fmt.Sprintf("Synthetic Persona %03d (%s)", p+1, synthMark), Language: "en"}
		type fact struct{ person, place, act string }
		facts := make([]fact, traces)
		for i := range traces {
			f := fact{pick(synthPeople), pick(synthPlaces), pick(synthActs)}
			facts[i] = f
			at := start.Add(time.Duration(i)*step + time.Duration(rng.IntN(int(step/time.Minute/2)))*time.Minute)
			notes := make([]string, 18+rng.IntN(24))
			for j := range notes {
				notes[j] = word()
			}
			c.Traces = append(c.Traces, datasets.Trace{
				ID:     fmt.Sprintf("%s-t%05d", c.ID, i+1),
				Time:   at,
				Medium: pick(synthMedia),
				Text:   fmt.Sprintf("Went to %s with %s for %s and felt %s. Notes: %s.", f.place, f.person, f.act, pick(synthFeelings), strings.Join(notes, " ")),
			})
		}
		for j := range questions {
			i := rng.IntN(traces)
			f := facts[i]
			asked := c.Traces[i+rng.IntN(traces-i)].Time.Add(time.Hour)
			d.Questions = append(d.Questions, datasets.Question{
				ID:        fmt.Sprintf("%s-q%03d", c.ID, j+1),
				CorpusID:  c.ID,
				Task:      "single_point_factual",
				AskedAt:   asked,
				Text:      fmt.Sprintf("Who was with me at %s for %s?", f.place, f.act),
				Answer:    f.person,
				Evidence:  []datasets.EvidenceGroup{{TraceIDs: []string{c.Traces[i].ID}}},
				Dimension: "experience",
			})
		}
		d.Corpora = append(d.Corpora, c)
	}
	return d
}

// TestSynthDataset: the synthetic dataset is deterministic, marked, dated
// in order, and every question's evidence is admitted when it is asked.
func TestSynthDataset(t *testing.T) {
	a, b := synthDataset(7, 3, 50, 4), synthDataset(7, 3, 50, 4)
	if len(a.Corpora) != 3 || len(a.Questions) != 12 {
		t.Fatalf("%d corpora, %d questions", len(a.Corpora), len(a.Questions))
	}
	if !strings.Contains(a.Name, synthMark) {
		t.Errorf("name %q is not marked %q", a.Name, synthMark)
	}
	for ci, c := range a.Corpora {
		if !strings.Contains(c.ID, synthMark) || len(c.Traces) != 50 {
			t.Errorf("corpus %q: %d traces", c.ID, len(c.Traces))
		}
		for i, tr := range c.Traces {
			if o := b.Corpora[ci].Traces[i]; o.Text != tr.Text || !o.Time.Equal(tr.Time) || o.ID != tr.ID {
				t.Fatalf("not deterministic at %s", tr.ID)
			}
			if i > 0 && !tr.Time.After(c.Traces[i-1].Time) {
				t.Errorf("%s not after the trace before it", tr.ID)
			}
		}
	}
	for i, q := range a.Questions {
		if q.Text != b.Questions[i].Text || !q.AskedAt.Equal(b.Questions[i].AskedAt) {
			t.Fatalf("question %s not deterministic", q.ID)
		}
		ok := false
		for _, tr := range datasets.Admit(a.Corpus(q.CorpusID).Traces, q.AskedAt) {
			ok = ok || tr.ID == q.GoldTraceIDs()[0]
		}
		if !ok {
			t.Errorf("question %s: its evidence is not admitted when it is asked", q.ID)
		}
	}
	if c := synthDataset(8, 3, 50, 4); c.Corpora[0].Traces[0].Text == a.Corpora[0].Traces[0].Text {
		t.Errorf("another seed, the same first trace")
	}
}
