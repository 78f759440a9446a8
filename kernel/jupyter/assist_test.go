package jupyter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel"
)

func TestIsCompleteCell(t *testing.T) {
	cases := []struct{ code, want string }{
		{"x := 6 *", "incomplete"},
		{"x := 6 *\n7", "complete"},
		{"%who", "complete"},
		{"%env A=1", "complete"},
		{"!ls -l", "complete"},
		{"%%time", "incomplete"},
		{"%%time\nfor i := 0; i < 3; i++ {", "incomplete"},
		{"%%time\nx := 1", "incomplete"}, // a blank line ends a timed cell
		{"%%time\nx := 1\n", "complete"},
		{"%time\nf(\n", "incomplete"},
	}
	for _, c := range cases {
		if got, _ := IsCompleteCell(c.code); got != c.want {
			t.Errorf("IsCompleteCell(%q) = %s, want %s", c.code, got, c.want)
		}
	}
}

func TestAssistantCompletesAndInspects(t *testing.T) {
	s, err := kernel.NewSession(kernel.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Exec(context.Background(), "import \"strings\"\nparts := strings.Split(\"a,b\", \",\")"); r.Err != nil {
		t.Fatal(r.Err)
	}
	a := NewAssistant(s, nil)
	if m, start := a.Complete("%he", 3); !slices.Equal(m, []string{"%help"}) || start != 0 {
		t.Errorf("Complete(%%he) = %q, %d", m, start)
	}
	if m, start := a.Complete("  %%ti", 6); !slices.Equal(m, []string{"%%time"}) || start != 2 {
		t.Errorf("Complete(%%%%ti) = %q, %d", m, start)
	}
	if m, start := a.Complete("x := strings.ToUp", 17); !slices.Contains(m, "ToUpper") || start != 13 {
		t.Errorf("Complete(strings.ToUp) = %q, %d", m, start)
	}
	if m, _ := a.Complete("par", 3); !slices.Contains(m, "parts") {
		t.Errorf("Complete(par) = %q, want the session's variable parts", m)
	}
	if text, ok := a.Inspect("parts", 5); !ok || !strings.Contains(text, "[]string") || !strings.Contains(text, "[a b]") {
		t.Errorf("Inspect(parts) = %q, %v", text, ok)
	}
}
