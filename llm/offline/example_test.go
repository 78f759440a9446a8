package offline_test

import (
	"context"
	"fmt"
	"math"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
)

var corpus = []string{
	"We sailed the boat across the bay; the wind filled the sail.",
	"The sail tore in a strong wind, so the boat drifted to the harbour.",
	"I baked bread in the oven; the kitchen smelled of yeast and flour.",
	"The recipe needs flour and butter; bake it in a hot oven.",
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return math.Round(s*100)/100 + 0 // + 0 turns -0 into 0
}

func ExampleFitHashedTFIDF() {
	m, err := offline.FitHashedTFIDF(corpus, offline.HashedOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := m.Embed(context.Background(), []string{"sailing in the wind", corpus[1], corpus[3]})
	fmt.Println(m.Name())
	fmt.Println(len(v[0]), cos(v[0], v[1]) > cos(v[0], v[2]))
	// Output:
	// hashed-tfidf(d=1024,char=3-5,unseen=maxidf,docs=4)
	// 1024 true
}

func ExampleFitLSA() {
	m, err := offline.FitLSA(corpus, offline.LSAOptions{Dims: 2, MinDF: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := m.Embed(context.Background(), []string{"harbour", "boat", "oven"})
	fmt.Println(m.Name())
	fmt.Println("harbour~boat:", cos(v[0], v[1]), "harbour~oven:", cos(v[0], v[2]))

	_, err = offline.FitLSA(nil, offline.LSAOptions{})
	fmt.Println(err)
	// Output:
	// lsa(d=2,mindf=1,terms=23,docs=4,over=10,pow=2,seed=1,fold=sinv-vt)
	// harbour~boat: 1 harbour~oven: 0
	// offline: fit lsa: empty corpus: no texts to fit on
}

func ExampleNewExtractive() {
	e := offline.NewExtractive(offline.ExtractOptions{SummarySentences: 1, Keywords: 3})
	text := "**Anna:** I moved to Berlin in March 2021 for a job at a robotics startup.\n" +
		"**Ben:** Nice! How is the robotics startup?"
	for _, kind := range []string{llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts} {
		items, _ := e.Extract(context.Background(), kind, text)
		fmt.Printf("%s: %q\n", kind, items)
	}
	_, err := e.Extract(context.Background(), "summ", text)
	fmt.Println(err)
	// Output:
	// summary: ["I moved to Berlin in March 2021 for a job at a robotics startup."]
	// keywords: ["robotics startup" "march 2021" "moved"]
	// facts: ["I moved to Berlin in March 2021 for a job at a robotics startup." "Nice!" "How is the robotics startup?"]
	// offline: extract: unknown kind "summ" (known: summary, keywords, facts)
}
