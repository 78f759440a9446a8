package llm

import "github.com/memlab/memlab/internal/tokencount"

// EstimateTokens is a rough token count of text for cost estimates before
// a run: its whitespace-separated words, plus one for each Han, Hiragana,
// Katakana or Hangul character beyond the first of a word (such scripts
// are written without spaces). Real tokenizers give about 1.3 tokens per
// English word, so take it as an order of magnitude; the in-repo fake
// server (llm/llmtest) counts tokens the same way, so estimates and its
// usage reports agree on how they count.
func EstimateTokens(text string) int { return tokencount.Estimate(text) }
