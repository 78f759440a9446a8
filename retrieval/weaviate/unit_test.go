package weaviate

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/memlab/memlab/retrieval"
)

func TestSanitizeClassName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"trace", "Trace"},
		{"hashed-tfidf(d=1024)", "Hashedtfidfd1024"},
		{"9lives", "C9lives"},
		{"", "C"},
		{"---", "C"},
		{"日本語abc", "Abc"},
		{"Already_Fine", "AlreadyFine"},
	}
	for _, c := range cases {
		got := SanitizeClassName(c.in)
		if got != c.want {
			t.Errorf("SanitizeClassName(%q) = %q, want %q", c.in, got, c.want)
		}
		if !validClassName(got) {
			t.Errorf("SanitizeClassName(%q) = %q is not a valid class name", c.in, got)
		}
	}
}

func TestValidClassName(t *testing.T) {
	cases := map[string]bool{"Trace": true, "T1": true, "trace": false, "1T": false, "": false, "Tr_ace": false, "Tr-ace": false,
		strings.Repeat("A", 255): true, strings.Repeat("A", 256): false}
	for in, want := range cases {
		if got := validClassName(in); got != want {
			t.Errorf("validClassName(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestCollectionName(t *testing.T) {
	fp := "5aca6d877c18191db3a5dda90e66b716209e1dde7b472637366dd473ce70a599"
	emb := "hashed-tfidf(d=1024,char=3-5,unseen=maxidf,docs=117)"
	a := CollectionName(fp, emb)
	if !strings.HasPrefix(a, "Memlab5aca6d877c18Hashedtfidfd1024char35") {
		t.Errorf("CollectionName = %q: want the fingerprint prefix and the embedder's letters", a)
	}
	if !validClassName(a) {
		t.Errorf("CollectionName = %q is not a valid class name", a)
	}
	if b := CollectionName(fp, emb); b != a {
		t.Errorf("CollectionName not deterministic: %q then %q", a, b)
	}
	// names that reduce to the same letters still differ
	if b := CollectionName(fp, "hashed-tfidf(d=1024,char=3-5,unseen=maxidf,docs=11)7"); b == a {
		t.Errorf("different embedders share collection %q", a)
	}
	if b := CollectionName("ffff"+fp[4:], emb); b == a {
		t.Errorf("different datasets share collection %q", a)
	}
	long := CollectionName(fp, strings.Repeat("x", 1000))
	if len(long) > 100 || !validClassName(long) {
		t.Errorf("CollectionName with a long embedder name = %q (%d chars)", long, len(long))
	}
	if e := CollectionName("", ""); !validClassName(e) {
		t.Errorf("CollectionName(\"\", \"\") = %q is not valid", e)
	}
}

func TestObjectID(t *testing.T) {
	a := ObjectID("p01", "t1")
	if a != ObjectID("p01", "t1") {
		t.Fatal("ObjectID not deterministic")
	}
	if len(a) != 36 || a[14] != '5' {
		t.Errorf("ObjectID = %q: want a version 5 UUID", a)
	}
	for _, o := range [][2]string{{"p02", "t1"}, {"p01", "t2"}, {"p01/t", "1"}, {"p0", "1t1"}} {
		if ObjectID(o[0], o[1]) == a {
			t.Errorf("ObjectID(%q, %q) collides with ObjectID(p01, t1)", o[0], o[1])
		}
	}
	if ObjectID("a/b", "c") == ObjectID("a", "b/c") {
		t.Error("the separator does not keep (a/b, c) and (a, b/c) apart")
	}
}

func TestAdmissionFilter(t *testing.T) {
	at := time.Date(2023, 3, 20, 19, 0, 0, 0, time.FixedZone("X", 3600))
	got := admissionFilter("p01_en", at).String()
	want := `where:{operator: And operands:[{operator: Equal path: ["corpus"] valueText: "p01_en"},` +
		`{operator: Or operands:[{operator: Equal path: ["hasTime"] valueBoolean: false},` +
		`{operator: LessThanEqual path: ["eventTime"] valueDate: "2023-03-20T18:00:00Z"}]}]}`
	if got != want {
		t.Errorf("admission filter:\n got %s\nwant %s", got, want)
	}
	if got := admissionFilter(`we"ird`, time.Time{}).String(); got != `where:{operator: Equal path: ["corpus"] valueText: "we\"ird"}` {
		t.Errorf("filter without a time: %s", got)
	}
}

func TestQueryTerms(t *testing.T) {
	cases := map[string]string{
		`What's the "cello" rent?`: "what's the cello rent",
		"我喜欢北京":                    "我喜 喜欢 欢北 北京",
		"  \t\x01 ":                "",
		`back\slash`:               "back slash",
	}
	for in, want := range cases {
		if got := queryTerms(in); got != want {
			t.Errorf("queryTerms(%q) = %q, want %q", in, got, want)
		}
	}
}

func gqlResponse(t *testing.T, js string) *models.GraphQLResponse {
	t.Helper()
	var r models.GraphQLResponse
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestParseHits(t *testing.T) {
	res := gqlResponse(t, `{"data":{"Get":{"C":[
		{"unitId":"t1","traceIds":["t1"],"kind":"chunk","eventTime":"2023-01-08T21:14:00Z","content":"hello",
		 "_additional":{"id":"x","distance":0.25,"score":"1.75"}},
		{"unitId":"m1","traceIds":["t2","t3"],"kind":"memory","eventTime":null,"content":"",
		 "_additional":{"id":"y","distance":0.5,"score":"0.5"}}]}}}`)
	hits, err := parseHits(res, "C", "distance")
	if err != nil {
		t.Fatal(err)
	}
	want := []retrieval.Hit{
		{UnitID: "t1", TraceIDs: []string{"t1"}, Kind: "chunk", Time: time.Date(2023, 1, 8, 21, 14, 0, 0, time.UTC), Text: "hello", Score: 0.75},
		{UnitID: "m1", TraceIDs: []string{"t2", "t3"}, Kind: "memory", Score: 0.5},
	}
	if len(hits) != len(want) {
		t.Fatalf("got %d hits, want %d", len(hits), len(want))
	}
	for i := range want {
		g, w := hits[i], want[i]
		if g.UnitID != w.UnitID || strings.Join(g.TraceIDs, ",") != strings.Join(w.TraceIDs, ",") || g.Kind != w.Kind ||
			!g.Time.Equal(w.Time) || g.Text != w.Text || math.Abs(g.Score-w.Score) > 1e-12 {
			t.Errorf("hit %d = %+v, want %+v", i, g, w)
		}
	}
	hits, err = parseHits(res, "C", "score")
	if err != nil || hits[0].Score != 1.75 || hits[1].Score != 0.5 {
		t.Errorf("score parsing: %v, %+v", err, hits)
	}
	if hits, err := parseHits(gqlResponse(t, `{"data":{"Get":{"C":[]}}}`), "C", "score"); err != nil || len(hits) != 0 {
		t.Errorf("empty answer: %v, %v", hits, err)
	}
}

func TestParseHitsErrors(t *testing.T) {
	cases := []struct{ name, js, want string }{
		{"graphql error", `{"errors":[{"message":"vector lengths don't match: 1024 vs 5"}]}`, "GraphQL error: vector lengths don't match"},
		{"no Get", `{"data":{}}`, "$.data.Get: want an object"},
		{"not a list", `{"data":{"Get":{"C":{}}}}`, "$.data.Get.C: want a list"},
		{"bad score", `{"data":{"Get":{"C":[{"unitId":"a","_additional":{"score":"x"}}]}}}`, `$.data.Get.C[0]._additional.score: "x" is not a number`},
		{"no score", `{"data":{"Get":{"C":[{"unitId":"a","_additional":{}}]}}}`, `$.data.Get.C[0]._additional.score: want a number`},
		{"bad time", `{"data":{"Get":{"C":[{"unitId":"a","eventTime":"2023-01-08","_additional":{"score":"1"}}]}}}`, `$.data.Get.C[0].eventTime: "2023-01-08" is not an RFC 3339 time`},
		{"bad ids", `{"data":{"Get":{"C":[{"unitId":"a","traceIds":[1],"_additional":{"score":"1"}}]}}}`, `$.data.Get.C[0].traceIds[0]: want a string`},
		{"no unit", `{"data":{"Get":{"C":[{"_additional":{"score":"1"}}]}}}`, `$.data.Get.C[0].unitId: missing`},
	}
	for _, c := range cases {
		_, err := parseHits(gqlResponse(t, c.js), "C", "score")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	n, err := parseCount(gqlResponse(t, `{"data":{"Aggregate":{"C":[{"meta":{"count":117}}]}}}`), "C")
	if err != nil || n != 117 {
		t.Errorf("parseCount = %d, %v; want 117", n, err)
	}
	if _, err := parseCount(gqlResponse(t, `{"data":{"Aggregate":{"C":[]}}}`), "C"); err == nil {
		t.Error("parseCount of an empty list: no error")
	}
	if _, err := parseCount(gqlResponse(t, `{"errors":[{"message":"boom"}]}`), "C"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("parseCount of an error answer: %v", err)
	}
}

func TestBuildObject(t *testing.T) {
	s := &Store{cfg: Config{Collection: "C"}, dims: 3}
	at := time.Date(2023, 1, 8, 21, 14, 0, 0, time.FixedZone("X", -3600))
	m, err := s.buildObject(Object{Corpus: "p", Medium: "diary", Vector: []float32{1, 0, 0},
		Unit: retrieval.Unit{ID: "t1", TraceIDs: []string{"t1"}, Time: at, Text: "Went to the Cello shop"}})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Properties.(map[string]interface{})
	if p[PropEventTime] != "2023-01-08T22:14:00Z" {
		t.Errorf("eventTime = %#v, want an RFC 3339 UTC string", p[PropEventTime])
	}
	if p[PropHasTime] != true || p[PropKind] != retrieval.KindChunk || p[PropMedium] != "diary" || p[PropTerms] != "went to the cello shop" {
		t.Errorf("properties = %#v", p)
	}
	if m.ID != strfmt.UUID(ObjectID("p", "t1")) || len(m.Vector) != 3 {
		t.Errorf("id %s, vector %v", m.ID, m.Vector)
	}
	m, err = s.buildObject(Object{Corpus: "p", Unit: retrieval.Unit{ID: "u", Kind: retrieval.KindMemory}})
	if err != nil {
		t.Fatal(err)
	}
	p = m.Properties.(map[string]interface{})
	if _, ok := p[PropEventTime]; ok || p[PropHasTime] != false || m.Vector != nil {
		t.Errorf("unit of unknown time without a vector: %#v, vector %v", p, m.Vector)
	}
	if ids, ok := p[PropTraceIDs].([]string); !ok || ids == nil {
		t.Errorf("traceIds = %#v, want an empty list", p[PropTraceIDs])
	}
	bad := []struct {
		o    Object
		want string
	}{
		{Object{Corpus: "p", Unit: retrieval.Unit{ID: "t9"}, Vector: []float32{1, 2}}, `unit "t9" of corpus "p": vector has 2 values, the collection holds 3-d vectors`},
		{Object{Corpus: "p", Unit: retrieval.Unit{ID: "t9"}, Vector: []float32{1, float32(math.NaN()), 0}}, `unit "t9" of corpus "p": vector value 1 is NaN`},
		{Object{Unit: retrieval.Unit{ID: "t9"}}, `unit "t9": empty corpus id`},
		{Object{Corpus: "p"}, `empty unit id`},
	}
	for _, b := range bad {
		if _, err := s.buildObject(b.o); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("buildObject(%+v): error %v, want %q", b.o, err, b.want)
		}
	}
}

func TestBatchFailures(t *testing.T) {
	objs := []Object{{Corpus: "p", Unit: retrieval.Unit{ID: "a"}}, {Corpus: "p", Unit: retrieval.Unit{ID: "b", TraceIDs: []string{"b"}}},
		{Corpus: "p", Unit: retrieval.Unit{ID: "c", TraceIDs: []string{"t7", "t8"}}}}
	built := make([]*models.Object, len(objs))
	for i, o := range objs {
		built[i] = &models.Object{ID: strfmt.UUID(ObjectID(o.Corpus, o.Unit.ID))}
	}
	failed, ok := models.ObjectsGetResponseAO2ResultStatusFAILED, models.ObjectsGetResponseAO2ResultStatusSUCCESS
	resp := []models.ObjectsGetResponse{
		// answered out of order, as REST may do; c is missing
		{Object: models.Object{ID: built[1].ID}, Result: &models.ObjectsGetResponseAO2Result{Status: &failed,
			Errors: &models.ErrorResponse{Error: []*models.ErrorResponseErrorItems0{{Message: "no such prop with name 'bogus'"}}}}},
		{Object: models.Object{ID: built[0].ID}, Result: &models.ObjectsGetResponseAO2Result{Status: &ok}},
	}
	fs := batchFailures(resp, []int{0, 1, 2}, built, objs)
	if len(fs) != 2 || fs[0].UnitID != "b" || !strings.Contains(fs[0].Message, "bogus") || fs[1].UnitID != "c" || !strings.Contains(fs[1].Message, "no answer") {
		t.Errorf("failures = %+v", fs)
	}
	e := &ImportError{Collection: "C", Total: 3, Sent: 3, Failures: fs}
	msg := e.Error()
	for _, w := range []string{"weaviate: import into C: 2 of 3 objects refused", `trace "b" of corpus "p"`, "bogus", `unit "c" (traces "t7", "t8") of corpus "p"`} {
		if !strings.Contains(msg, w) {
			t.Errorf("ImportError %q lacks %q", msg, w)
		}
	}
	boom := errors.New("rpc error: code = Unavailable")
	e = &ImportError{Collection: "C", Total: 10, Sent: 4, Transport: boom}
	if !errors.Is(e, boom) || !strings.Contains(e.Error(), "after 4 of 10 objects were sent") || !strings.Contains(e.Error(), "running it again resumes") {
		t.Errorf("transport ImportError: %v", e)
	}
}

// TestBatches: import requests hold objects of one corpus each, in the
// order of the objects within a corpus, at most the batch size.
func TestBatches(t *testing.T) {
	var objs []Object
	for i, c := range []string{"a", "b", "a", "a", "c", "b", "a"} {
		objs = append(objs, Object{Corpus: c, Unit: retrieval.Unit{ID: strings.Repeat("x", i+1)}})
	}
	got := batches(objs, 2)
	want := [][]int{{0, 2}, {3, 6}, {1, 5}, {4}}
	if len(got) != len(want) {
		t.Fatalf("batches = %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("batches = %v, want %v", got, want)
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("batches = %v, want %v", got, want)
			}
		}
	}
	if b := batches(nil, 3); len(b) != 0 {
		t.Errorf("batches of nothing = %v", b)
	}
}
