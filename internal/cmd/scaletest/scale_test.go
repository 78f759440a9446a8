package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScaleSmall runs the scale test at the size CI runs: 10 personas x
// 2,000 traces x 50 questions, flat and timeline, through 1, 2 and 4
// worker processes each in a network namespace of its own, and 4 with one
// killed (SIGKILL) in the middle. No question is lost, every run's
// records equal the one-process run's, the killed worker's items are
// taken over, and the endpoint received again only calls whose answers
// the killed worker had not stored: in flight, or answered just before. (Its speed is the business of
// scripts/scale-test.sh and docs/performance.md, not of this test.)
func TestScaleSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("the multi-host scale test takes minutes: skipped under -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("the multi-host scale test is NOT run: it needs root for network namespaces (ip netns); run scripts/scale-test.sh -personas 10 as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the multi-host scale test is NOT run: no ip command (apt-get install iproute2)")
	}
	probe := fmt.Sprintf("memlab-probe-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("the multi-host scale test is NOT run: this machine refuses network namespaces (ip netns add: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	_ = exec.Command("ip", "netns", "del", probe).Run()
	if !havePostgres() {
		msg := "the multi-host scale test is NOT run: no PostgreSQL server binaries (apt-get install postgresql)"
		if os.Getenv("MEMLAB_REQUIRE_POSTGRES") == "1" {
			t.Fatal(msg + "; MEMLAB_REQUIRE_POSTGRES=1 makes this a failure")
		}
		t.Skip(msg)
	}
	bin := filepath.Join(t.TempDir(), "memlab")
	build := exec.Command("go", "build", "-o", bin, "github.com/memlab/memlab/cmd/memlab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := Config{Memlab: bin, Repo: filepath.Join("..", "..", ".."), Personas: 10, Traces: 2000, Questions: 50, Seed: 1,
		Systems: []string{"flat(bm25)", "timeline"}, Reader: "reader", K: 10, Workers: []int{1, 2, 4}, KillWorkers: 4, KillAt: 0.4,
		Latency: 100 * time.Millisecond, PerWorker: 8, Lease: 5 * time.Second, Reference: true}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var log strings.Builder
	rep, err := Run(ctx, cfg, &log)
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.Markdown())
	if err := rep.Check(); err != nil {
		t.Error(err)
	}
	if len(rep.Phases) != 5 {
		t.Fatalf("%d runs, want the reference, 3 worker counts and the kill", len(rep.Phases))
	}
	total := 2 * 10 * 50
	for _, p := range rep.Phases {
		if p.Questions != total || p.Calls == 0 {
			t.Errorf("%s: %d questions, %d calls", p.Name, p.Questions, p.Calls)
		}
	}
	k := rep.Phases[4]
	if k.KilledAt == 0 || k.KilledAt >= total {
		t.Errorf("the worker was killed at %d of %d records, want in the middle", k.KilledAt, total)
	}
	if k.Retaken == 0 {
		t.Errorf("no work item was taken over from the killed worker")
	}
	// A call is sent again only when its answer had not reached the
	// killed worker's call cache: in flight at the endpoint, or answered
	// just before (its response not yet stored).
	if k.KillRepeats > k.InFlightAtKill+k.AnsweredBeforeKill {
		t.Errorf("%d of the killed worker's calls were sent again, more than the %d in flight at the kill and the %d answered in the 2 s before",
			k.KillRepeats, k.InFlightAtKill, k.AnsweredBeforeKill)
	}
}

// havePostgres reports whether scripts/postgres-start.sh can find the
// server binaries.
func havePostgres() bool {
	if bin := os.Getenv("PG_BIN"); bin != "" {
		_, err := os.Stat(filepath.Join(bin, "initdb"))
		return err == nil
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) > 0 {
		return true
	}
	_, err := exec.LookPath("initdb")
	return err == nil
}
