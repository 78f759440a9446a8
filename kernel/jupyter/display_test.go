package jupyter

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// TestDisplayCallPublishesNoExecuteResult: a cell ending in
// display.Markdown or display.Table publishes its display_data and no
// execute_result (it used to publish the session's first variable, the
// whole dataset); a cell ending in a value still publishes one.
func TestDisplayCallPublishesNoExecuteResult(t *testing.T) {
	_, c := startKernelWith(t, Config{Symbols: []interp.Exports{stdlib.Symbols}})
	exec := func(code string) []*Message {
		t.Helper()
		req := c.send(c.shell, "execute_request", map[string]any{"code": code}, nil)
		if reply := c.recv(c.shell, 20*time.Second); reply == nil || !strings.Contains(string(reply.Content), `"status":"ok"`) {
			t.Fatalf("%q: execute_reply = %v", code, reply)
		}
		return c.until(req)
	}
	exec("import (\n\t\"github.com/memlab/memlab/analysis\"\n\t\"github.com/memlab/memlab/display\"\n)\ndataset := []string{\"the-whole-dataset\"}")
	for _, code := range []string{
		`display.Markdown("## results")`,
		"t := analysis.Table{Header: []string{\"k\"}}\nt.AddRow([]string{\"1\"})\ndisplay.Table(t)",
	} {
		msgs := exec(code)
		if got, want := types(msgs), []string{"status", "execute_input", "display_data", "status"}; !slices.Equal(got, want) {
			t.Errorf("%q: iopub %v, want %v", code, got, want)
		}
		for _, m := range msgs {
			if strings.Contains(string(m.Content), "the-whole-dataset") {
				t.Errorf("%q: %s shows the dataset: %s", code, m.Header.MsgType, m.Content)
			}
		}
	}
	if got := types(exec("len(dataset)")); !slices.Contains(got, "execute_result") {
		t.Errorf("a value cell: iopub %v, want an execute_result", got)
	}
}
