package llmtest_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/llm/llmtest"
)

func TestRegisterFlags(t *testing.T) {
	var o llmtest.Options
	fs := flag.NewFlagSet("fake-openai", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	llmtest.RegisterFlags(fs, &o)
	err := fs.Parse([]string{
		"-api-key", "k", "-models", "a, b,", "-dims", "32", "-latency", "50ms", "-jitter", "5ms", "-seed", "9",
		"-reply", "r1", "-reply", "r2", "-rule", "hello=>hi there", "-rate-429", "0.1", "-rate-500", "0.05",
		"-rate-bad-json", "0.2", "-retry-after", "2s", "-retry-after-date", "-fault-seed", "3",
		"-fault", "2:stall", "-fault", "5:truncate",
	})
	if err != nil {
		t.Fatal(err)
	}
	f := o.Faults
	if o.APIKey != "k" || strings.Join(o.Models, "|") != "a|b" || o.EmbeddingDims != 32 || o.Latency != 50*time.Millisecond ||
		o.Jitter != 5*time.Millisecond || o.Seed != 9 || strings.Join(o.Replies, "|") != "r1|r2" ||
		len(o.Rules) != 1 || o.Rules[0] != (llmtest.Rule{Contains: "hello", Reply: "hi there"}) {
		t.Errorf("options = %+v", o)
	}
	if f.Rate429 != 0.1 || f.Rate500 != 0.05 || f.RateBadJSON != 0.2 || f.RetryAfter != 2*time.Second || !f.RetryAfterDate || f.Seed != 3 ||
		len(f.Script) != 2 || f.Script[1] != (llmtest.Fault{Call: 5, Kind: llmtest.FaultTruncate}) {
		t.Errorf("faults = %+v", f)
	}
	fs.VisitAll(func(fl *flag.Flag) {
		if fl.Usage == "" {
			t.Errorf("flag -%s has no help", fl.Name)
		}
	})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n != len(llmtest.OptionDocs) {
		t.Errorf("%d flags for %d docs", n, len(llmtest.OptionDocs))
	}
	for _, bad := range [][]string{{"-rule", "no arrow"}, {"-fault", "x:stall"}, {"-fault", "3:melt"}} {
		var o2 llmtest.Options
		fs2 := flag.NewFlagSet("x", flag.ContinueOnError)
		fs2.SetOutput(io.Discard)
		llmtest.RegisterFlags(fs2, &o2)
		if err := fs2.Parse(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want llmtest.Fault
		err  string
	}{
		{"3:rate_limit", llmtest.Fault{Call: 3, Kind: llmtest.FaultRateLimit}, ""},
		{" 12 : empty", llmtest.Fault{Call: 12, Kind: llmtest.FaultEmpty}, ""},
		{"0:stall", llmtest.Fault{}, "call number"},
		{"stall", llmtest.Fault{}, "want N:KIND"},
		{"1:fire", llmtest.Fault{}, `kind "fire"`},
	}
	for _, tc := range tests {
		got, err := llmtest.ParseFault(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "llmtest: parse fault") {
				t.Errorf("ParseFault(%q) error %v: want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseFault(%q) = %+v, %v: want %+v", tc.in, got, err, tc.want)
		}
	}
}
