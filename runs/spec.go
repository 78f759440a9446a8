package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Spec is everything that identifies a run: the dataset (name, fingerprint
// and the questions asked), the memory system, the reader and the judges
// with every knob their names record (models, prompt and rubric hashes,
// never keys), k, and free parameters (seeds, notebook parameters). Its
// hash is the run id (ID), so the same config over the same dataset is
// the same run, and a changed config is a new run.
type Spec struct {
	Dataset     string `json:"dataset"`
	Fingerprint string `json:"fingerprint"`
	// Errata is the errata applied to the dataset (datasets.ApplyErrata).
	Errata string `json:"errata,omitempty"`
	// Questions is the number of questions and QuestionsHash the hash of
	// their ids, so that a subset of a dataset is its own run.
	Questions     int    `json:"questions"`
	QuestionsHash string `json:"questions_hash"`
	System        string `json:"system"`
	Reader        string `json:"reader"`
	K             int    `json:"k"`
	// Judges are the LLM judges' names, each followed by its version (model
	// and rubric hashes) when the judge reports one (Versioned).
	Judges []string `json:"judges,omitempty"`
	// Params are Config.Params.
	Params map[string]string `json:"params,omitempty"`
}

// Versioned is implemented by judges (and readers or systems) whose Name
// does not already say which model and prompts they use; Version returns
// that, e.g. "model=gpt-4o-mini,rubrics=ab12...".
type Versioned interface {
	Version() string
}

// SpecOf returns the spec of running cfg over d's questions. The
// credentials of every URL in a name or parameter (userinfo, key= and
// token= parameters: llm.RedactURLs) are left out, so the spec, the run
// store and the manifest never hold them; they cannot change results, so
// two runs that differ only in them are one run.
func SpecOf(d *datasets.Dataset, cfg Config) Spec {
	s := Spec{Dataset: d.Name, Fingerprint: d.Fingerprint, Errata: d.Errata, Questions: len(d.Questions), K: cfg.K}
	h := sha256.New()
	for _, q := range d.Questions {
		h.Write([]byte(q.ID))
		h.Write([]byte{0})
	}
	s.QuestionsHash = hex.EncodeToString(h.Sum(nil)[:8])
	if cfg.System != nil {
		s.System = cfg.System.Name()
		if v, ok := cfg.System.(Versioned); ok {
			s.System += " " + v.Version()
		}
		s.System = llm.RedactURLs(s.System)
	}
	if cfg.Reader != nil {
		s.Reader = cfg.Reader.Name()
		if v, ok := cfg.Reader.(Versioned); ok {
			s.Reader += " " + v.Version()
		}
		s.Reader = llm.RedactURLs(s.Reader)
	}
	for _, j := range cfg.Judges {
		name := j.Name()
		if v, ok := j.(Versioned); ok {
			name += " " + v.Version()
		}
		s.Judges = append(s.Judges, llm.RedactURLs(name))
	}
	if len(cfg.Params) > 0 {
		s.Params = make(map[string]string, len(cfg.Params))
		for k, v := range cfg.Params {
			s.Params[k] = llm.RedactURLs(v)
		}
	}
	return s
}

// JSON returns the spec's canonical JSON (encoding/json sorts map keys).
func (s Spec) JSON() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("runs: spec cannot be encoded: " + err.Error()) // only strings and ints
	}
	return string(b)
}

// ID returns the run id: the first 16 hex digits of the SHA-256 of the
// spec's canonical JSON.
func (s Spec) ID() string {
	sum := sha256.Sum256([]byte(s.JSON()))
	return hex.EncodeToString(sum[:8])
}

// ParamKeys returns the spec's parameter names, sorted.
func (s Spec) ParamKeys() []string {
	keys := make([]string, 0, len(s.Params))
	for k := range s.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CodeVersion describes the running code: the main module's version and,
// when the binary was built with VCS stamping (go build's default), the
// revision, its time and "+dirty" for uncommitted changes, e.g.
// "(devel) a59c319e4f0a 2026-11-29T19:35:00Z +dirty". Without stamping
// (go run, -buildvcs=false) it asks git about the source tree the code was
// compiled from, when that tree is still there: "(devel) git:a59c319e4f0a
// +dirty". It is recorded with every run and record, not part of the run id.
func CodeVersion() string {
	codeVersionOnce.Do(func() { codeVersion = readCodeVersion() })
	return codeVersion
}

var (
	codeVersionOnce sync.Once
	codeVersion     string
)

func readCodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	parts := []string{bi.Main.Version}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		rev, dirty = gitRevision()
	}
	for _, p := range []string{rev, at, dirty} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	v := strings.TrimSpace(strings.Join(parts, " "))
	if v == "" {
		return "unknown"
	}
	return v
}

// gitRevision asks git for the revision and state of the tree this file
// was compiled from ("", "" when git or the tree is not there).
func gitRevision() (rev, dirty string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", ""
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(dir); err != nil {
		return "", ""
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", ""
	}
	rev = strings.TrimSpace(string(out))
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "", ""
	}
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		dirty = "+dirty"
	}
	return "git:" + rev, dirty
}
