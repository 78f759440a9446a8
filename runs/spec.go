package runs

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
)

// Versioned is implemented by judges (and readers or systems) whose Name
// does not already say which model and prompts they use; Version returns
// that, e.g. "model=gpt-4o-mini,rubrics=ab12...".
type Versioned interface {
	Version() string
}

// SpecOf returns the spec of running cfg over d's questions: the
// components' specs (component.Of: a component that is no
// component.Describer, one defined in a notebook say, is told apart by its
// display name and Version), which the run id hashes (record.Spec.ID), and
// their display names, which the legacy id hashes (record.Spec.LegacyID).
// The credentials of every URL in a name or parameter (userinfo, key= and
// token= parameters: llm.RedactURLs) are left out, so the spec, the run
// store and the manifest never hold them; they cannot change results, so
// two runs that differ only in them are one run.
func SpecOf(d *datasets.Dataset, cfg Config) record.Spec {
	s := record.Spec{Dataset: d.Name, Fingerprint: d.Fingerprint, Errata: d.Errata, Questions: len(d.Questions), K: cfg.K,
		Scheme: record.SchemeComponents}
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
		sp := describe(cfg.System, cfg.System.Name())
		s.SystemSpec = &sp
	}
	if cfg.Reader != nil {
		s.Reader = cfg.Reader.Name()
		if v, ok := cfg.Reader.(Versioned); ok {
			s.Reader += " " + v.Version()
		}
		s.Reader = llm.RedactURLs(s.Reader)
		sp := describe(cfg.Reader, cfg.Reader.Name())
		s.ReaderSpec = &sp
	}
	for _, j := range cfg.Judges {
		name := j.Name()
		if v, ok := j.(Versioned); ok {
			name += " " + v.Version()
		}
		s.Judges = append(s.Judges, llm.RedactURLs(name))
		s.JudgeSpecs = append(s.JudgeSpecs, describe(j, j.Name()))
	}
	if len(cfg.Params) > 0 {
		s.Params = make(map[string]string, len(cfg.Params))
		for k, v := range cfg.Params {
			s.Params[k] = llm.RedactURLs(v)
		}
	}
	return s
}

// describe returns x's spec (component.Of), the display name with its
// Version (URLs redacted) standing for the spec of a component that does
// not describe itself.
func describe(x any, name string) component.Spec {
	if _, ok := x.(component.Describer); ok {
		return component.Of(x, name)
	}
	if v, ok := x.(Versioned); ok {
		name += " " + v.Version()
	}
	return component.Of(x, llm.RedactURLs(name))
}
