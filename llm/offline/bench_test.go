package offline

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// knowMe1 is the path of KnowMe-Bench dataset 1, relative to this package.
const knowMe1 = "../../../shared/datasets/knowmebench/dataset1"

var (
	knowMeOnce  sync.Once
	knowMeTexts []string
	knowMeErr   error
)

// knowMeStream returns the stream texts of KnowMe dataset 1, or skips b when
// the dataset is absent.
func knowMeStream(b *testing.B) []string {
	b.Helper()
	if _, err := os.Stat(knowMe1); err != nil {
		b.Skipf("KnowMe dataset 1 not found at %s (%v): put the dataset there to run this benchmark", knowMe1, err)
	}
	knowMeOnce.Do(func() {
		d, err := datasets.Load(knowMe1)
		if err != nil {
			knowMeErr = err
			return
		}
		for _, t := range d.Corpora[0].Traces {
			knowMeTexts = append(knowMeTexts, t.Text)
		}
	})
	if knowMeErr != nil {
		b.Fatalf("load %s: %v", knowMe1, knowMeErr)
	}
	return knowMeTexts
}

func BenchmarkFitLSAKnowMe1(b *testing.B) {
	texts := knowMeStream(b)
	b.ResetTimer()
	var m *LSA
	for b.Loop() {
		var err error
		if m, err = FitLSA(texts, LSAOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)), "docs")
	b.Logf("%s", m.Name())
}

func BenchmarkFitHashedKnowMe1(b *testing.B) {
	texts := knowMeStream(b)
	b.ResetTimer()
	var m *HashedTFIDF
	for b.Loop() {
		var err error
		if m, err = FitHashedTFIDF(texts, HashedOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)), "docs")
	b.Logf("%s", m.Name())
}

// benchQuery is a typical KnowMe-style question.
const benchQuery = "How did I feel when the bus came toward me on the rocky path in August 1969?"

func BenchmarkEmbedQuery(b *testing.B) {
	texts := knowMeStream(b)
	lsa, err := FitLSA(texts, LSAOptions{})
	if err != nil {
		b.Fatal(err)
	}
	hashed, err := FitHashedTFIDF(texts, HashedOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	q := []string{benchQuery}
	b.Run("lsa", func(b *testing.B) {
		for b.Loop() {
			if _, err := lsa.Embed(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hashed", func(b *testing.B) {
		for b.Loop() {
			if _, err := hashed.Embed(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
}
