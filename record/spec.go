package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
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
	// and rubric hashes) when the judge reports one (runs.Versioned).
	Judges []string `json:"judges,omitempty"`
	// Params are runs.Config.Params.
	Params map[string]string `json:"params,omitempty"`
}

// JSON returns the spec's canonical JSON (encoding/json sorts map keys).
func (s Spec) JSON() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("record: spec cannot be encoded: " + err.Error()) // only strings and ints
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
	return slices.Sorted(maps.Keys(s.Params))
}
