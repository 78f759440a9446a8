//go:build race

package worker

// raceEnabled: yaegi v0.16.1 races between a cancelled Eval's goroutine and
// the next Eval (in process too), which the race detector reports.
const raceEnabled = true
