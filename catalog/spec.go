package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a component is for.
type Kind string

// The kinds of component the catalog builds.
const (
	KindSystem    Kind = "system"
	KindEmbedder  Kind = "embedder"
	KindReader    Kind = "reader"
	KindJudge     Kind = "judge"
	KindExtractor Kind = "extractor"
)

// Kinds lists every kind in the order tables show them.
var Kinds = []Kind{KindSystem, KindEmbedder, KindExtractor, KindReader, KindJudge}

// Knob types: the values a knob takes.
const (
	TypeString = "string" // any word (or a quoted string)
	TypeInt    = "int"
	TypeFloat  = "float"
	TypeBool   = "bool" // true or false
	TypeEnum   = "enum" // one of Allowed
	TypeList   = "list" // one or more of Allowed joined by "+", in the order given
	TypeSpec   = "spec" // a nested spec of kind Of
)

// Knob is one setting of a component.
type Knob struct {
	// Name is the key of key=value.
	Name string
	// Type is one of the Type constants; Of is the kind of a TypeSpec knob.
	Type string
	Of   Kind
	// Default is the canonical text of the value used when the knob is not
	// given; "" with Required means it must be given.
	Default  string
	Required bool
	// Doc says what the knob does and which config field it sets.
	Doc string
	// Allowed lists the values of TypeEnum and TypeList knobs.
	Allowed []string
	// Positional means the knob may be given as the first argument without
	// its key, and is written so in the canonical string.
	Positional bool
}

// Entry is one component the catalog builds.
type Entry struct {
	Name string
	Kind Kind
	// Doc is one line on what it is.
	Doc   string
	Knobs []Knob
	// Needs is the model role the component always needs ("" = none), and
	// NeedsWhen says when it needs one otherwise (e.g. "embedder is a
	// model"); the built component returns *NeedsModelError without one.
	Needs     string
	NeedsWhen string

	// check validates the resolved values together; fold rewrites the
	// canonical arguments (e.g. flat's scorer and embedder as dense:lsa).
	check func(v *Spec) error
	build func(e *Env, v *Spec) (any, error)
}

// Has reports whether s's component has the named knob (so Str, Sub, ...
// of it do not panic).
func (s *Spec) Has(knob string) bool {
	_, ok := s.Entry.knob(knob)
	return ok
}

func (e *Entry) knob(name string) (*Knob, bool) {
	for i := range e.Knobs {
		if e.Knobs[i].Name == name {
			return &e.Knobs[i], true
		}
	}
	return nil, false
}

// Spec is a parsed, checked component spec: its entry and the value of
// every knob (given or default). String is its canonical text.
type Spec struct {
	Entry *Entry
	vals  map[string]any // string, int, float64, bool, []string or *Spec
}

// Str, Int, Float, Bool, List and Sub return a knob's value (its default
// when it was not given); they panic on a name the entry does not have
// or a knob of another type (programmer misuse).
func (s *Spec) Str(name string) string { return s.val(name).(string) }

// Int returns an int knob's value.
func (s *Spec) Int(name string) int { return s.val(name).(int) }

// Float returns a float knob's value.
func (s *Spec) Float(name string) float64 { return s.val(name).(float64) }

// Bool returns a bool knob's value.
func (s *Spec) Bool(name string) bool { return s.val(name).(bool) }

// List returns a list knob's values, in the order given.
func (s *Spec) List(name string) []string { return slices.Clone(s.val(name).([]string)) }

// Sub returns a nested spec knob's value (nil when it has no default and
// was not given).
func (s *Spec) Sub(name string) *Spec {
	v, _ := s.val(name).(*Spec)
	return v
}

func (s *Spec) val(name string) any {
	v, ok := s.vals[name]
	if !ok {
		panic(fmt.Sprintf("catalog: %s has no knob %q", s.Entry.Name, name))
	}
	return v
}

// isDefault reports whether a knob's value, whose canonical text is
// text, is its default.
func (s *Spec) isDefault(k *Knob, text string) bool {
	if k.Required {
		return false
	}
	if v, ok := s.vals[k.Name].(string); ok {
		return v == k.Default
	}
	return text == k.Default
}

