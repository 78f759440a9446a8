package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/memlab/memlab/kernel/jupyter"
	"github.com/memlab/memlab/stdlib"
)

// kernelExtensions lists the PATH@VERSION arguments of the `memlab kernel
// extend` that built this binary (none for memlab itself). The generated
// file that `kernel extend` adds to this package at build time (through go
// build -overlay, see extendRegisterFile) sets it; memlab's source is not
// edited.
var kernelExtensions []string

// extendModule is the module path of the temporary main module `kernel
// extend` builds in; the .invalid domain can never be fetched.
const extendModule = "memlab.invalid/kernelext"

// extendPkg is the package of that module holding the generated tables.
const extendPkg = "kernelext"

// cmdKernelExtend is `memlab kernel extend [-o BINARY] [-name KERNELNAME]
// [-prefix P] [-src DIR] PATH@VERSION...`: it builds a memlab binary whose
// kernel can also import the packages under each PATH (a module or a
// package path, with a version go get understands: v1.6.0, latest, a
// commit) and installs it as the kernelspec KERNELNAME. -list prints the
// packages this binary has symbol tables for instead.
//
// The build happens in a temporary module that requires memlab (replaced
// by its source directory, see findMemlabSource) and the given modules:
// yaegi symbol tables of the packages are generated there by memlab's own
// extractor (internal/cmd/extract) into a package that adds them to
// stdlib.Symbols, and cmd/memlab is built with one extra file, given by go
// build -overlay, that imports that package. The binary also has what this
// one was extended with (kernelExtensions).
func cmdKernelExtend(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kernel extend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the binary to `BINARY` (default: memlab inside the kernelspec directory)")
	name := fs.String("name", "", "kernelspec `name` (default memlab-LAST, LAST the first path's last element)")
	prefix := fs.String("prefix", "", "install into `P`/share/jupyter/kernels (default: the user's Jupyter data dir)")
	src := fs.String("src", "", "memlab's source `DIR` (default: found from this binary, see the docs)")
	list := fs.Bool("list", false, "list the packages this binary's kernel has symbols for, and exit")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *list {
		for _, p := range symbolPackages() {
			fmt.Fprintln(stdout, p)
		}
		return nil
	}
	if len(pos) == 0 {
		return usagef("kernel extend takes one or more MODULE@VERSION arguments (e.g. github.com/google/uuid@v1.6.0)")
	}
	added, err := parseExtendArgs(pos)
	if err != nil {
		return err
	}
	mods, err := parseExtendArgs(append(append([]string(nil), kernelExtensions...), pos...))
	if err != nil {
		return err
	}
	if *name == "" {
		*name = defaultExtendName(added[0].path)
	}
	if !kernelNameRE.MatchString(*name) {
		return usagef("-name %q: want letters, digits, '.', '_' or '-'", *name)
	}
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Errorf("kernel extend builds memlab with the Go toolchain, and there is no go command on PATH: %w", err)
	}
	kdir, err := jupyter.KernelsDir(*prefix)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(kdir, strings.ToLower(*name), "memlab")
	}
	root, err := findMemlabSource(*src)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "memlab-extend-")
	if err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	fmt.Fprintf(stderr, "memlab kernel extend: building from memlab's source in %s (work directory %s)\n", root, work)
	if err := buildExtended(root, work, mods, *out, stderr); err != nil {
		return fmt.Errorf("%w (work directory kept: %s)", err, work)
	}
	os.RemoveAll(work)
	spec, err := installExtended(kdir, *name, *out, mods)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "built %s\ninstalled kernelspec %s in %s\n", *out, *name, spec)
	return nil
}

// extendArg is one PATH@VERSION argument of kernel extend.
type extendArg struct{ path, version string }

func (a extendArg) String() string { return a.path + "@" + a.version }

// kernelNameRE is what jupyter.Install takes as a kernelspec name.
var kernelNameRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

