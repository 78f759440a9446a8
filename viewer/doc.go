// Package viewer serves a read-only web viewer of a run store for error
// analysis (`memlab view`): the runs with their means, one run's summary
// and breakdown tables with 95% bootstrap intervals and its figures, its
// questions (filtered, searched, sorted and paginated), one question's
// record (answer, scores with the judges' explanations, calls, tokens and
// wall time by stage, the passages given to the reader, the ranked
// retrieval), and two or more runs compared on a metric (paired tests
// against the first, Holm-adjusted) with the questions whose outcome
// flipped.
//
// What it reads of a run (its records, tables, intervals and figures) is
// kept while the run is unchanged, the records of at most
// Options.MaxRecords questions over all runs (the runs used least recently
// are dropped first, their means kept for the runs page).
//
// Every page is rendered on the server with html/template, so every text
// of a dataset or a model is escaped, and every URL credential is left out
// of the page (llm.RedactURLs). Its stylesheet and script are embedded: it
// fetches nothing. It only reads the store (open it with
// runstore.OpenReadOnly), so it can serve a store another process writes.
package viewer
