// Package llm is memlab's one door to models: OpenAI-compatible chat and
// embeddings through go-openai, endpoints and roles from the environment or
// a config file, per-endpoint concurrency and rate limits, retries with
// backoff, the durable response cache (llm/cache), usage accounting, and the
// offline stand-ins (llm/offline). A fake OpenAI-compatible server for tests
// lives in llm/llmtest.
//
// # Dependencies
//
// llm and its sub-packages import only text and component of memlab (and
// internal helpers): every component calls models through llm, so llm knows
// none of them (internal/archtest enforces it).
package llm
