package amem

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Prompts are memlab's own words for what A-Mem's prompts ask; only the
// JSON field names are A-Mem's, since parsers must match them.

// Markers that start each prompt (fake responders in tests look for them).
const (
	markerNote     = "Build a memory note"
	markerEvolve   = "Decide how the memory network evolves"
	markerKeywords = "Turn the question into search keywords"
)

func notePrompt(content string) string {
	return markerNote + ` for the text below. Return:
- "keywords": at least three salient keywords, most important first; no speaker names and no times;
- "context": one sentence giving the topic, the key points and the purpose of the text;
- "tags": at least three broad tags that classify it (domain, format, type).

Text:
` + content + `

Answer with JSON only: {"keywords": ["..."], "context": "...", "tags": ["..."]}`
}

const noteSchema = `{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}},"context":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["keywords","context","tags"],"additionalProperties":false}`

func evolvePrompt(n *note, neighbours []*note) string {
	var b strings.Builder
	b.WriteString(markerEvolve + ` around a new memory note. Look at the new note and its nearest neighbours and decide:
1. Should the memory evolve (should_evolve)?
2. Which actions: "strengthen" links the new note to some neighbours (give their memory index in suggested_connections) and may replace the new note's tags (tags_to_update); "update_neighbor" rewrites the context and tags of the neighbours, in the order they are listed (new_context_neighborhood and new_tags_neighborhood, one entry per neighbour; repeat the old value to keep it).
Tags should describe the notes so that they can be found and grouped later.

New note:
context: ` + n.context + `
content: ` + n.content + `
keywords: ` + jsonText(n.keywords) + `

Nearest neighbours:
`)
	if len(neighbours) == 0 {
		b.WriteString("(none)\n")
	}
	for i, nb := range neighbours {
		fmt.Fprintf(&b, "memory index:%d\ttalk start time:%s\tmemory content: %s\tmemory context: %s\tmemory keywords: %s\tmemory tags: %s\n",
			i, nb.stamp(), oneLine(nb.content), oneLine(nb.context), jsonText(nb.keywords), jsonText(nb.tags))
	}
	fmt.Fprintf(&b, "\nNumber of neighbours: %d\n", len(neighbours))
	b.WriteString(`
Answer with JSON only: {"should_evolve": true or false, "actions": ["strengthen", "update_neighbor"], "suggested_connections": [0], "tags_to_update": ["..."], "new_context_neighborhood": ["..."], "new_tags_neighborhood": [["..."]]}`)
	return b.String()
}

const evolveSchema = `{"type":"object","properties":{"should_evolve":{"type":"boolean"},"actions":{"type":"array","items":{"type":"string"}},"suggested_connections":{"type":"array","items":{"type":"integer"}},"tags_to_update":{"type":"array","items":{"type":"string"}},"new_context_neighborhood":{"type":"array","items":{"type":"string"}},"new_tags_neighborhood":{"type":"array","items":{"type":"array","items":{"type":"string"}}}},"required":["should_evolve","actions","suggested_connections","tags_to_update","new_context_neighborhood","new_tags_neighborhood"],"additionalProperties":false}`

func keywordsPrompt(question string) string {
	return markerKeywords + ` that would find the memories needed to answer it. Question:
` + question + `

Answer with JSON only: {"keywords": "keyword1, keyword2, ..."}`
}

const keywordsSchema = `{"type":"object","properties":{"keywords":{"type":"string"}},"required":["keywords"],"additionalProperties":false}`

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return "[]"
	}
	return string(b)
}

// oneLine keeps a neighbour on one prompt line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
