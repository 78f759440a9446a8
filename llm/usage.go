package llm

import (
	"sort"
	"sync"
)

// UsageRow is the usage of one model in one role.
type UsageRow struct {
	Role, Model string
	// Calls made over the network that succeeded, answers served by the
	// cache, and calls that failed (after their retries).
	Calls, CacheHits, Failed int
	// Tokens of the successful network calls (cache hits cost nothing).
	PromptTokens, CompletionTokens int
	// CostUSD is estimated from the price table; Priced is false when the
	// model has no price (then CostUSD is 0 and means "unknown").
	CostUSD float64
	Priced  bool
}

// UsageReport is a client's usage so far, one row per (role, model),
// sorted. reports.ClientUsageTable lays it out as a table.
type UsageReport struct {
	Rows []UsageRow
}

type usageBook struct {
	mu     sync.Mutex
	prices map[string]Price
	rows   map[[2]string]*UsageRow
}

func newUsageBook(prices map[string]Price) *usageBook {
	return &usageBook{prices: prices, rows: map[[2]string]*UsageRow{}}
}

func (b *usageBook) record(role, model string, u Usage, cached bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := [2]string{role, model}
	r := b.rows[k]
	if r == nil {
		r = &UsageRow{Role: role, Model: model}
		b.rows[k] = r
	}
	switch {
	case err != nil:
		r.Failed++
	case cached:
		r.CacheHits++
	default:
		r.Calls++
		r.PromptTokens += u.PromptTokens
		r.CompletionTokens += u.CompletionTokens
	}
}

// Usage returns the usage so far with cost estimates from the config's
// price table.
func (c *Client) Usage() UsageReport {
	b := c.usage
	b.mu.Lock()
	defer b.mu.Unlock()
	var rep UsageReport
	for _, r := range b.rows {
		row := *r
		if p, ok := b.prices[row.Model]; ok {
			row.Priced = true
			row.CostUSD = (float64(row.PromptTokens)*p.Prompt + float64(row.CompletionTokens)*p.Completion) / 1e6
		}
		rep.Rows = append(rep.Rows, row)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		if rep.Rows[i].Role != rep.Rows[j].Role {
			return rep.Rows[i].Role < rep.Rows[j].Role
		}
		return rep.Rows[i].Model < rep.Rows[j].Model
	})
	return rep
}

// Total sums the rows; its cost is the sum of the priced rows.
func (r UsageReport) Total() UsageRow {
	t := UsageRow{Role: "all", Model: "all", Priced: true}
	for _, row := range r.Rows {
		t.Calls += row.Calls
		t.CacheHits += row.CacheHits
		t.Failed += row.Failed
		t.PromptTokens += row.PromptTokens
		t.CompletionTokens += row.CompletionTokens
		t.CostUSD += row.CostUSD
		t.Priced = t.Priced && row.Priced
	}
	return t
}
