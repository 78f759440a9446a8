package construct

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/memlab/memlab/llm"
)

// Prompt is a versioned prompt template: a system message and a user
// message written in text/template over the step's data. Its hash (Hash)
// is part of the identity of every artefact it makes: changing a prompt's
// wording, without bumping its version, still makes new artefacts.
//
// The user message is sent after a first line "TASK: NAME vVERSION", so a
// reply, a stored call and a log line say which prompt they answer. The
// template functions are json (the value as indented JSON), join
// (strings joined by a separator) and add (integer sum).
type Prompt struct {
	Name    string
	Version int
	System  string
	User    string
}

// Hash is the hex SHA-256 of the prompt's name, version and texts.
func (p Prompt) Hash() string {
	b, _ := json.Marshal([]any{p.Name, p.Version, p.System, p.User})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ID is "NAME vVERSION", how tables and stored calls name the prompt.
func (p Prompt) ID() string { return fmt.Sprintf("%s v%d", p.Name, p.Version) }

var templateFuncs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	},
	"join": func(sep string, xs []string) string { return strings.Join(xs, sep) },
	"add":  func(a, b int) int { return a + b },
}

// Render fills the template with data and returns the chat messages.
func (p Prompt) Render(data any) ([]llm.Message, error) {
	t, err := template.New(p.Name).Funcs(templateFuncs).Option("missingkey=error").Parse(p.User)
	if err != nil {
		return nil, fmt.Errorf("construct: prompt %s: %w", p.ID(), err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "TASK: %s\n\n", p.ID())
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("construct: prompt %s: render: %w", p.ID(), err)
	}
	var msgs []llm.Message
	if p.System != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: p.System})
	}
	return append(msgs, llm.Message{Role: "user", Content: b.String()}), nil
}

// TaskOf returns the prompt id on the first line of a user message this
// package rendered ("knowme.anu v1"), "" when there is none: what a
// scripted stand-in model keys its answers on.
func TaskOf(user string) string {
	line, _, _ := strings.Cut(user, "\n")
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "TASK: ")
	if !ok {
		return ""
	}
	return id
}

// InputOf returns the JSON block a prompt of this package carries between
// the lines "<<<INPUT" and "INPUT>>>" (each prompt puts its input there),
// false when the message has none.
func InputOf(user string) (json.RawMessage, bool) {
	_, rest, ok := strings.Cut(user, "<<<INPUT\n")
	if !ok {
		return nil, false
	}
	body, _, ok := strings.Cut(rest, "\nINPUT>>>")
	if !ok || !json.Valid([]byte(body)) {
		return nil, false
	}
	return json.RawMessage(body), true
}
