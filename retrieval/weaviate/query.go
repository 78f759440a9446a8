package weaviate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// Search modes.
const (
	ModeDense  = "dense"  // nearVector: cosine similarity to Query.Vector
	ModeBM25   = "bm25"   // Weaviate's BM25 over the terms property
	ModeHybrid = "hybrid" // Weaviate's hybrid: BM25 and nearVector fused with weight Alpha
)

// Query is one search of a Store.
type Query struct {
	// Corpus restricts the search to one corpus (required).
	Corpus string
	// AskedAt admits only units dated at or before it, and units of unknown
	// time; the zero time admits every unit.
	AskedAt time.Time
	// K is the number of hits wanted (0 gives none).
	K int
	// Mode is ModeDense, ModeBM25 or ModeHybrid.
	Mode string
	// Vector is the query vector of dense and hybrid search (Dims values).
	Vector []float32
	// Text is the query text of BM25 and hybrid search. It is cut into
	// text.Tokens, as the stored terms are, so Chinese text is searched
	// by character bigrams.
	Text string
	// Alpha is hybrid search's weight of the vector side, in [0, 1]: 0 is
	// BM25 alone, 1 the vector search alone. It is taken as given.
	Alpha float64
}

// Search returns the k best units of q.Corpus for q, best first, among the
// units admitted at q.AskedAt. Admission is a filter the server applies
// before ranking (see the package doc), so it never shortens a result that
// more admitted units could fill. Hit.Score is the cosine similarity (1 −
// cosine distance) for dense search and Weaviate's score for BM25 and
// hybrid. A BM25 query without any token gives no hits.
func (s *Store) Search(ctx context.Context, q Query) ([]retrieval.Hit, error) {
	fail := func(err error) ([]retrieval.Hit, error) {
		return nil, fmt.Errorf("weaviate: search %s corpus %q (%s): %w", s.cfg.Collection, q.Corpus, q.Mode, err)
	}
	if q.Corpus == "" {
		return fail(fmt.Errorf("empty corpus id"))
	}
	if q.K < 0 {
		return fail(fmt.Errorf("k = %d, want >= 0", q.K))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	needVec := q.Mode == ModeDense || q.Mode == ModeHybrid
	switch {
	case q.Mode != ModeDense && q.Mode != ModeBM25 && q.Mode != ModeHybrid:
		return fail(fmt.Errorf("unknown mode %q: want %q, %q or %q", q.Mode, ModeDense, ModeBM25, ModeHybrid))
	case needVec && len(q.Vector) != s.dims:
		return fail(fmt.Errorf("query vector has %d values, the collection holds %d-d vectors", len(q.Vector), s.dims))
	case q.Mode == ModeHybrid && (q.Alpha < 0 || q.Alpha > 1 || math.IsNaN(q.Alpha)):
		return fail(fmt.Errorf("alpha = %v, want a value in [0, 1]", q.Alpha))
	}
	if needVec {
		for j, v := range q.Vector {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fail(fmt.Errorf("query vector value %d is %v", j, v))
			}
		}
	}
	terms := queryTerms(q.Text)
	if q.K == 0 || (q.Mode == ModeBM25 && terms == "") {
		return nil, nil
	}
	if ok, err := s.hasTenant(ctx, q.Corpus); err != nil {
		return fail(err)
	} else if !ok {
		return nil, nil // nothing stored for the corpus yet
	}
	get := s.client.GraphQL().Get().WithClassName(s.cfg.Collection).
		WithFields(resultFields(q.Mode)...).
		WithWhere(admissionFilter(q.Corpus, q.AskedAt)).
		WithLimit(q.K)
	if t := s.tenant(q.Corpus); t != "" {
		get = get.WithTenant(t)
	}
	gql := s.client.GraphQL()
	switch {
	case q.Mode == ModeDense || (q.Mode == ModeHybrid && terms == ""):
		// hybrid without any query token is the vector search alone
		get = get.WithNearVector(gql.NearVectorArgBuilder().WithVector(q.Vector))
	case q.Mode == ModeBM25:
		get = get.WithBM25(gql.Bm25ArgBuilder().WithQuery(terms).WithProperties(PropTerms))
	default:
		get = get.WithHybrid(gql.HybridArgumentBuilder().WithQuery(terms).WithVector(q.Vector).
			WithAlpha(float32(q.Alpha)).WithProperties([]string{PropTerms}).WithFusionType(graphql.RelativeScore))
	}
	res, err := get.Do(ctx)
	if err != nil {
		return fail(err)
	}
	scoreBy := "score"
	if q.Mode == ModeDense || (q.Mode == ModeHybrid && terms == "") {
		scoreBy = "distance"
	}
	hits, err := parseHits(res, s.cfg.Collection, scoreBy)
	if err != nil {
		return fail(err)
	}
	return hits, nil
}

