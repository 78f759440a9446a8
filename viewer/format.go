package viewer

import (
	"html/template"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

var funcs = template.FuncMap{
	"table":    func(t analysis.Table) template.HTML { return template.HTML(t.HTML()) }, // analysis escapes every cell
	"f3":       f3,
	"clip":     clip,
	"date":     date,
	"short":    shortID,
	"runURL":   runURL,
	"join":     strings.Join,
	"add":      func(a, b int) int { return a + b },
	"duration": duration,
}

// f3 formats a value with 3 decimals, "n/a" for NaN.
func f3(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return analysis.Fmt(x, 3)
}

// clip cuts s to n runes, marking the cut with "…".
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// date formats a time as "2006-01-02 15:04" in UTC, "unknown" for the
// zero time.
func date(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// shortID is a run id's first 10 characters.
func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

func runURL(id string) string { return "/run/" + url.PathEscape(id) }

// questionURL is the page of rec in run id, carrying the filter query.
func questionURL(id string, rec record.Record, filter string) string {
	v := url.Values{"c": {rec.CorpusID}, "qid": {rec.QuestionID}}
	u := runURL(id) + "/q?" + v.Encode()
	if filter != "" {
		u += "&" + filter
	}
	return u
}
