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
// line and column. Among the defects: timestamps that go backwards (a KnowMe
// stream entry against the one before it, a CloneMem trace against the last
// date before it), evidence dated after its question's time (it caps even
// the Oracle's recall), text fields holding numbers, booleans, lists or
// objects (read as text), strings with bytes that are not UTF-8 (read with
// U+FFFD), a UTF-8 byte-order mark (skipped), a .json name that is a
// directory (not read).
//
// # Writing
//
// CloneMemFile (with CloneMemTrace, CloneMemQuestion, CloneMemEvidence and
// CloneMemChoice) declares CloneMem's release schema once for every
// writer, and WriteCloneMemFile writes one persona file in it: the CloneMem
// pipeline of package construct writes with it, and so does WriteSynthetic,
// a seeded synthetic corpus for measuring memlab at scale.
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
//
// # Dependencies
//
// datasets imports only text of memlab: every other package reads datasets,
// never the reverse (internal/archtest enforces it).
package datasets