// queryTerms is the BM25 query of s: its text.Tokens joined by
// spaces, as the terms property is stored. The tokens hold only letters,
// digits, marks and apostrophes, so nothing in them needs escaping in the
// GraphQL string.
func queryTerms(s string) string {
	toks := text.Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if strings.IndexFunc(t, func(r rune) bool { return unicode.IsControl(r) || r == '"' || r == '\\' }) < 0 {
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// corpusFilter matches the objects of one corpus (exact match: the corpus
// property has field tokenization).
func corpusFilter(corpus string) *filters.WhereBuilder {
	return filters.Where().WithPath([]string{PropCorpus}).WithOperator(filters.Equal).WithValueText(corpus)
}

// admissionFilter is temporal admission as a Weaviate filter: corpus ==
// corpus AND (hasTime == false OR eventTime <= at). A unit of unknown time
// has hasTime false and no eventTime, so the first operand admits it and
// the second, which never matches a missing value, does not exclude it. A
// zero at admits every unit of the corpus.
func admissionFilter(corpus string, at time.Time) *filters.WhereBuilder {
	if at.IsZero() {
		return corpusFilter(corpus)
	}
	return filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		corpusFilter(corpus),
		filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
			filters.Where().WithPath([]string{PropHasTime}).WithOperator(filters.Equal).WithValueBoolean(false),
			filters.Where().WithPath([]string{PropEventTime}).WithOperator(filters.LessThanEqual).WithValueDate(at.UTC()),
		}),
	})
}

// resultFields are the fields a search asks for.
func resultFields(mode string) []graphql.Field {
	add := []graphql.Field{{Name: "id"}, {Name: "distance"}}
	if mode != ModeDense {
		add = []graphql.Field{{Name: "id"}, {Name: "distance"}, {Name: "score"}}
	}
	return []graphql.Field{
		{Name: PropUnitID}, {Name: PropTraceIDs}, {Name: PropKind}, {Name: PropEventTime}, {Name: PropContent},
		{Name: "_additional", Fields: add},
	}
}

// graphQLErrors turns the errors of a GraphQL answer into one error (nil
// when there are none). The client reports them with a nil error.
func graphQLErrors(res *models.GraphQLResponse) error {
	if res == nil {
		return fmt.Errorf("empty GraphQL answer")
	}
	if len(res.Errors) == 0 {
		return nil
	}
	var ms []string
	for _, e := range res.Errors {
		if e != nil {
			ms = append(ms, e.Message)
		}
	}
	return fmt.Errorf("GraphQL error: %s", strings.Join(ms, "; "))
}