// render is a value's canonical text.
func render(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return quote(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		return strings.Join(v, "+")
	case *Spec:
		if v == nil {
			return ""
		}
		return v.String()
	}
	panic(fmt.Sprintf("catalog: value of type %T", v))
}

// String is the canonical spec: the name, then the positional knob bare
// and the other knobs as key=value in the entry's order, knobs at their
// default left out; "name" alone when every knob is at its default. Equal
// components have equal strings, whatever spacing or order they were
// written in.
func (s *Spec) String() string {
	var args []string
	for i := range s.Entry.Knobs {
		k := &s.Entry.Knobs[i]
		if s.Entry.Name == "flat" && k.Name == "embedder" {
			continue // folded into the scorer: dense:lsa
		}
		v := render(s.vals[k.Name])
		if s.isDefault(k, v) && !(s.Entry.Name == "flat" && k.Name == "scorer") {
			continue
		}
		if s.Entry.Name == "flat" && k.Name == "scorer" && v != "bm25" {
			v += ":" + render(s.vals["embedder"])
		}
		if k.Positional {
			args = append(args, v)
		} else {
			args = append(args, k.Name+"="+v)
		}
	}
	if len(args) == 0 {
		return s.Entry.Name
	}
	return s.Entry.Name + "(" + strings.Join(args, ",") + ")"
}

// UnknownError is a name or knob the catalog does not have, with the
// nearest valid ones.
type UnknownError struct {
	// What is "system", "embedder", ... for a name, "knob of flat" for a
	// knob, "value of flat's join" for a value.
	What    string
	Name    string
	Nearest []string
	// Spec and Pos place it in the string.
	Spec string
	Pos  int
}

// Error reads `unknown system "flta": did you mean flat?`.
func (e *UnknownError) Error() string {
	msg := fmt.Sprintf("catalog: unknown %s %q", e.What, e.Name)
	if e.Spec != "" {
		msg = fmt.Sprintf("catalog: spec %q: column %d: unknown %s %q", e.Spec, e.Pos+1, e.What, e.Name)
	}
	if len(e.Nearest) > 0 {
		msg += ": did you mean " + orList(e.Nearest) + "?"
	}
	return msg
}

func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// KnobError is a knob value that does not fit the knob (a bad number, a
// missing required knob, a knob given twice), placed in the string.
type KnobError struct {
	Spec      string
	Pos       int
	Component string
	Knob      string
	Msg       string
}

// Error names the spec, the column, the component and its knob.
func (e *KnobError) Error() string {
	return fmt.Sprintf("catalog: spec %q: column %d: %s %s: %s", e.Spec, e.Pos+1, e.Component, e.Knob, e.Msg)
}

