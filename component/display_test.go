package component

import (
	"slices"
	"testing"
)

func TestDisplayNames(t *testing.T) {
	bm25 := New("flat-bm25").With("k1", 1.5).With("b", 0.75)
	bm25b := New("flat-bm25").With("k1", 1.2).With("b", 0.75)
	dense := New("flat-dense").With("b", 0.75).Part("embedder", New("lsa").With("dim", 128))
	dense64 := New("flat-dense").With("b", 0.75).Part("embedder", New("lsa").With("dim", 64))
	tl := New("timeline").With("topic", 0.1)
	long := New("flat-bm25").With("k1", 1.5).With("b", 0.75).With("prompt", "a very long prompt text that goes on and on")
	cases := []struct {
		name  string
		names []string
		specs []*Spec
		want  []string
	}{
		{"one component keeps its short name",
			[]string{"timeline(k1=1.5,b=0.75,topic=0.1)"}, []*Spec{&tl}, []string{"timeline"}},
		{"equal specs share the name",
			[]string{"flat(bm25)", "flat(bm25)"}, []*Spec{&bm25, &bm25}, []string{"flat", "flat"}},
		{"a knob that differs is shown, common ones are not",
			[]string{"flat(bm25,k1=1.5)", "flat(bm25,k1=1.2)", "timeline(x)"}, []*Spec{&bm25, &bm25b, &tl},
			[]string{"flat(k1=1.5)", "flat(k1=1.2)", "timeline"}},
		{"kind first, then a part's knobs by path",
			[]string{"flat", "flat", "flat"}, []*Spec{&bm25, &dense, &dense64},
			[]string{"flat(kind=flat-bm25,embedder.dim=-,embedder=-,k1=1.5)",
				"flat(kind=flat-dense,embedder.dim=128,embedder=lsa,k1=-)",
				"flat(kind=flat-dense,embedder.dim=64,embedder=lsa,k1=-)"}},
		{"a part of another kind shows its kind, not its knobs",
			[]string{"flat", "flat"}, []*Spec{ptr(New("flat-dense").Part("embedder", New("hashed").With("dim", 64))),
				ptr(New("flat-dense").Part("embedder", New("model-embedder").With("model", "text-embedding-3-small")))},
			[]string{"flat(embedder=hashed)", "flat(embedder=model-embedder)"}},
		{"what every value of a knob shares is left out: the endpoint of two models, a model family's prefix",
			[]string{"model-reader", "model-reader", "model-reader"},
			[]*Spec{ptr(New("model-reader").Part("model", New("model").With("target", "openai/qwen3-32b@default(http://127.0.0.1:8090/v1)"))),
				ptr(New("model-reader").Part("model", New("model").With("target", "openai/gpt-5-mini@default(http://127.0.0.1:8090/v1)"))),
				ptr(New("model-reader").Part("model", New("model").With("target", "openai/gpt-5@default(http://127.0.0.1:8090/v1)")))},
			[]string{"model-reader(model.target=qwen3-32b)", "model-reader(model.target=gpt-5-mini)", "model-reader(model.target=gpt-5)"}},
		{"a shared part that would leave a value empty is kept",
			[]string{"m", "m"}, []*Spec{ptr(New("m").With("target", "@e")), ptr(New("m").With("target", "y@e"))},
			[]string{"m(target=@e)", "m(target=y@e)"}},
		{"unknown specs fall back to the full names",
			[]string{"flat(bm25)", "flat(dense)"}, []*Spec{nil, nil}, []string{"flat(bm25)", "flat(dense)"}},
		{"clipped values that collide are numbered",
			[]string{"flat", "flat", "flat"},
			[]*Spec{&long, ptr(long.With("prompt", "a very long prompt text that goes elsewhere")), &bm25},
			[]string{"flat(prompt=a very long prompt text…)", "flat(prompt=a very long prompt text…)#2", "flat(prompt=-)"}},
	}
	for _, c := range cases {
		got := DisplayNames(c.names, c.specs)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func ptr(s Spec) *Spec { return &s }

// Two different specs never share a display name, whatever they differ in.
func TestDisplayNamesUnique(t *testing.T) {
	var specs []*Spec
	var names []string
	for i := range 30 {
		s := New("flat-bm25").With("k1", float64(i%5)).With("note", "the same long prefix for every one of them "+string(rune('a'+i/5)))
		specs = append(specs, &s)
		names = append(names, "flat")
	}
	got := DisplayNames(names, specs)
	seen := map[string]int{}
	for i, n := range got {
		if j, ok := seen[n]; ok {
			t.Fatalf("%q names both %d and %d", n, j, i)
		}
		seen[n] = i
	}
}