// parseHits maps a Get answer to hits, in the answer's order. scoreBy is
// "distance" (Score = 1 − distance) or "score" (Weaviate's score, sent as a
// string).
func parseHits(res *models.GraphQLResponse, class, scoreBy string) ([]retrieval.Hit, error) {
	if err := graphQLErrors(res); err != nil {
		return nil, err
	}
	get, ok := res.Data["Get"].(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("answer: $.data.Get: want an object, got %T", res.Data["Get"])
	}
	rows, ok := get[class].([]interface{})
	if !ok {
		if get[class] == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("answer: $.data.Get.%s: want a list, got %T", class, get[class])
	}
	hits := make([]retrieval.Hit, 0, len(rows))
	for i, r := range rows {
		h, err := parseHit(r, scoreBy)
		if err != nil {
			return nil, fmt.Errorf("answer: $.data.Get.%s[%d]%w", class, i, err)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// parseHit maps one result row; errors start with the JSON path below the row.
func parseHit(r interface{}, scoreBy string) (retrieval.Hit, error) {
	var h retrieval.Hit
	row, ok := r.(map[string]interface{})
	if !ok {
		return h, fmt.Errorf(": want an object, got %T", r)
	}
	str := func(name string) (string, error) {
		switch v := row[name].(type) {
		case string:
			return v, nil
		case nil:
			return "", nil
		default:
			return "", fmt.Errorf(".%s: want a string, got %T", name, v)
		}
	}
	var err error
	if h.UnitID, err = str(PropUnitID); err != nil {
		return h, err
	}
	if h.UnitID == "" {
		return h, fmt.Errorf(".%s: missing", PropUnitID)
	}
	if h.Kind, err = str(PropKind); err != nil {
		return h, err
	}
	if h.Text, err = str(PropContent); err != nil {
		return h, err
	}
	switch ids := row[PropTraceIDs].(type) {
	case nil:
	case []interface{}:
		for j, v := range ids {
			s, ok := v.(string)
			if !ok {
				return h, fmt.Errorf(".%s[%d]: want a string, got %T", PropTraceIDs, j, v)
			}
			h.TraceIDs = append(h.TraceIDs, s)
		}
	default:
		return h, fmt.Errorf(".%s: want a list, got %T", PropTraceIDs, ids)
	}
	ts, err := str(PropEventTime)
	if err != nil {
		return h, err
	}
	if ts != "" {
		if h.Time, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return h, fmt.Errorf(".%s: %q is not an RFC 3339 time", PropEventTime, ts)
		}
	}
	add, ok := row["_additional"].(map[string]interface{})
	if !ok {
		return h, fmt.Errorf("._additional: want an object, got %T", row["_additional"])
	}
	switch v := add[scoreBy].(type) {
	case float64:
		h.Score = v
	case string: // Weaviate sends score as a string
		f, perr := strconv.ParseFloat(v, 64)
		if perr != nil {
			return h, fmt.Errorf("._additional.%s: %q is not a number", scoreBy, v)
		}
		h.Score = f
	default:
		return h, fmt.Errorf("._additional.%s: want a number, got %T", scoreBy, v)
	}
	if scoreBy == "distance" {
		h.Score = 1 - h.Score
	}
	return h, nil
}

// parseCount reads meta.count of an Aggregate answer.
func parseCount(res *models.GraphQLResponse, class string) (int, error) {
	if err := graphQLErrors(res); err != nil {
		return 0, err
	}
	agg, ok := res.Data["Aggregate"].(map[string]interface{})
	if !ok {
		return 0, fmt.Errorf("answer: $.data.Aggregate: want an object, got %T", res.Data["Aggregate"])
	}
	rows, ok := agg[class].([]interface{})
	if !ok || len(rows) == 0 {
		return 0, fmt.Errorf("answer: $.data.Aggregate.%s: want a non-empty list, got %T", class, agg[class])
	}
	row, _ := rows[0].(map[string]interface{})
	meta, _ := row["meta"].(map[string]interface{})
	n, ok := meta["count"].(float64)
	if !ok {
		return 0, fmt.Errorf("answer: $.data.Aggregate.%s[0].meta.count: want a number, got %T", class, meta["count"])
	}
	return int(n), nil
}
