package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestKernelExtendUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"kernel", "extend"}, "one or more MODULE@VERSION"},
		{[]string{"kernel", "extend", "github.com/google/uuid"}, "want MODULE@VERSION"},
		{[]string{"kernel", "extend", "github.com/google/uuid@"}, "want MODULE@VERSION"},
		{[]string{"kernel", "extend", "strings@latest"}, "outside the standard library"},
		{[]string{"kernel", "extend", "github.com/memlab/memlab/runs@latest"}, "in every kernel already"},
		{[]string{"kernel", "extend", "-name", "bad name", "github.com/google/uuid@v1.6.0"}, `-name "bad name"`},
	}
	for _, c := range cases {
		code, _, stderr := memlab(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.HasPrefix(stderr, "memlab kernel extend: ") {
			t.Errorf("memlab %q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestKernelExtendList(t *testing.T) {
	code, stdout, stderr := memlab(t, "kernel", "extend", "-list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"github.com/memlab/memlab/runs\n", "gonum.org/v1/gonum/stat\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-list lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "github.com/google/uuid") {
		t.Errorf("memlab itself lists uuid:\n%s", stdout)
	}
}

func TestDefaultExtendName(t *testing.T) {
	for path, want := range map[string]string{
		"github.com/google/uuid":   "memlab-uuid",
		"github.com/go-chi/chi/v5": "memlab-chi",
		"golang.org/x/exp/slices":  "memlab-slices",
		"example.com/Some_Pkg+x":   "memlab-some_pkg-x",
		"gopkg.in/yaml.v3":         "memlab-yaml.v3",
	} {
		if got := defaultExtendName(path); got != want {
			t.Errorf("defaultExtendName(%q) = %q, want %q", path, got, want)
		}
	}
}

// The source is found from where this (test) binary was compiled: the
// module root; -src and $MEMLAB_SRC naming something else fail saying so.
func TestFindMemlabSource(t *testing.T) {
	root, err := findMemlabSource("")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs("../..")
	if root != want {
		t.Errorf("found %s, want %s", root, want)
	}
	if got, err := findMemlabSource("../.."); err != nil || got != want {
		t.Errorf("-src ../..: %s, %v", got, err)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.22\n"), 0o644)
	if _, err := findMemlabSource(other); err == nil || !strings.Contains(err.Error(), "-src "+other) || !strings.Contains(err.Error(), "not that of module github.com/memlab/memlab") {
		t.Errorf("-src of another module: %v", err)
	}
	t.Setenv("MEMLAB_SRC", t.TempDir())
	if _, err := findMemlabSource(""); err == nil || !strings.Contains(err.Error(), "$MEMLAB_SRC") {
		t.Errorf("$MEMLAB_SRC without go.mod: %v", err)
	}
}

// TestKernelExtendBuildsAKernelWithUUID extends memlab with
// github.com/google/uuid (from the module proxy, or the module cache),
// then runs a two-cell notebook importing it with the built binary, checks
// the installed kernelspec, and runs the same cells through jupyter_client
// on that kernelspec when python3-jupyter-client is there.
func TestKernelExtendBuildsAKernelWithUUID(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping kernel extend (a go build of memlab)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH")
	}
	prefix := t.TempDir()
	code, stdout, stderr := memlab(t, "kernel", "extend", "-prefix", prefix, "github.com/google/uuid@v1.6.0")
	if code != 0 {
		t.Fatalf("kernel extend: exit %d:\n%s", code, stderr)
	}
	kdir := filepath.Join(prefix, "share", "jupyter", "kernels", "memlab-uuid")
	bin := filepath.Join(kdir, "memlab")
	if !strings.Contains(stdout, "built "+bin) || !strings.Contains(stdout, "installed kernelspec memlab-uuid in "+kdir) {
		t.Errorf("stdout %q", stdout)
	}

	b, err := os.ReadFile(filepath.Join(kdir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv        []string       `json:"argv"`
		DisplayName string         `json:"display_name"`
		Language    string         `json:"language"`
		Metadata    map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Argv) != 3 || spec.Argv[0] != bin || spec.Argv[1] != "kernel" || spec.Language != "go" ||
		spec.DisplayName != "Go (memlab) + uuid" {
		t.Errorf("kernel.json:\n%s", b)
	}
	if ext, _ := json.Marshal(spec.Metadata["memlab_extensions"]); string(ext) != `["github.com/google/uuid@v1.6.0"]` {
		t.Errorf("metadata.memlab_extensions = %s", ext)
	}

	dir := t.TempDir()
	nb := filepath.Join(dir, "uuid.go")
	cells := []string{"import (\n\t\"fmt\"\n\n\t\"github.com/google/uuid\"\n)\n",
		"u := uuid.MustParse(\"f47ac10b-58cc-4372-a567-0e02b2c3d479\")\nfmt.Println(u.Version(), uuid.NewSHA1(uuid.NameSpaceURL, []byte(\"memlab\")))\n"}
	os.WriteFile(nb, []byte("// %%\n"+cells[0]+"\n// %%\n"+cells[1]), 0o644)
	run := exec.Command(bin, "run", "-no-store", nb)
	run.Env = append(os.Environ(), "MEMLAB_CACHE="+filepath.Join(dir, "calls.db"), "OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG=")
	out, err := run.CombinedOutput()
	const want = "VERSION_4 2d244d08-d13c-547d-b3f4-360b3c464776"
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("%s run: %v, want %q in\n%s", bin, err, want, out)
	}
	if ipynb, err := os.ReadFile(filepath.Join(dir, "uuid.ipynb")); err != nil || !strings.Contains(string(ipynb), want) {
		t.Errorf("uuid.ipynb lacks %q: %v", want, err)
	}

	// The built binary lists uuid among its packages.
	list, err := exec.Command(bin, "kernel", "extend", "-list").Output()
	if err != nil || !strings.Contains(string(list), "github.com/google/uuid\n") {
		t.Errorf("%s kernel extend -list: %v\n%s", bin, err, list)
	}

	// Extending the extended binary keeps uuid (it finds memlab's source
	// from where it was built too).
	bin2 := filepath.Join(dir, "memlab2")
	again := exec.Command(bin, "kernel", "extend", "-prefix", prefix, "-o", bin2, "github.com/dustin/go-humanize@v1.1.0")
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("%s kernel extend: %v\n%s", bin, err, out)
	}
	list, err = exec.Command(bin2, "kernel", "extend", "-list").Output()
	if err != nil || !strings.Contains(string(list), "github.com/google/uuid\n") || !strings.Contains(string(list), "github.com/dustin/go-humanize\n") {
		t.Errorf("%s kernel extend -list: %v\n%s", bin2, err, list)
	}
	if b, err := os.ReadFile(filepath.Join(prefix, "share", "jupyter", "kernels", "memlab-go-humanize", "kernel.json")); err != nil ||
		!strings.Contains(string(b), `"Go (memlab) + uuid, go-humanize"`) {
		t.Errorf("second kernelspec: %v\n%s", err, b)
	}

	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import jupyter_client").Run(); err != nil {
		t.Logf("jupyter_client missing (apt-get install python3-jupyter-client): not starting the kernelspec: %v", err)
		return
	}
	got := runSessionPy(t, py, dir, append(jupyterEnv(filepath.Join(prefix, "share", "jupyter"), dir, "memlab-uuid"),
		"MEMLAB_RUNS="+filepath.Join(dir, "runs.db")), cells)
	if len(got) != 2 || got[0].Status != "ok" || got[1].Status != "ok" || !strings.Contains(got[1].Stdout, want) {
		t.Errorf("kernelspec memlab-uuid through jupyter_client: %+v", got)
	}
}

// A binary's own extensions come first; an argument naming one of them
// again replaces its version.
func TestParseExtendArgsMergesRepeats(t *testing.T) {
	got, err := parseExtendArgs([]string{"github.com/google/uuid@v1.6.0", "github.com/rs/xid@v1.6.0", "github.com/google/uuid@v1.5.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].String() != "github.com/google/uuid@v1.5.0" || got[1].String() != "github.com/rs/xid@v1.6.0" {
		t.Errorf("parseExtendArgs = %v", got)
	}
}
