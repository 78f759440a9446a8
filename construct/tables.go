package construct

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/llm"
)

// Pricing prices a build's calls: Models names the model a role's calls
// go to when the stats name none (a dry run without an endpoint names the
// role), Prices gives each model's USD per million tokens (llm.Config's
// [prices] table).
type Pricing struct {
	Models map[string]string
	Prices map[string]llm.Price
}

// PricingOf is the pricing of a client's config: its roles' models and
// its price table.
func PricingOf(cfg *llm.Config) Pricing {
	p := Pricing{Models: map[string]string{}, Prices: map[string]llm.Price{}}
	if cfg == nil {
		return p
	}
	for role, rm := range cfg.Roles {
		p.Models[role] = rm.Model
	}
	for m, pr := range cfg.Prices {
		p.Prices[m] = pr
	}
	return p
}

// Cost prices a step's calls: expected (each item's first output passing
// its check) and with every revision; priced is false when a model of the
// step has no price (then the costs count the priced models only).
func (p Pricing) Cost(s StepStats) (cost, withRevisions float64, priced bool) {
	priced = true
	for _, role := range sortedKeys(s.ByRole) {
		ru := s.ByRole[role]
		model := ru.Model
		if m, ok := p.Models[role]; ok && (model == "" || model == role) {
			model = m
		}
		pr, ok := p.Prices[model]
		if !ok {
			priced = false
			continue
		}
		cost += (float64(ru.PromptTokens)*pr.Prompt + float64(ru.CompletionTokens)*pr.Completion) / 1e6
		withRevisions += (float64(ru.MaxPromptTokens)*pr.Prompt + float64(ru.MaxCompletionTokens)*pr.Completion) / 1e6
	}
	return cost, withRevisions, priced && len(s.ByRole) > 0
}

// models names the models of a step's roles, "generator / checker".
func (p Pricing) models(s StepStats) string {
	var out []string
	for _, role := range sortedKeys(s.ByRole) {
		m := s.ByRole[role].Model
		if x, ok := p.Models[role]; ok && (m == "" || m == role) {
			m = x
		}
		if m != "" && !contains(out, m) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// StatsTable lays out what each step of a build did: items, rejections
// and revisions, calls (answered, served by the call cache, reused from
// the store, failed), tokens, the wall time from the step's first call to
// its last and when its last call ended (from the build's start), and the
// step's floor in call latencies (the longest chain of
// calls ending in it, and when an ideal executor with the build's
// concurrency would finish it). total is the last row.
func StatsTable(stats []StepStats, total StepStats) analysis.Table {
	t := analysis.Table{Header: []string{"stage", "step", "items", "rejected", "revisions", "calls", "cached", "stored items", "failed calls",
		"prompt tokens", "completion tokens", "first → last call", "last call ends", "chain", "floor (calls)"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"}}
	row := func(s StepStats) {
		span, end := "–", "–"
		if s.Calls+s.Failed > 0 {
			span, end = fmt.Sprintf("%.2f s", s.Span().Seconds()), fmt.Sprintf("%.2f s", s.Last.Seconds())
		}
		t.AddRow([]string{s.Stage, s.Step, strconv.Itoa(s.Items), strconv.Itoa(s.Rejected), strconv.Itoa(s.Revisions), strconv.Itoa(s.Calls),
			strconv.Itoa(s.Cached), strconv.Itoa(s.Stored), strconv.Itoa(s.Failed), strconv.Itoa(s.PromptTokens), strconv.Itoa(s.CompletionTokens),
			span, end, strconv.Itoa(s.Depth), strconv.Itoa(s.FloorCalls)})
	}
	for _, s := range stats {
		row(s)
	}
	row(total)
	return t
}

// EstimateTable lays out a dry run: per step the items, the calls and
// tokens when every first output passes its check, the calls when every
// check fails until its last revision, the cost of both under pricing,
// and the floor of the wall time at latency per call with the build's
// concurrency. total is the last row.
func EstimateTable(stats []StepStats, total StepStats, pricing Pricing, latency time.Duration) analysis.Table {
	t := analysis.Table{Header: []string{"stage", "step", "models", "items", "calls", "prompt tokens", "completion tokens", "USD",
		"calls, every revision", "USD, every revision", "floor at " + latency.String() + "/call"},
		Align: []string{"l", "l", "l", "r", "r", "r", "r", "r", "r", "r", "r"}}
	row := func(s StepStats) {
		cost, maxCost, priced := pricing.Cost(s)
		usd, maxUSD := "no price", "no price"
		if priced {
			usd, maxUSD = fmt.Sprintf("%.4f", cost), fmt.Sprintf("%.4f", maxCost)
		}
		t.AddRow([]string{s.Stage, s.Step, pricing.models(s), strconv.Itoa(s.Items), strconv.Itoa(s.Calls), strconv.Itoa(s.PromptTokens),
			strconv.Itoa(s.CompletionTokens), usd, strconv.Itoa(s.MaxCalls), maxUSD, (time.Duration(s.FloorCalls) * latency).String()})
	}
	for _, s := range stats {
		row(s)
	}
	row(total)
	return t
}
