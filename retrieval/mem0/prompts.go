package mem0

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
)

// Prompts are memlab's own words for what Mem0's prompts ask; only the JSON
// field names ("facts"; "memory", "id", "text", "event", "old_memory") are
// Mem0's, since parsers must match them.

// extractSystem is the fact-extraction system prompt; %DATE% is replaced by
// today's date.
const extractSystem = `You organise personal information. From the input, write down the facts about the person that are worth remembering later, each as one short, self-contained sentence. Keep:
- preferences, likes and dislikes (food, products, activities, entertainment);
- personal details: names, relationships, important dates;
- plans and intentions: trips, events, goals;
- preferred activities and services;
- health and wellbeing;
- work and study: job titles, habits, career goals;
- anything else that says who the person is.

Examples:
Input: user: Hi.
Output: {"facts": []}
Input: user: I moved to Lisbon last spring and I still miss the rain in Galway.
Output: {"facts": ["Moved to Lisbon last spring", "Misses the rain in Galway"]}

Rules:
- Today is %DATE%. Resolve relative dates ("yesterday", "last week") against the date given with the input when there is one.
- Small talk with nothing worth remembering gives an empty list.
- Write the facts in the language of the input.
- Answer with JSON only: {"facts": ["...", "..."]}.`

// extractUser is the user message of the extraction call for one trace.
func extractUser(t datasets.Trace) string {
	var b strings.Builder
	b.WriteString("Input:\nuser: ")
	if stamp := traceStamp(t); stamp != "" {
		b.WriteString("[" + stamp + "] ")
	}
	b.WriteString(t.Text)
	return b.String()
}

// traceStamp is "2023-01-08 10:30, chat" or the parts that are known.
func traceStamp(t datasets.Trace) string {
	var parts []string
	switch {
	case !t.Time.IsZero():
		parts = append(parts, t.Time.Format("2006-01-02 15:04"))
	case t.TimeRaw != "":
		parts = append(parts, t.TimeRaw)
	}
	if t.Medium != "" {
		parts = append(parts, t.Medium)
	}
	return strings.Join(parts, ", ")
}

// today is the date the extraction prompt states.
func today(t datasets.Trace, wallClock bool, now func() time.Time) string {
	if wallClock || t.Time.IsZero() {
		return now().Format("2006-01-02")
	}
	return t.Time.Format("2006-01-02")
}

// Markers of the update prompt (tests and fake responders look for them).
const (
	markerMemory = "Current memory:"
	markerFacts  = "New facts:"
)

// updatePrompt is the single user message of the update call.
func updatePrompt(current []promptMemory, facts []string) string {
	var b strings.Builder
	b.WriteString(`You manage a person's memory. Compare each new fact with the current memory and decide, for every memory item and every new fact, one operation:
- ADD: the fact is new information; add it as a new item (give it a new id).
- UPDATE: the fact is about the same thing as an item but richer or changed; keep the item's id, write the new text, and put the previous text in "old_memory". If both say the same, keep the more informative text.
- DELETE: the fact contradicts an item; give the item's id.
- NONE: the fact is already in memory, or the item is unaffected; keep the item's id and text.

Example: current memory [{"id": "0", "text": "Likes tea"}], new facts ["Dislikes tea", "Plays the cello"] gives
{"memory": [{"id": "0", "text": "Likes tea", "event": "DELETE"}, {"id": "1", "text": "Plays the cello", "event": "ADD"}]}

`)
	b.WriteString(markerMemory + "\n")
	if len(current) == 0 {
		b.WriteString("(the memory is empty)\n")
	} else {
		js, _ := json.Marshal(current)
		b.Write(js)
		b.WriteString("\n")
	}
	b.WriteString("\n" + markerFacts + "\n")
	js, _ := json.Marshal(facts)
	b.Write(js)
	b.WriteString(`

Answer with JSON only, in this shape:
{"memory": [{"id": "...", "text": "...", "event": "ADD|UPDATE|DELETE|NONE", "old_memory": "... (UPDATE only)"}]}`)
	return b.String()
}

// promptMemory is a memory item as the update prompt shows it.
type promptMemory struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}
