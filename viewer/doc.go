// Package viewer serves a read-only web viewer of a run store for error
// analysis (`memlab view`): the runs with their means, one run's summary
// and breakdown tables and its questions (filtered, searched, sorted and
// paginated), one question's record (answer, scores with the judges'
// explanations, usage, the ranked retrieval) and the questions whose
// outcome flipped between two runs.
//
// Every page is rendered on the server with html/template, so every text
// of a dataset or a model is escaped, and every URL credential is left out
// of the page (llm.RedactURLs). Its stylesheet and script are embedded: it
// fetches nothing. It only reads the store (open it with
// runstore.OpenReadOnly), so it can serve a store another process writes.
package viewer
