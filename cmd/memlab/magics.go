package main

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/llm"
)

// The magics of every session of this binary (memlab run, kernel, repl and
// their workers) know the catalog's components and redact as memlab does.
func init() {
	kernel.SetMagicHooks(kernel.MagicHooks{Help: componentHelp, Redact: llm.RedactURLs})
}

// componentHelp is the MagicHooks.Help of memlab: topic "" gives the
// components' names by kind; "components" the whole table of `memlab
// components`; a kind its part of the table; a component's name its rows
// (of every kind that has one of that name).
func componentHelp(topic string) (string, bool) {
	if topic == "" {
		var b strings.Builder
		b.WriteString("components by name (catalog; %help components for every knob, %help NAME for one):\n")
		byKind := map[catalog.Kind][]string{}
		for _, e := range catalog.List() {
			byKind[e.Kind] = append(byKind[e.Kind], e.Name)
		}
		for _, k := range catalog.Kinds {
			fmt.Fprintf(&b, "  %-10s %s\n", k+":", strings.Join(byKind[k], ", "))
		}
		return b.String(), true
	}
	t := catalog.Table()
	if topic == "components" {
		return t.Markdown(), true
	}
	keep := &analysis.Table{Header: t.Header}
	in := false
	for _, r := range t.Rows {
		if r[0] != "" || r[1] != "" {
			in = r[0] == topic || r[1] == topic
		}
		if in {
			keep.AddRow(r)
		}
	}
	if len(keep.Rows) == 0 {
		return "", false
	}
	return keep.Markdown(), true
}
