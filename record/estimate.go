package record

// StageEstimate is the expected cost of one stage of a run.
type StageEstimate struct {
	// Calls is the number of model calls and PromptTokens their prompts'
	// tokens (llm.EstimateTokens): exact when Known, else at least these.
	Calls, PromptTokens int
	// MaxCalls and MaxPromptTokens bound Calls and PromptTokens from above
	// (retries of unparseable replies; answers not written yet, counted at
	// their max_tokens); they equal Calls and PromptTokens when those are
	// exact, and are 0 when no bound is known.
	MaxCalls, MaxPromptTokens int
	// MaxCompletionTokens is the most the replies may hold (the requests'
	// max_tokens); 0 when some request leaves it to the server.
	MaxCompletionTokens int
	// Embeds is the number of texts sent to an embedder, and EmbedCalls
	// the calls of Calls that send them (they have no completion), when
	// the calls are embedding calls (the dry run's refused calls; the
	// planned stages count chat calls only).
	Embeds, EmbedCalls int
	// Known is false when the stage's cost cannot be fully estimated
	// before the run (Note says why); the numbers are then a lower bound.
	Known bool
	Note  string
	// Model is the model the stage's calls go to ("" when it makes none,
	// "several models" when they go to more than one).
	Model string
	// Priced is true when Model has a price in the config (llm.Config
	// Prices); then CostUSD prices Calls' prompt tokens (the least the
	// stage costs) and MaxCostUSD adds the bounds (0 when unbounded).
	Priced              bool
	CostUSD, MaxCostUSD float64
}

// Estimate is what a run will spend, per stage, before any call.
type Estimate struct {
	Label string
	// RunID is the id the run will have (set by a dry run, runs.Run).
	RunID     string
	Questions int
	// Ingest is building the memory (model-calling memories); Retrieve the
	// questions' searches; Read the reader's answers; Judge the LLM judges.
	Ingest, Retrieve, Read, Judge StageEstimate
}

// Stages returns the estimate's stages with their names, in run order.
func (e *Estimate) Stages() []NamedStage {
	return []NamedStage{{"ingest", e.Ingest}, {"retrieve", e.Retrieve}, {"read", e.Read}, {"judge", e.Judge}}
}

// NamedStage is a stage estimate with its name.
type NamedStage struct {
	Name string
	StageEstimate
}
