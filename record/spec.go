package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"

	"github.com/memlab/memlab/component"
)

// Spec is everything that identifies a run: the dataset (name, fingerprint
// and the questions asked), the memory system, the reader and the judges
// as component specs (every knob that can change results: models, prompt
// and rubric hashes, constants, modes; never keys), k, and free parameters
// (seeds, notebook parameters). Its hash is the run id (ID), so the same
// config over the same dataset is the same run, and a changed config is a
// new run. System, Reader and Judges are the components' display names,
// shown in tables; they identify only runs of the legacy scheme (LegacyID).
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
	// and rubric hashes) when the judge reports one (runs.Versioned).
	Judges []string `json:"judges,omitempty"`
	// Params are runs.Config.Params.
	Params map[string]string `json:"params,omitempty"`
	// Scheme is how the run id is computed: SchemeLegacy (0, the spec of a
	// run stored before component specs) hashes the display names;
	// SchemeComponents hashes SystemSpec, ReaderSpec and JudgeSpecs.
	Scheme int `json:"scheme,omitempty"`
	// SystemSpec, ReaderSpec and JudgeSpecs are the components' specs
	// (nil for a run without a system or reader).
	SystemSpec *component.Spec  `json:"system_spec,omitempty"`
	ReaderSpec *component.Spec  `json:"reader_spec,omitempty"`
	JudgeSpecs []component.Spec `json:"judge_specs,omitempty"`
}

// The run id schemes (Spec.Scheme).
const (
	// SchemeLegacy: the id hashes the display names (LegacyID).
	SchemeLegacy = 0
	// SchemeComponents: the id hashes the component specs (ID).
	SchemeComponents = 1
)

// JSON returns the spec's canonical JSON (encoding/json sorts map keys;
// component specs are canonical: component.Spec.JSON), display names and
// component specs both: what a run store keeps.
func (s Spec) JSON() string {
	b, err := json.Marshal(s)
	if err != nil {
		// Components build their specs from strings, numbers and bools.
		panic("record: spec cannot be encoded: " + err.Error())
	}
	return string(b)
}

// identity is what the run id of SchemeComponents hashes.
type identity struct {
	Scheme        int               `json:"scheme"`
	Dataset       string            `json:"dataset"`
	Fingerprint   string            `json:"fingerprint"`
	Errata        string            `json:"errata,omitempty"`
	Questions     int               `json:"questions"`
	QuestionsHash string            `json:"questions_hash"`
	System        *component.Spec   `json:"system,omitempty"`
	Reader        *component.Spec   `json:"reader,omitempty"`
	K             int               `json:"k"`
	Judges        []component.Spec  `json:"judges,omitempty"`
	Params        map[string]string `json:"params,omitempty"`
}

// IdentityJSON returns the canonical JSON that the run id hashes: for
// SchemeComponents, the dataset's name, fingerprint and errata, the
// question count and the hash of their ids, the component specs, k and
// the parameters (display names left out); for SchemeLegacy, LegacyJSON.
func (s Spec) IdentityJSON() string {
	if s.Scheme == SchemeLegacy {
		return s.LegacyJSON()
	}
	b, err := json.Marshal(identity{Scheme: s.Scheme, Dataset: s.Dataset, Fingerprint: s.Fingerprint, Errata: s.Errata,
		Questions: s.Questions, QuestionsHash: s.QuestionsHash, System: s.SystemSpec, Reader: s.ReaderSpec, K: s.K,
		Judges: s.JudgeSpecs, Params: s.Params})
	if err != nil {
		panic("record: spec cannot be encoded: " + err.Error())
	}
	return string(b)
}

// ID returns the run id: the first 16 hex digits of the SHA-256 of
// IdentityJSON (for a spec of SchemeLegacy, that is LegacyID).
func (s Spec) ID() string { return hashID(s.IdentityJSON()) }

// LegacyJSON returns the spec as the run stores written before component
// specs keep it: the display names, no component specs, no scheme.
func (s Spec) LegacyJSON() string {
	s.Scheme, s.SystemSpec, s.ReaderSpec, s.JudgeSpecs = SchemeLegacy, nil, nil, nil
	return s.JSON()
}

// LegacyID returns the id the run had before component specs: the hash of
// LegacyJSON, byte for byte the algorithm of then, so that a store
// written then is found (runs adopt such a run under its new ID).
func (s Spec) LegacyID() string { return hashID(s.LegacyJSON()) }

func hashID(js string) string {
	sum := sha256.Sum256([]byte(js))
	return hex.EncodeToString(sum[:8])
}

// ParamKeys returns the spec's parameter names, sorted.
func (s Spec) ParamKeys() []string {
	return slices.Sorted(maps.Keys(s.Params))
}
