package catalog

import "testing"

// FuzzCanonical: any string either fails with an error or has a canonical
// string that is a fixed point; nothing panics.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"flat(bm25)", "flat( dense:lsa , k1=1.2 )", "flat(units=facts+raw,join=merge_raw)",
		"decomposed(timeaware(flat(hybrid:embedder(model=x)),mode=front))", `judge(knowme,rubric="a b")`, "mem0(model=gpt-4o-mini)", "flat(", ")", `embedder(model="\"")`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range Kinds {
			c, err := Canonical(k, s)
			if err != nil {
				continue
			}
			again, err := Canonical(k, c)
			if err != nil || again != c {
				t.Fatalf("Canonical(%s, %q) = %q; its canonical string is %q, %v", k, s, c, again, err)
			}
		}
	})
}
