package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// TestManifestOnASharedStoreListsOnlyTheNotebooksRuns: two researchers
// share one SQLite run store. While researcher A's notebook runs (after
// its run, before it ends), researcher B's process writes a run of
// another spec to the same store. A's manifest lists A's run alone,
// whether A's cells run in a worker process, in memlab run's own process,
// or queue their run and work it (-queue work); and memlab reproduce
// finds it identical. (Before, the manifest listed every run of the store
// updated since A started: B's too.)
func TestManifestOnASharedStoreListsOnlyTheNotebooksRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three notebooks beside another process's runs: skipped under -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The notebooks run in their directory (memlab run changes to it).
	nbA, err := filepath.Abs("testdata/shared_store.go")
	if err != nil {
		t.Fatal(err)
	}
	nbB, err := filepath.Abs("testdata/sweep.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		args      []string
		reproduce bool
	}{
		{"worker process", nil, true},
		{"in process", []string{"-isolate=false"}, false},
		{"queued and worked", []string{"-queue", "work"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "shared.db")
			wait := filepath.Join(dir, "wait")
			if err := os.Mkdir(wait, 0o755); err != nil {
				t.Fatal(err)
			}
			outA := filepath.Join(dir, "a")
			type ran struct {
				code           int
				stdout, stderr string
			}
			doneA := make(chan ran, 1)
			go func() {
				args := append([]string{"run", nbA, "-o", outA, "-store", store, "-quiet", "-p", "wait=" + wait}, c.args...)
				code, stdout, stderr := memlab(t, args...)
				doneA <- ran{code, stdout, stderr}
			}()
			// A's run is in the store: B writes one of theirs.
			deadline := time.Now().Add(3 * time.Minute)
			for {
				if _, err := os.Stat(filepath.Join(wait, "a.ran")); err == nil {
					break
				}
				select {
				case a := <-doneA:
					t.Fatalf("A ended before its run was in the store: exit %d\n%s\n%s", a.code, a.stdout, a.stderr)
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatal("A's run did not come")
				}
			}
			b := exec.Command(exe, "run", nbB, "-o", filepath.Join(dir, "b"), "-store", store, "-quiet",
				"-p", "system=oracle", "-p", "k=3")
			b.Env = append(os.Environ(), envAsMemlab+"=1")
			var bErr bytes.Buffer
			b.Stderr = &bErr
			if err := b.Run(); err != nil {
				t.Fatalf("B's run: %v\n%s", err, bErr.String())
			}
			if err := os.WriteFile(filepath.Join(wait, "b.done"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			a := <-doneA
			if a.code != 0 {
				t.Fatalf("A: exit %d\n%s\n%s", a.code, a.stdout, a.stderr)
			}

			st, err := runstore.OpenReadOnly(store)
			if err != nil {
				t.Fatal(err)
			}
			infos, err := st.Runs()
			if err != nil {
				t.Fatal(err)
			}
			qs, err := st.Queues(t.Context())
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			if queued := slices.Contains(c.args, "-queue"); queued != (len(qs) == 1) {
				t.Fatalf("%d work queues in the store (A queued: %v)", len(qs), queued)
			}
			if len(infos) != 2 {
				t.Fatalf("the shared store holds %d runs, want A's and B's", len(infos))
			}
			manifest := filepath.Join(outA, "shared_store.manifest.json")
			f, err := os.Open(manifest)
			if err != nil {
				t.Fatalf("A's manifest: %v\n%s", err, a.stderr)
			}
			m, err := reports.ReadManifest(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range m.Runs {
				got = append(got, r.ID+" "+r.Label+" at k="+strconv.Itoa(r.Spec.K))
			}
			if len(m.Runs) != 1 || m.Runs[0].Spec.K != 5 || len(m.Runs[0].Records) == 0 {
				t.Fatalf("A's manifest lists %q, want A's run at k=5 alone, with its records", got)
			}
			if c.reproduce {
				code, out, stderr := memlab(t, "reproduce", manifest)
				if code != 0 || !bytes.Contains([]byte(out), []byte("identical: 1 runs")) {
					t.Fatalf("reproduce: exit %d\n%s\n%s", code, out, stderr)
				}
			}
		})
	}
}
