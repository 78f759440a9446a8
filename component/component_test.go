package component

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestJSONIsCanonical: keys sorted whatever the order of construction,
// numbers in one form, nested parts canonical too.
func TestJSONIsCanonical(t *testing.T) {
	a := New("w").With("b", 2).With("a", 1.5).With("d", time.Second).With("l", []string{"x", "y"}).
		Part("inner", New("flat").With("k1", 1.2).With("n", int64(1000000)))
	b := New("w").Part("inner", New("flat").With("n", 1000000).With("k1", 1.2)).
		With("l", []string{"x", "y"}).With("d", time.Second).With("a", 1.5).With("b", uint8(2))
	want := `{"kind":"w","knobs":{"a":1.5,"b":2,"d":1000000000,"l":["x","y"]},"parts":{"inner":{"kind":"flat","knobs":{"k1":1.2,"n":1000000}}}}`
	for _, s := range []Spec{a, b} {
		got, err := s.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("JSON:\n got %s\nwant %s", got, want)
		}
	}
	if New("x").String() != `{"kind":"x"}` {
		t.Errorf("empty spec: %s", New("x"))
	}
}

// TestJSONRoundTrips: a spec read back (as a run store reads it) has the
// same JSON, numbers included.
func TestJSONRoundTrips(t *testing.T) {
	s := New("w").With("f", 0.1).With("big", 1e21).With("i", 1<<40).With("neg", -3).
		With("m", map[string]int{"z": 1, "a": 2}).With("nested", New("n").With("x", true)).
		Part("p", New("q").With("s", `a"<b>`))
	js, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	again, err := back.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(js) {
		t.Errorf("read back:\n got %s\nwant %s", again, js)
	}
	type wrap struct{ S *Spec }
	out, err := json.Marshal(wrap{&s})
	if err != nil || !strings.Contains(string(out), string(js)) {
		t.Errorf("inside a value: %s (%v), want it to hold %s", out, err, js)
	}
}

// TestNonFiniteFloats are written as strings: a spec always encodes.
func TestNonFiniteFloats(t *testing.T) {
	got := New("x").With("a", math.NaN()).With("b", math.Inf(1)).With("c", float32(math.Inf(-1))).String()
	if want := `{"kind":"x","knobs":{"a":"NaN","b":"+Inf","c":"-Inf"}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestJSONRejectsWhatIsNotAKnob names the kind and the knob.
func TestJSONRejectsWhatIsNotAKnob(t *testing.T) {
	for name, v := range map[string]any{"func": func() {}, "chan": make(chan int), "intmap": map[int]int{1: 1}} {
		_, err := New("sys").Part("inner", New("emb").With(name, v)).JSON()
		if err == nil || !strings.Contains(err.Error(), `"emb"`) || !strings.Contains(err.Error(), `"`+name+`"`) ||
			!strings.Contains(err.Error(), `part "inner"`) {
			t.Errorf("%s: error %v, want one naming the part, the kind and the knob", name, err)
		}
	}
}

type described struct{}

func (described) Spec() Spec { return New("d").With("x", 1) }

// TestOf: a Describer's own spec, else the name.
func TestOf(t *testing.T) {
	if got := Of(described{}, "ignored").String(); got != `{"kind":"d","knobs":{"x":1}}` {
		t.Errorf("Of a Describer: %s", got)
	}
	if got := Of(struct{}{}, "mine").String(); got != `{"kind":"undescribed","knobs":{"name":"mine"}}` {
		t.Errorf("Of another value: %s", got)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"TopS": "top_s", "K1": "k1", "URL": "url", "MaxDFRatio": "max_df_ratio",
		"EvoThreshold": "evo_threshold", "GRPC": "grpc", "NoJSONMode": "no_json_mode", "B": "b"} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFields: every exported field but the omitted ones; an interface
// field is an error naming it.
func TestFields(t *testing.T) {
	type cfg struct {
		Mode      string
		TopS      int
		Gap       time.Duration
		IndexDir  string
		unexposed int
	}
	s, err := New("x").Fields(cfg{Mode: "m", TopS: 3, Gap: time.Minute, IndexDir: "/tmp", unexposed: 1}, "IndexDir")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != `{"kind":"x","knobs":{"gap":60000000000,"mode":"m","top_s":3}}` {
		t.Errorf("Fields: %s", got)
	}
	type withIface struct{ Emb any }
	if _, err := New("y").Fields(withIface{}); err == nil || !strings.Contains(err.Error(), "Emb") {
		t.Errorf("an interface field: error %v, want one naming Emb", err)
	}
}

// TestWithCopies: extending a spec leaves the original as it was.
func TestWithCopies(t *testing.T) {
	a := New("a").With("x", 1).Part("p", New("p"))
	_ = a.With("x", 2).With("y", 3).Part("p", New("q")).Part("r", New("r"))
	if got := a.String(); got != `{"kind":"a","knobs":{"x":1},"parts":{"p":{"kind":"p"}}}` {
		t.Errorf("the original changed: %s", got)
	}
}
