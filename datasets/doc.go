// Package datasets is memlab's common model of benchmark data and its loaders.
//
// # Model
//
// A Dataset holds Corpora (one person's Traces each) and Questions. A Question
// points at its Corpus, carries its asked-at time, reference answer, evidence
// groups (statement + trace ids) and, for multiple choice, its options.
//
// # Loaders
//
// Load detects the format of a path (a CloneMem persona file or directory, a
// KnowMe-Bench dataset directory) and applies the right loader; LoadFS does
// the same on any fs.FS, and Sample loads the bundled sample personas. Loaders
// never drop data silently: every defect goes to the Dataset's validation
// Report with its file and JSON path. Malformed JSON is an error naming file,
// line and column.
//
// # Reports and statistics
//
// WriteValidation prints the counts and the validation report (what `memlab
// datasets validate` shows); ComputeStats and WriteStats give counts by task,
// dimension and medium, the time span and a token estimate.
//
// # Temporal admission
//
// Admit and Dataset.Visible give the traces that exist when a question is
// asked; every memory system applies it before indexing or ranking.
package datasets
