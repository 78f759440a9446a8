package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SyntheticConfig sizes a synthetic corpus (WriteSynthetic).
type SyntheticConfig struct {
	// Personas, Traces per persona and Questions per persona.
	Personas, Traces, Questions int
	// Seed makes the corpus: the same config writes the same bytes.
	Seed uint64
}

// SyntheticMark is in the name of every synthetic persona, and must be in
// the name of the directory a synthetic corpus is written to (the name a
// dataset is shown by), so that its data is never taken for a
// benchmark's.
const SyntheticMark = "synthetic"

// WriteSynthetic writes a synthetic corpus in CloneMem's release schema
// to dir (created if needed; its name must contain SyntheticMark): one
// persona file per persona, synthetic_pNNN_benchmark_en.json, each
// {person_name, person_id, context, questions} with cfg.Traces traces
// (seven media, dated over two years) and cfg.Questions multiple-choice
// questions whose evidence is one earlier trace, and a README.md saying
// what it is. It is made for measuring memlab at scale (the run store,
// the work queue, memory systems over many traces), not for ranking
// systems: its texts are generated from word lists and its answers are
// places named in one trace. It returns the files written.
func WriteSynthetic(dir string, cfg SyntheticConfig) ([]string, error) {
	if cfg.Personas <= 0 || cfg.Traces <= 0 || cfg.Questions <= 0 {
		return nil, fmt.Errorf("datasets: synthetic corpus: personas, traces and questions must be positive, got %d, %d, %d",
			cfg.Personas, cfg.Traces, cfg.Questions)
	}
	if cfg.Questions > cfg.Traces {
		return nil, fmt.Errorf("datasets: synthetic corpus: %d questions per persona, more than its %d traces", cfg.Questions, cfg.Traces)
	}
	if !strings.Contains(strings.ToLower(filepath.Base(filepath.Clean(dir))), SyntheticMark) {
		return nil, fmt.Errorf("datasets: synthetic corpus: directory %q: its name must contain %q (a dataset is shown by its directory's name)", dir, SyntheticMark)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("datasets: synthetic corpus: %w", err)
	}
	var files []string
	readme := filepath.Join(dir, "README.md")
	text := fmt.Sprintf("# A synthetic corpus (not benchmark data)\n\nWritten by memlab (datasets.WriteSynthetic, `memlab datasets synth`) in CloneMem's release schema: "+
		"%d personas x %d traces x %d questions, seed %d. The texts are generated from word lists and every answer is a place named in one earlier "+
		"trace: use it to measure memlab at scale, never to rank memory systems.\n", cfg.Personas, cfg.Traces, cfg.Questions, cfg.Seed)
	if err := os.WriteFile(readme, []byte(text), 0o644); err != nil {
		return nil, fmt.Errorf("datasets: synthetic corpus: %w", err)
	}
	files = append(files, readme)
	for p := range cfg.Personas {
		// Indented by one space, not WriteCloneMemFile's two: the bytes
		// synthetic corpora have always had.
		name := filepath.Join(dir, fmt.Sprintf("synthetic_p%03d_benchmark_en.json", p+1))
		if err := writeCloneMemFile(name, syntheticPersona(cfg, p), " "); err != nil {
			return nil, fmt.Errorf("datasets: synthetic corpus: %w", err)
		}
		files = append(files, name)
	}
	return files, nil
}

// The word lists of the synthetic texts.
var (
	synthMedia    = []string{"diary", "chat_private", "email", "search_history", "memo", "chat_group", "social_media"}
	synthPeople   = []string{"Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena", "Mateo", "Nia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tove"}
	synthPlaces   = []string{"the harbour market", "Linden Park", "the old library", "Café Morro", "the climbing gym", "Riverside pool", "the night bazaar", "Hillcrest trail", "the jazz cellar", "Station Square", "the pottery studio", "Elm Street bakery", "the botanical garden", "North Pier", "the chess club", "Copper Lane cinema", "the farmers' co-op", "Lakeview hostel", "the vinyl shop", "Saint Ives chapel"}
	synthActs     = []string{"a cello lesson", "a board game night", "a long run", "a birthday dinner", "a job interview", "a pottery class", "a language exchange", "a quiz night", "a flat viewing", "a concert", "a hospital check-up", "a book club", "a wedding rehearsal", "a street festival", "a volunteer shift"}
	synthFeelings = []string{"happy", "anxious", "proud", "tired", "relieved", "annoyed", "calm", "excited", "lonely", "grateful"}
	synthTypes    = []string{"single_point_factual", "pattern", "comparison", "trajectory", "causal", "counterfactual", "inferential"}
	synthDims     = []string{"experience", "opinion", "emotion"}
	synthSyll     = []string{"ka", "lo", "mi", "ren", "tas", "vo", "zu", "pel", "dri", "nox", "quo", "sel", "tam", "bri", "gan", "hul"}
)

