// Package component is how a part of an experiment says what it is: a
// memory system, a unit builder, an extractor, an embedder, a reader or a
// judge describes itself as a Spec (its kind, every knob that can change
// its results, and the specs of the parts it wraps), and a run's id is the
// hash of the canonical JSON of those specs (record.Spec.ID). Display
// names (the Name methods) are for tables; they do not identify a run.
//
// # Dependencies
//
// It is the bottom layer: it imports nothing of memlab (the architecture
// test, internal/archtest, enforces it), and every package that defines a
// component (llm, retrieval, generate, judge, runs) or keeps specs
// (record) may import it.
package component
