package datasets

import "testing"

func TestTitle(t *testing.T) {
	for _, c := range []struct{ format, name, want string }{
		{FormatCloneMem, "sample", "CloneMem sample"},
		{FormatKnowMe, "dataset1", "KnowMe-Bench dataset1"},
		{FormatLoCoMo, "locomo", "LoCoMo"},
		{FormatLoCoMo, "locomo10", "LoCoMo locomo10"},
		{FormatKnowMe, "", "KnowMe-Bench"},
		{"other", "x", "other x"},
	} {
		if got := (&Dataset{Format: c.format, Name: c.name}).Title(); got != c.want {
			t.Errorf("Title of %s %q = %q, want %q", c.format, c.name, got, c.want)
		}
	}
}