// syntheticPersona makes persona p (from 0) of cfg.
func syntheticPersona(cfg SyntheticConfig, p int) CloneMemFile {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(p)+1))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	word := func() string {
		n := 2 + rng.IntN(2)
		var b strings.Builder
		for range n {
			b.WriteString(synthSyll[rng.IntN(len(synthSyll))])
		}
		return b.String()
	}
	pid := fmt.Sprintf("synth-p%03d", p+1)
	out := CloneMemFile{PersonName: fmt.Sprintf("Synthetic Persona %03d (synthetic)", p+1), PersonID: pid}
	start := time.Date(2022, 1, 1, 8, 0, 0, 0, time.UTC)
	step := 2 * 365 * 24 * time.Hour / time.Duration(cfg.Traces)
	type fact struct{ person, place, act, feeling string }
	facts := make([]fact, cfg.Traces)
	times := make([]time.Time, cfg.Traces)
	for i := range cfg.Traces {
		f := fact{pick(synthPeople), pick(synthPlaces), pick(synthActs), pick(synthFeelings)}
		facts[i] = f
		times[i] = start.Add(time.Duration(i)*step + time.Duration(rng.IntN(int(step/time.Minute/2)))*time.Minute)
		var filler []string
		for range 18 + rng.IntN(24) {
			filler = append(filler, word())
		}
		content := fmt.Sprintf("Went to %s with %s for %s and felt %s. Notes: %s.", f.place, f.person, f.act, f.feeling, strings.Join(filler, " "))
		out.Context = append(out.Context, CloneMemTrace{ID: fmt.Sprintf("%s-t%05d", pid, i+1), Medium: pick(synthMedia),
			EventDate: times[i].Format("2006-01-02T15:04:05"), Content: content})
	}
	// Question j is asked after trace at(j), about a trace at most 40
	// traces before it; the last is asked after the last trace.
	for j := range cfg.Questions {
		at := (j + 1) * cfg.Traces / cfg.Questions
		ev := max(0, at-1-rng.IntN(min(40, at)))
		f := facts[ev]
		asked := times[at-1].Add(time.Hour)
		letters := []string{"A", "B", "C", "D"}
		correct := rng.IntN(4)
		others := rng.Perm(len(synthPlaces))
		var choices []CloneMemChoice
		o := 0
		for c, l := range letters {
			text := f.place
			if c != correct {
				for synthPlaces[others[o]] == f.place {
					o++
				}
				text = synthPlaces[others[o]]
				o++
			}
			choices = append(choices, CloneMemChoice{ID: l, Text: strings.ToUpper(text[:1]) + text[1:]})
		}
		choices = append(choices, CloneMemChoice{ID: "E", Text: "Cannot be determined based on available information"})
		tid := out.Context[ev].ID
		out.Questions = append(out.Questions, CloneMemQuestion{
			ID:           fmt.Sprintf("%s-q%03d", pid, j+1),
			Question:     fmt.Sprintf("Where did you go with %s for %s, when you felt %s?", f.person, f.act, f.feeling),
			QuestionType: pick(synthTypes), QuestionTime: asked.Format("2006-01-02T15:04:05"),
			Answer:    fmt.Sprintf("I went to %s with %s for %s.", f.place, f.person, f.act),
			Dimension: pick(synthDims), DigitalTraceIDs: []string{tid},
			Evidence: []CloneMemEvidence{{Statement: fmt.Sprintf("%s went with %s to %s for %s.", out.PersonName, f.person, f.place, f.act), DigitalTraceIDs: []string{tid}}},
			Choices:  choices, CorrectChoiceID: letters[correct],
		})
	}
	return out
}