var importPathRE = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_.~+]*(/[-a-zA-Z0-9_.~+]+)*$`)

// parseExtendArgs checks PATH@VERSION arguments, dropping repeated paths
// (the last version wins).
func parseExtendArgs(args []string) ([]extendArg, error) {
	var out []extendArg
	at := map[string]int{}
	for _, a := range args {
		p, v, ok := strings.Cut(a, "@")
		if !ok || v == "" {
			return nil, usagef("%q: want MODULE@VERSION (e.g. %s@latest or @v1.2.3)", a, a)
		}
		first, _, _ := strings.Cut(p, "/")
		if !importPathRE.MatchString(p) || !strings.Contains(first, ".") {
			return nil, usagef("%q: want the import path of a module or package outside the standard library (e.g. github.com/google/uuid)", a)
		}
		if p == memlabModulePath || strings.HasPrefix(p, memlabModulePath+"/") {
			return nil, usagef("%q: memlab's own packages are in every kernel already", a)
		}
		if i, seen := at[p]; seen {
			out[i].version = v
			continue
		}
		at[p] = len(out)
		out = append(out, extendArg{p, v})
	}
	return out, nil
}

// defaultExtendName is the kernelspec name memlab-LAST for a path.
func defaultExtendName(path string) string {
	last := path[strings.LastIndex(path, "/")+1:]
	if regexp.MustCompile(`^v[0-9]+$`).MatchString(last) && strings.Contains(path, "/") {
		p := strings.TrimSuffix(path, "/"+last) // example.com/mod/v2: mod
		last = p[strings.LastIndex(p, "/")+1:]
	}
	last = regexp.MustCompile(`[^a-zA-Z0-9._-]+`).ReplaceAllString(last, "-")
	return "memlab-" + strings.ToLower(last)
}

// symbolPackages lists the import paths of this binary's symbol tables
// beyond Go's standard library, sorted.
func symbolPackages() []string {
	var out []string
	for key := range stdlib.Symbols {
		if i := strings.LastIndex(key, "/"); i > 0 {
			out = append(out, key[:i])
		}
	}
	sort.Strings(out)
	return out
}

// buildExtended writes the temporary module in work, generates the tables
// and builds the binary out from memlab's source in root.
func buildExtended(root, work string, mods []extendArg, out string, stderr io.Writer) error {
	goVersion, err := moduleGoVersion(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n",
		extendModule, goVersion, memlabModulePath, memlabModulePath, quoteModPath(root))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("memlab's go.sum: %w", err)
	}
	pkgDir := filepath.Join(work, extendPkg)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	files := map[string]string{
		filepath.Join(work, "go.mod"): gomod,
		filepath.Join(work, "go.sum"): string(sum),
		filepath.Join(pkgDir, "symbols.go"): "// Package " + extendPkg + " adds the symbol tables generated beside this file to memlab's.\n" +
			"package " + extendPkg + "\n\nimport \"" + memlabModulePath + "/stdlib\"\n\n" +
			"// Symbols is memlab's table: the generated files' init functions add to it.\nvar Symbols = stdlib.Symbols\n",
		filepath.Join(work, "register.go"): extendRegisterFile(mods),
	}
	for f, text := range files {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			return fmt.Errorf("work directory: %w", err)
		}
	}
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOWORK=off")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(e.String()))
		}
		return o.String(), nil
	}
	get := []string{"get"}
	for _, m := range mods {
		get = append(get, m.String())
	}
	fmt.Fprintf(stderr, "memlab kernel extend: go %s\n", strings.Join(get, " "))
	if _, err := goCmd(get...); err != nil {
		return err
	}
	var pkgs []string
	for _, m := range mods {
		ps, err := extendPackages(goCmd, m.path)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, ps...)
	}
	fmt.Fprintf(stderr, "memlab kernel extend: generating symbol tables of %s\n", strings.Join(pkgs, " "))
	extract := append([]string{"run", "-mod=mod", memlabModulePath + "/internal/cmd/extract", "-name", extendPkg, "-o", pkgDir}, pkgs...)
	if _, err := goCmd(extract...); err != nil {
		return fmt.Errorf("generating symbol tables: %w", err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(root, "cmd", "memlab", "zz_kernel_extend.go"): filepath.Join(work, "register.go"),
	}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "overlay.json"), overlay, 0o644); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("-o %q: %w", out, err)
	}
	if err := os.MkdirAll(filepath.Dir(absOut), 0o755); err != nil {
		return fmt.Errorf("-o %q: %w", out, err)
	}
	fmt.Fprintf(stderr, "memlab kernel extend: go build -o %s %s/cmd/memlab\n", absOut, memlabModulePath)
	if _, err := goCmd("build", "-mod=mod", "-overlay", filepath.Join(work, "overlay.json"), "-o", absOut, memlabModulePath+"/cmd/memlab"); err != nil {
		return err
	}
	return checkExtended(absOut, pkgs)
}

// extendPackages lists the packages under path that a cell can import:
// neither commands nor internal packages.
func extendPackages(goCmd func(...string) (string, error), path string) ([]string, error) {
	o, err := goCmd("list", "-mod=mod", "-f", "{{.Name}} {{.ImportPath}}", path+"/...")
	if err != nil {
		return nil, fmt.Errorf("listing the packages of %s: %w", path, err)
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(o), "\n") {
		name, p, ok := strings.Cut(line, " ")
		if !ok || name == "main" || strings.Contains("/"+p+"/", "/internal/") {
			continue
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: no importable package (only commands or internal packages)", path)
	}
	return pkgs, nil
}

// extendRegisterFile is the file added to package main of cmd/memlab at
// build time: it links the generated tables in and records mods.
func extendRegisterFile(mods []extendArg) string {
	var b strings.Builder
	b.WriteString("// Code generated by memlab kernel extend. DO NOT EDIT.\n\npackage main\n\n")
	b.WriteString("import _ \"" + extendModule + "/" + extendPkg + "\"\n\n")
	b.WriteString("func init() {\n\tkernelExtensions = []string{\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "\t\t%q,\n", m.String())
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

// checkExtended asks the built binary for its packages and fails unless
// every package in pkgs is there.
func checkExtended(bin string, pkgs []string) error {
	o, err := exec.Command(bin, "kernel", "extend", "-list").Output()
	if err != nil {
		return fmt.Errorf("checking the built binary %s: %w", bin, err)
	}
	have := map[string]bool{}
	for _, p := range strings.Fields(string(o)) {
		have[p] = true
	}
	for _, p := range pkgs {
		if !have[p] {
			return fmt.Errorf("the built binary %s has no symbol table for %s", bin, p)
		}
	}
	return nil
}

// installExtended installs the kernelspec name running bin, its display
// name saying what it adds and its metadata listing mods.
func installExtended(kdir, name, bin string, mods []extendArg) (string, error) {
	dir, err := jupyter.Install(kdir, name, bin)
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, "kernel.json")
	b, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("kernelspec: %w", err)
	}
	var spec jupyter.KernelSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return "", fmt.Errorf("kernelspec %s: %w", f, err)
	}
	var short, full []string
	for _, m := range mods {
		short = append(short, m.path[strings.LastIndex(m.path, "/")+1:])
		full = append(full, m.String())
	}
	spec.DisplayName = jupyter.DisplayName + " + " + strings.Join(short, ", ")
	spec.Metadata["memlab_extensions"] = full
	b, err = json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("kernelspec %s: %w", f, err)
	}
	if err := os.WriteFile(f, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("kernelspec: %w", err)
	}
	return dir, nil
}

// moduleGoVersion reads the go directive of a go.mod file.
func moduleGoVersion(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("memlab's source: %w", err)
	}
	m := regexp.MustCompile(`(?m)^go\s+(\S+)\s*$`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("memlab's source: %s has no go directive", gomod)
	}
	return string(m[1]), nil
}

// quoteModPath quotes a directory for a go.mod replace directive when it
// needs it.
func quoteModPath(dir string) string {
	if strings.ContainsAny(dir, " \t\"'`") {
		b, _ := json.Marshal(dir)
		return string(b)
	}
	return dir
}
