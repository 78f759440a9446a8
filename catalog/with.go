package catalog

import (
	"strings"
)

// With returns s with one knob set to value (text as in a spec string:
// "lsa", "embedder(model=x)", "facts+raw"), checked as Parse checks it.
// A knob s's component does not have is looked for in the system it
// wraps (decomposed(flat(bm25)) with embedder=lsa sets flat's), then is
// an *UnknownError listing the nearest knobs.
//
// flat's embedder is the axis of CloneMem's Table 5, where BM25 is one of
// the embedders: value "bm25" makes flat score by BM25, any other
// embedder makes a BM25 flat score by that embedder's cosine (dense; a
// hybrid flat stays hybrid).
func (s *Spec) With(knob, value string) (*Spec, error) {
	e := s.Entry
	if _, ok := e.knob(knob); !ok {
		for i := range e.Knobs {
			k := &e.Knobs[i]
			if k.Type == TypeSpec && k.Of == KindSystem && s.Sub(k.Name) != nil {
				if _, ok := s.Sub(k.Name).Entry.knob(knob); ok {
					inner, err := s.Sub(k.Name).With(knob, value)
					if err != nil {
						return nil, err
					}
					return s.with(k.Name, inner.String())
				}
			}
		}
		var names []string
		for _, k := range e.Knobs {
			names = append(names, k.Name)
		}
		src := s.String()
		return nil, &UnknownError{What: "knob of " + e.Name, Name: knob, Nearest: orAll(nearest(knob, names), names), Spec: src, Pos: len(e.Name)}
	}
	if e.Name == "flat" && knob == "embedder" {
		if value == "bm25" {
			return s.with("scorer", "bm25", "embedder")
		}
		if s.Str("scorer") == "bm25" {
			return s.with("scorer", "dense", "embedder", value)
		}
	}
	return s.with(knob, value)
}

// with re-parses s with the given knob=value pairs replacing its own
// (a pair of ("embedder") alone, a knob name and no value, drops it:
// back to its default).
func (s *Spec) with(pairs ...string) (*Spec, error) {
	set := map[string]string{}
	var order []string
	for i := 0; i < len(pairs); i += 2 {
		v := ""
		if i+1 < len(pairs) {
			v = pairs[i+1]
		}
		set[pairs[i]] = v
		order = append(order, pairs[i])
	}
	var args []string
	for i := range s.Entry.Knobs {
		k := &s.Entry.Knobs[i]
		if _, replaced := set[k.Name]; replaced {
			continue
		}
		v := render(s.vals[k.Name])
		if s.isDefault(k, v) {
			continue
		}
		args = append(args, k.Name+"="+v)
	}
	for _, name := range order {
		if v := set[name]; v != "" {
			args = append(args, name+"="+v)
		}
	}
	src := s.Entry.Name
	if len(args) > 0 {
		src += "(" + strings.Join(args, ",") + ")"
	}
	return Parse(s.Entry.Kind, src)
}
