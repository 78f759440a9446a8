package catalog

import (
	"strings"

	"github.com/memlab/memlab/analysis"
)

// Table lists every component, one row per knob (a component without
// knobs has one row): its kind, name, what it is, the model role it needs,
// and each knob's name, type, default, allowed values and doc. It is what
// `memlab components` prints; call it from a cell to see the catalog.
func Table() *analysis.Table {
	t := &analysis.Table{Header: []string{"kind", "name", "needs model", "knob", "type", "default", "values", "doc"}}
	for _, e := range List() {
		needs := e.Needs
		if needs == "" && e.NeedsWhen != "" {
			needs = "when " + e.NeedsWhen
		}
		if needs == "" {
			needs = "no"
		}
		t.AddRow([]string{string(e.Kind), e.Name, needs, "", "", "", "", e.Doc})
		for _, k := range e.Knobs {
			typ := k.Type
			if k.Type == TypeSpec {
				typ = string(k.Of)
			}
			def := k.Default
			switch {
			case k.Required:
				def = "(required)"
			case def == "" && k.Type == TypeString:
				def = `""`
			}
			name := k.Name
			if k.Positional {
				name += " (1st)"
			}
			t.AddRow([]string{"", "", "", name, typ, def, strings.Join(k.Allowed, ", "), k.Doc})
		}
	}
	return t
}
