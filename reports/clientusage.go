package reports

import (
	"fmt"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/llm"
)

// ClientUsageTable lays out a model client's usage (llm.Client.Usage,
// llm.DefaultUsage): one row per role and model with the calls made, the
// answers served by the cache, the failed calls, the tokens and the cost
// in USD, and a total row when there are several; an unpriced cost shows
// as "no price".
func ClientUsageTable(r llm.UsageReport) analysis.Table {
	t := analysis.Table{Header: []string{"role", "model", "calls", "cache hits", "failed", "prompt tokens", "completion tokens", "cost (USD)"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r", "r"}}
	add := func(row llm.UsageRow) {
		cost := "no price"
		if row.Priced {
			cost = fmt.Sprintf("%.4f", row.CostUSD)
		}
		t.AddRow([]string{row.Role, row.Model, fmt.Sprint(row.Calls), fmt.Sprint(row.CacheHits), fmt.Sprint(row.Failed),
			fmt.Sprint(row.PromptTokens), fmt.Sprint(row.CompletionTokens), cost})
	}
	for _, row := range r.Rows {
		add(row)
	}
	if len(r.Rows) > 1 {
		add(r.Total())
	}
	return t
}