// nearest returns the candidates closest to name by edit distance (at most
// 3 of them, within a distance of max(2, len/3)); none when nothing is close.
func nearest(name string, candidates []string) []string {
	limit := max(2, len(name)/3)
	best := -1
	var out []string
	for _, c := range candidates {
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if d > limit {
			continue
		}
		switch {
		case best < 0 || d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// distance is the Levenshtein distance, with a swap of two neighbours
// counted as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Parse reads a spec string of the given kind and checks it: known name,
// known knobs, values of the knobs' types, defaults filled in.
func Parse(kind Kind, s string) (*Spec, error) {
	n, err := parse(s)
	if err != nil {
		return nil, err
	}
	return resolve(s, kind, n)
}

// Canonical returns the canonical string of a spec of the given kind.
func Canonical(kind Kind, s string) (string, error) {
	sp, err := Parse(kind, s)
	if err != nil {
		return "", err
	}
	return sp.String(), nil
}

func resolve(src string, kind Kind, n node) (*Spec, error) {
	e, ok := Lookup(kind, n.name)
	if !ok || n.quoted || n.prefix != "" {
		var names []string
		for _, c := range entries {
			if c.Kind == kind {
				names = append(names, c.Name)
			}
		}
		return nil, &UnknownError{What: string(kind), Name: n.text(), Nearest: nearest(n.name, names), Spec: src, Pos: n.pos}
	}
	sp := &Spec{Entry: e, vals: map[string]any{}}
	given := map[string]bool{}
	for ai, a := range n.args {
		key := a.key
		if key == "" {
			if ai != 0 {
				return nil, &SyntaxError{Spec: src, Pos: a.pos, Msg: "only the first argument may be given without a key"}
			}
			for _, k := range e.Knobs {
				if k.Positional {
					key = k.Name
				}
			}
			if key == "" {
				return nil, &SyntaxError{Spec: src, Pos: a.pos, Msg: fmt.Sprintf("%s takes no positional argument: write key=value", e.Name)}
			}
		}
		k, ok := e.knob(key)
		if !ok {
			var names []string
			for _, k := range e.Knobs {
				names = append(names, k.Name)
			}
			return nil, &UnknownError{What: "knob of " + e.Name, Name: key, Nearest: nearest(key, names), Spec: src, Pos: a.pos}
		}
		if given[key] {
			return nil, &KnobError{Spec: src, Pos: a.pos, Component: e.Name, Knob: key, Msg: "given twice"}
		}
		given[key] = true
		v := a.value
		// flat's scorer: dense:EMBEDDER sets the embedder too.
		if e.Name == "flat" && key == "scorer" && len(v) == 1 && v[0].prefix != "" {
			if given["embedder"] {
				return nil, &KnobError{Spec: src, Pos: a.pos, Component: e.Name, Knob: "embedder", Msg: "given twice"}
			}
			emb := v[0]
			emb.prefix = ""
			ev, err := value(src, e, must(e.knob("embedder")), []node{emb})
			if err != nil {
				return nil, err
			}
			sp.vals["embedder"] = ev
			given["embedder"] = true
			v = []node{{name: v[0].prefix, pos: v[0].pos}}
		}
		val, err := value(src, e, k, v)
		if err != nil {
			return nil, err
		}
		sp.vals[key] = val
	}
	for i := range e.Knobs {
		k := &e.Knobs[i]
		if given[k.Name] {
			continue
		}
		if k.Required {
			return nil, &KnobError{Spec: src, Pos: len(src), Component: e.Name, Knob: k.Name, Msg: "required"}
		}
		var dn []node
		if k.Default != "" || k.Type == TypeString {
			d, err := parse(k.Default)
			if k.Type == TypeString {
				d, err = node{name: k.Default}, nil
			}
			if err != nil {
				panic(fmt.Sprintf("catalog: %s %s: default %q: %v", e.Name, k.Name, k.Default, err))
			}
			dn = []node{d}
		}
		if dn == nil {
			sp.vals[k.Name] = (*Spec)(nil)
			continue
		}
		if k.Type == TypeList {
			dn = nil
			for _, w := range strings.Split(k.Default, "+") {
				dn = append(dn, node{name: w})
			}
		}
		val, err := value(k.Default, e, k, dn)
		if err != nil {
			panic(fmt.Sprintf("catalog: %s %s: default %q: %v", e.Name, k.Name, k.Default, err))
		}
		sp.vals[k.Name] = val
	}
	if e.check != nil {
		if err := e.check(sp); err != nil {
			return nil, fmt.Errorf("catalog: spec %q: %w", src, err)
		}
	}
	return sp, nil
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("catalog: missing")
	}
	return v
}

// value reads one knob's value.
func value(src string, e *Entry, k *Knob, v []node) (any, error) {
	bad := func(pos int, format string, a ...any) error {
		return &KnobError{Spec: src, Pos: pos, Component: e.Name, Knob: k.Name, Msg: fmt.Sprintf(format, a...)}
	}
	if k.Type != TypeList && len(v) > 1 {
		return nil, bad(v[1].pos, "takes one value, not a list joined by +")
	}
	first := v[0]
	if k.Type != TypeSpec && (first.parens || len(first.args) > 0) {
		return nil, bad(first.pos, "takes a %s, not a spec", k.Type)
	}
	switch k.Type {
	case TypeString:
		return first.text(), nil
	case TypeInt:
		x, err := strconv.Atoi(first.text())
		if err != nil {
			return nil, bad(first.pos, "want an integer, got %q", first.text())
		}
		return x, nil
	case TypeFloat:
		x, err := strconv.ParseFloat(first.text(), 64)
		if err != nil {
			return nil, bad(first.pos, "want a number, got %q", first.text())
		}
		return x, nil
	case TypeBool:
		x, err := strconv.ParseBool(first.text())
		if err != nil {
			return nil, bad(first.pos, "want true or false, got %q", first.text())
		}
		return x, nil
	case TypeEnum:
		if !slices.Contains(k.Allowed, first.text()) {
			return nil, &UnknownError{What: "value of " + e.Name + " " + k.Name, Name: first.text(), Nearest: orAll(nearest(first.text(), k.Allowed), k.Allowed), Spec: src, Pos: first.pos}
		}
		return first.text(), nil
	case TypeList:
		seen := map[string]bool{}
		for _, t := range v {
			if t.parens || t.prefix != "" || !slices.Contains(k.Allowed, t.name) {
				return nil, &UnknownError{What: "value of " + e.Name + " " + k.Name, Name: t.text(), Nearest: orAll(nearest(t.name, k.Allowed), k.Allowed), Spec: src, Pos: t.pos}
			}
			if seen[t.name] {
				return nil, bad(t.pos, "%q listed twice", t.name)
			}
			seen[t.name] = true
		}
		var out []string
		for _, t := range v {
			out = append(out, t.name)
		}
		return out, nil
	case TypeSpec:
		sub, err := resolve(src, k.Of, first)
		if err != nil {
			return nil, err
		}
		return sub, nil
	}
	panic("catalog: knob type " + k.Type)
}

// orAll returns near, or all when nothing is near and the list is short.
func orAll(near, all []string) []string {
	if len(near) == 0 && len(all) <= 6 {
		return all
	}
	return near
}

// NeedsModelError is a component that needs a model of Role when no
// endpoint is configured. errors.Is(err, retrieval.ErrNeedsModel) holds
// for it too.
type NeedsModelError struct {
	// Component is the canonical spec of what needs it.
	Component string
	// Role is the model's role: llm.RoleEmbedder, RoleExtractor,
	// RoleBackbone or RoleJudge.
	Role string
}

// Error reads `flat(dense:embedder(model=x)): needs an embedder model`.
func (e *NeedsModelError) Error() string {
	return fmt.Sprintf("catalog: %s: %s", e.Component, e.Reason())
}

// Reason is the error without the component, the same for every
// component that needs a model of the role: "needs an embedder model:
// configure an endpoint (...)".
func (e *NeedsModelError) Reason() string {
	return fmt.Sprintf("needs %s %s model: configure an endpoint (OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG)", article(e.Role), e.Role)
}

func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// Is makes errors.Is(err, retrieval.ErrNeedsModel) true.
func (e *NeedsModelError) Is(target error) bool { return target == errNeedsModel }

// Roles lists the model roles building s needs (llm.RoleEmbedder,
// RoleExtractor, RoleBackbone, RoleJudge), its parts' included, each once
// in the order met; none for a component that builds offline. A build
// without a model client fails with a *NeedsModelError of the first.
func (s *Spec) Roles() []string {
	var out []string
	add := func(r string) {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	add(s.Entry.Needs)
	if s.Entry.Name == "memos" && s.Str("mode") == "fine" || s.Entry.Name == "timeline" && s.Str("extractor") == "model" {
		add("extractor")
	}
	for i := range s.Entry.Knobs {
		k := &s.Entry.Knobs[i]
		if k.Type != TypeSpec || s.Sub(k.Name) == nil {
			continue
		}
		for _, r := range s.Sub(k.Name).Roles() {
			add(r)
		}
	}
	return out
}

func (e *Entry) hasRequired() bool {
	for _, k := range e.Knobs {
		if k.Required {
			return true
		}
	}
	return false
}
