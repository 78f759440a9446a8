package reports

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/record"
)

// runNames are the labels tables give results, and the footnote that
// gives each shortened label its full spec.
type runNames struct {
	// Labels has one label per result: the system's display name
	// (component.DisplayNames: the short name and only the knobs that
	// differ among the table's systems), then the reader's when the
	// readers differ ("recent · qwen3-32b"); a label the caller gave
	// (not the default "flat k=10") is kept.
	Labels []string
	// Systems and Readers are each result's display names.
	Systems, Readers []string
	// Note is the footnote: each shortened name with its full spec, ""
	// when no name was shortened.
	Note string
}

// namesOf names results for one table. generated, when not nil, says
// which results' labels were made up from their axis values (a Set's
// points without a label of their own): those are replaced by display
// labels too, unless the display labels would not tell apart two results
// that those labels do (they differ in something no spec records).
func namesOf(results []*record.Result, generated []bool) runNames {
	n := len(results)
	sysNames, sysSpecs := make([]string, n), make([]*component.Spec, n)
	rdNames, rdSpecs := make([]string, n), make([]*component.Spec, n)
	for i, r := range results {
		sysNames[i], sysSpecs[i] = r.System, r.Spec.SystemSpec
		rdNames[i], rdSpecs[i] = r.Reader, r.Spec.ReaderSpec
	}
	out := runNames{Systems: component.DisplayNames(sysNames, sysSpecs), Readers: component.DisplayNames(rdNames, rdSpecs)}
	for i := range out.Systems {
		out.Systems[i], out.Readers[i] = strings.TrimSpace(out.Systems[i]), strings.TrimSpace(out.Readers[i])
	}
	readersVary := false
	for _, r := range out.Readers {
		if r != out.Readers[0] {
			readersVary = true
		}
	}
	ksVary := false
	for _, r := range results {
		if r.K != results[0].K {
			ksVary = true
		}
	}
	out.Labels = make([]string, n)
	for i, r := range results {
		own := r.Label != "" && r.Label != record.DefaultLabel(r.System, r.K)
		if generated != nil {
			own = !generated[i]
		}
		if own {
			out.Labels[i] = r.Label
			continue
		}
		out.Labels[i] = out.Systems[i]
		if readersVary {
			out.Labels[i] += " · " + out.Readers[i]
		}
		if ksVary {
			out.Labels[i] += fmt.Sprintf(" k=%d", r.K)
		}
	}
	orig := make([]string, n)
	for i, r := range results {
		orig[i] = r.Label
	}
	if !distinctAsMuch(out.Labels, orig, results) {
		copy(out.Labels, orig)
	}
	var sysFull, sysShort, rdFull, rdShort []string
	for i := range results {
		if out.Labels[i] == orig[i] && (generated == nil || !generated[i]) && out.Labels[i] != "" {
			continue // the caller's own label: no spec of ours in it
		}
		sysFull, sysShort = append(sysFull, sysNames[i]), append(sysShort, out.Systems[i])
		if readersVary {
			rdFull, rdShort = append(rdFull, rdNames[i]), append(rdShort, out.Readers[i])
		}
	}
	out.Note = specNote("Systems", sysFull, sysShort) + specNote("Readers", rdFull, rdShort)
	out.Note = strings.TrimSpace(out.Note)
	return out
}

// distinctAsMuch reports whether labels (with each result's k) tell apart
// every two results that fallback tells apart.
func distinctAsMuch(labels, fallback []string, results []*record.Result) bool {
	seen := map[string]string{}
	for i := range labels {
		key := fmt.Sprintf("%s\x00%d", labels[i], results[i].K)
		if f, ok := seen[key]; ok && f != fallback[i] {
			return false
		}
		seen[key] = fallback[i]
	}
	return true
}

// specNote is "What: short = full; ...", once per shortened name, in
// order; "" when none is shortened.
func specNote(what string, full, short []string) string {
	var parts []string
	seen := map[string]bool{}
	for i := range full {
		if full[i] == "" || full[i] == short[i] || seen[short[i]] {
			continue
		}
		seen[short[i]] = true
		parts = append(parts, fmt.Sprintf("%s = `%s`", short[i], full[i]))
	}
	if len(parts) == 0 {
		return ""
	}
	return what + ": " + strings.Join(parts, "; ") + ". "
}
