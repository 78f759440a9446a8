package component

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// Spec describes a component: Kind says what it is ("flat-bm25",
// "model-reader", "knowme-judge"...), Knobs hold every setting that can
// change its results (models, prompt and rubric hashes, k-like parameters,
// constants, modes, seeds; never a secret: URLs are redacted by the
// component, keys are never there), and Parts the specs of the components
// it is built on (the inner system of a wrapper, an embedder, a unit
// builder, a reader's model...), by role.
//
// A knob's value is a string, a bool, an integer, a float (NaN and the
// infinities are written as the strings "NaN", "+Inf", "-Inf"), a
// time.Duration, a slice or a string-keyed map of those, or a nested Spec.
type Spec struct {
	Kind  string          `json:"kind"`
	Knobs map[string]any  `json:"knobs,omitempty"`
	Parts map[string]Spec `json:"parts,omitempty"`
}

// Describer is a component that describes itself.
type Describer interface {
	// Spec returns the component's spec: equal specs for equal configs,
	// a different spec when any knob that can change results differs.
	Spec() Spec
}

// New returns the spec of a component of the given kind, with no knobs
// and no parts yet.
func New(kind string) Spec { return Spec{Kind: kind} }

// With returns a copy of s with knob name set to v (s itself is not
// changed, so a spec a component returns can be extended safely).
func (s Spec) With(name string, v any) Spec {
	knobs := make(map[string]any, len(s.Knobs)+1)
	maps.Copy(knobs, s.Knobs)
	knobs[name] = v
	s.Knobs = knobs
	return s
}

// Part returns a copy of s with the part named role set to p.
func (s Spec) Part(role string, p Spec) Spec {
	parts := make(map[string]Spec, len(s.Parts)+1)
	maps.Copy(parts, s.Parts)
	parts[role] = p
	s.Parts = parts
	return s
}

// Of returns x's spec when x is a Describer, and otherwise the spec of kind
// "undescribed" whose only knob is the given name (a component defined in
// a notebook, say): such components are told apart by their names alone.
func Of(x any, name string) Spec {
	if d, ok := x.(Describer); ok {
		return d.Spec()
	}
	return New("undescribed").With("name", name)
}

// JSON returns the spec's canonical JSON: object keys sorted, no spaces,
// integers in decimal, floats in their shortest form that parses back to
// the same value (as encoding/json writes a float64), durations as their
// nanoseconds, nested specs and maps with their keys sorted. Two
// specs have the same JSON exactly when they describe the same
// component. It fails on a knob of another type (a func, a channel, a map
// with other keys than strings), naming the kind and the knob.
func (s Spec) JSON() ([]byte, error) {
	var b bytes.Buffer
	if err := s.encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalJSON is JSON, so that a Spec inside another value is canonical too.
func (s Spec) MarshalJSON() ([]byte, error) { return s.JSON() }

// UnmarshalJSON reads a spec written by JSON, keeping numbers as written
// (json.Number), so that the spec read back has the same JSON and a run
// read from a store has the same id. A nested spec among the knobs reads
// back as a map of the same JSON.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var raw struct {
		Kind  string          `json:"kind"`
		Knobs map[string]any  `json:"knobs"`
		Parts map[string]Spec `json:"parts"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		return fmt.Errorf("component: bad spec: %w", err)
	}
	*s = Spec{Kind: raw.Kind, Knobs: raw.Knobs, Parts: raw.Parts}
	return nil
}

func (s Spec) encode(b *bytes.Buffer) error {
	b.WriteString(`{"kind":`)
	writeString(b, s.Kind)
	if len(s.Knobs) > 0 {
		b.WriteString(`,"knobs":{`)
		for i, k := range slices.Sorted(mapKeys(s.Knobs)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encodeValue(b, s.Knobs[k]); err != nil {
				return fmt.Errorf("component: spec of %q: knob %q: %w", s.Kind, k, err)
			}
		}
		b.WriteByte('}')
	}
	if len(s.Parts) > 0 {
		b.WriteString(`,"parts":{`)
		for i, k := range slices.Sorted(mapKeys(s.Parts)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := s.Parts[k].encode(b); err != nil {
				return fmt.Errorf("component: spec of %q: part %q: %w", s.Kind, k, err)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func writeString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always encodes
	b.Write(q)
}

func encodeValue(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
		return nil
	case Spec:
		return x.encode(b)
	case string:
		writeString(b, x)
		return nil
	case bool:
		b.WriteString(strconv.FormatBool(x))
		return nil
	case time.Duration:
		b.WriteString(strconv.FormatInt(int64(x), 10))
		return nil
	case json.Number: // a number read back by UnmarshalJSON, as it was written
		b.WriteString(x.String())
		return nil
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.String:
		writeString(b, r.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(r.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(r.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(r.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		f := r.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// JSON has no such number: the string, as strconv writes it.
			writeString(b, strconv.FormatFloat(f, 'g', -1, 64))
			break
		}
		n, _ := json.Marshal(f) // a finite float64 always encodes
		b.Write(n)
	case reflect.Map:
		if r.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("value of type %T cannot be part of a spec (map keys must be strings)", v)
		}
		keys := make([]string, 0, r.Len())
		for _, k := range r.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encodeValue(b, r.MapIndex(reflect.ValueOf(k).Convert(r.Type().Key())).Interface()); err != nil {
				return fmt.Errorf("key %q: %w", k, err)
			}
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range r.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeValue(b, r.Index(i).Interface()); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("value of type %T cannot be part of a spec", v)
	}
	return nil
}

// String returns the canonical JSON, or the encoding error.
func (s Spec) String() string {
	b, err := s.JSON()
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

// Fields returns s with one knob per exported field of the struct cfg
// (a struct or a pointer to one), named by the field's name in snake case
// ("EvoThreshold" is "evo_threshold"), except the fields named in omit
// (settings that change no result: a cache directory, a batch size). A
// field whose value cannot be a knob (an interface, a pointer, a func) is
// an error naming it: the component describes it as a part instead, and
// omits it here.
func (s Spec) Fields(cfg any, omit ...string) (Spec, error) {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return s, fmt.Errorf("component: spec of %q: fields of a %T, want a struct", s.Kind, cfg)
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || slices.Contains(omit, f.Name) {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			return s, fmt.Errorf("component: spec of %q: field %s of %s is a %s: describe it as a part and omit it", s.Kind, f.Name, t, f.Type)
		}
		s = s.With(SnakeCase(f.Name), v.Field(i).Interface())
	}
	return s, nil
}

// MustFields is Fields that panics on an error (a programming error: a
// component's own config type).
func (s Spec) MustFields(cfg any, omit ...string) Spec {
	s, err := s.Fields(cfg, omit...)
	if err != nil {
		panic(err)
	}
	return s
}

// SnakeCase returns a Go field name in snake case: "TopS" is "top_s",
// "K1" is "k1", "URL" is "url", "MaxDFRatio" is "max_df_ratio".
func SnakeCase(name string) string {
	r := []rune(name)
	var b []rune
	for i, c := range r {
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 {
			prevLower := r[i-1] >= 'a' && r[i-1] <= 'z' || r[i-1] >= '0' && r[i-1] <= '9'
			nextLower := i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z'
			prevUpper := r[i-1] >= 'A' && r[i-1] <= 'Z'
			if prevLower || prevUpper && nextLower {
				b = append(b, '_')
			}
		}
		if upper {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
