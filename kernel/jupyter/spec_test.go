package jupyter

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// A field kind of the messaging spec: the JSON type of a content field.
const (
	kStr  = "str"
	kInt  = "int"
	kBool = "bool"
	kDict = "dict"
	kList = "list"
)

// specFields is the content of a message type in the Jupyter messaging
// spec (jupyter_client docs/messaging.rst): its required fields and the
// optional ones, each with its JSON kind.
type specFields struct {
	required, optional map[string]string
}

// Replies whose status is "error" carry ename, evalue and traceback in
// place of their usual content; "aborted" carries nothing but the status;
// execute_reply has execution_count whatever its status.
var errorFields = map[string]string{"status": kStr, "ename": kStr, "evalue": kStr, "traceback": kList}

// messageSpec lists the message types the kernel sends, by msg_type (for
// replies, their content when status is "ok").
var messageSpec = map[string]specFields{
	"status":              {required: map[string]string{"execution_state": kStr}},
	"execute_input":       {required: map[string]string{"code": kStr, "execution_count": kInt}},
	"stream":              {required: map[string]string{"name": kStr, "text": kStr}},
	"display_data":        {required: map[string]string{"data": kDict, "metadata": kDict}, optional: map[string]string{"transient": kDict}},
	"update_display_data": {required: map[string]string{"data": kDict, "metadata": kDict, "transient": kDict}},
	"execute_result":      {required: map[string]string{"execution_count": kInt, "data": kDict, "metadata": kDict}, optional: map[string]string{"transient": kDict}},
	"error":               {required: map[string]string{"ename": kStr, "evalue": kStr, "traceback": kList}},
	"comm_close":          {required: map[string]string{"comm_id": kStr, "data": kDict}},
	"kernel_info_reply": {
		required: map[string]string{"status": kStr, "protocol_version": kStr, "implementation": kStr,
			"implementation_version": kStr, "language_info": kDict, "banner": kStr},
		optional: map[string]string{"debugger": kBool, "help_links": kList, "supported_features": kList},
	},
	"execute_reply":     {required: map[string]string{"status": kStr, "execution_count": kInt, "user_expressions": kDict}, optional: map[string]string{"payload": kList}},
	"is_complete_reply": {required: map[string]string{"status": kStr}, optional: map[string]string{"indent": kStr}},
	"complete_reply": {required: map[string]string{"status": kStr, "matches": kList, "cursor_start": kInt,
		"cursor_end": kInt, "metadata": kDict}},
	"inspect_reply":   {required: map[string]string{"status": kStr, "found": kBool, "data": kDict, "metadata": kDict}},
	"history_reply":   {required: map[string]string{"status": kStr, "history": kList}},
	"comm_info_reply": {required: map[string]string{"status": kStr, "comms": kDict}},
	"shutdown_reply":  {required: map[string]string{"status": kStr, "restart": kBool}},
	"interrupt_reply": {required: map[string]string{"status": kStr}},
}

// languageInfoSpec is kernel_info_reply.language_info.
var languageInfoSpec = specFields{
	required: map[string]string{"name": kStr, "version": kStr, "mimetype": kStr, "file_extension": kStr},
	optional: map[string]string{"pygments_lexer": kStr, "codemirror_mode": kStr, "nbconvert_exporter": kStr},
}

// jsonKind is the spec kind of a decoded JSON value ("null" for null).
func jsonKind(v any) string {
	switch x := v.(type) {
	case string:
		return kStr
	case bool:
		return kBool
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return kInt
		}
		return "float"
	case map[string]any:
		return kDict
	case []any:
		return kList
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// checkFields returns what is wrong with obj against spec: a required
// field missing, a field the spec does not have, or a field of the wrong
// kind (null included).
func checkFields(obj map[string]any, spec specFields) []string {
	var bad []string
	for f := range spec.required {
		if _, ok := obj[f]; !ok {
			bad = append(bad, "missing "+f)
		}
	}
	for f, v := range obj {
		want, ok := spec.required[f]
		if !ok {
			want, ok = spec.optional[f]
		}
		switch {
		case !ok:
			bad = append(bad, "extra "+f)
		case jsonKind(v) != want:
			bad = append(bad, fmt.Sprintf("%s is %s, want %s", f, jsonKind(v), want))
		}
	}
	sort.Strings(bad)
	return bad
}

// contentProblems checks one message the kernel sent against the spec.
func contentProblems(m *Message) []string {
	t := m.Header.MsgType
	spec, ok := messageSpec[t]
	if !ok {
		return []string{"message type not in the spec table"}
	}
	dec := json.NewDecoder(strings.NewReader(string(m.Content)))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return []string{"content is not a JSON object: " + err.Error()}
	}
	if strings.HasSuffix(t, "_reply") && t != "is_complete_reply" { // is_complete's status is the verdict
		status, _ := obj["status"].(string)
		switch status {
		case "ok":
		case "error", "aborted":
			fields := map[string]string{"status": kStr}
			if status == "error" {
				fields = errorFields
			}
			if t == "execute_reply" {
				fields = copyWith(fields, "execution_count", kInt)
			}
			spec = specFields{required: fields}
		default:
			return []string{fmt.Sprintf("status %q, want ok, error or aborted", status)}
		}
	}
	bad := checkFields(obj, spec)
	switch t {
	case "kernel_info_reply":
		if li, ok := obj["language_info"].(map[string]any); ok {
			for _, b := range checkFields(li, languageInfoSpec) {
				bad = append(bad, "language_info: "+b)
			}
		}
	case "is_complete_reply":
		if _, has := obj["indent"]; has != (obj["status"] == "incomplete") {
			bad = append(bad, "indent is there exactly when status is incomplete")
		}
	case "update_display_data":
		if tr, _ := obj["transient"].(map[string]any); jsonKind(tr["display_id"]) != kStr {
			bad = append(bad, "no transient.display_id")
		}
	case "history_reply":
		entries, _ := obj["history"].([]any)
		for _, e := range entries {
			if tuple, ok := e.([]any); !ok || len(tuple) != 3 || jsonKind(tuple[0]) != kInt || jsonKind(tuple[1]) != kInt {
				bad = append(bad, fmt.Sprintf("history entry %v is not (session, line, input)", e))
			}
		}
	}
	for _, list := range []string{"traceback", "matches"} {
		if l, ok := obj[list].([]any); ok {
			for _, s := range l {
				if jsonKind(s) != kStr {
					bad = append(bad, list+" holds a non-string")
				}
			}
		}
	}
	return bad
}

func copyWith(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for x, y := range m {
		out[x] = y
	}
	return out
}

// TestMessagesFollowTheSpec drives the kernel through every message type it
// handles and checks each reply and iopub message it sends against the
// fields the messaging spec gives that message type: every required field
// there, no other field, each of its kind (never null). An error reply
// carries ename, evalue and traceback in place of the usual content, an
// aborted one nothing but its status (execute_reply: plus
// execution_count).
func TestMessagesFollowTheSpec(t *testing.T) {
	_, c := startKernelWith(t, Config{Symbols: []interp.Exports{stdlib.Symbols}})
	seen := map[string]bool{}
	check := func(what string, ms ...*Message) {
		t.Helper()
		for _, m := range ms {
			if m == nil {
				t.Fatalf("%s: a message is missing", what)
			}
			key := m.Header.MsgType
			var st struct {
				Status string `json:"status"`
			}
			if json.Unmarshal(m.Content, &st) == nil && st.Status != "" && st.Status != "ok" && key != "is_complete_reply" {
				key += " " + st.Status
			}
			seen[key] = true
			if bad := contentProblems(m); len(bad) > 0 {
				t.Errorf("%s: %s %s: %s", what, m.Header.MsgType, m.Content, strings.Join(bad, "; "))
			}
		}
	}
	// request sends on shell and checks the reply and the iopub messages.
	request := func(what, msgType string, content any) *Message {
		t.Helper()
		req := c.send(c.shell, msgType, content, nil)
		reply := c.recv(c.shell, 20*time.Second)
		check(what, reply)
		check(what, c.until(req)...)
		return reply
	}

	request("kernel_info", "kernel_info_request", map[string]any{})
	request("execute", "execute_request", map[string]any{"code": strings.Join([]string{
		`import (`,
		`	"fmt"`,
		`	"os"`,
		`	"github.com/memlab/memlab/display"`,
		`)`,
		`fmt.Println("out")`,
		`fmt.Fprintln(os.Stderr, "err")`,
		`display.Markdown("**md**")`,
		`d := display.NewLive()`,
		`d.Markdown("step 1")`,
		`d.Markdown("step 2")`,
		`x := 40`,
		`x + 2`,
	}, "\n")})
	request("empty cell", "execute_request", map[string]any{"code": "  "})
	request("silent cell", "execute_request", map[string]any{"code": "x = 1", "silent": true})
	request("failing cell", "execute_request", map[string]any{"code": "nope()"})
	for _, code := range []string{"func f() {", "x := 1", "}"} {
		request("is_complete "+code, "is_complete_request", map[string]any{"code": code})
	}
	request("complete", "complete_request", map[string]any{"code": "fmt.Sprin", "cursor_pos": 9})
	request("complete nothing", "complete_request", map[string]any{"code": "nothing.", "cursor_pos": 8})
	request("inspect", "inspect_request", map[string]any{"code": "fmt.Println", "cursor_pos": 5, "detail_level": 0})
	request("inspect nothing", "inspect_request", map[string]any{"code": "zzz", "cursor_pos": 1, "detail_level": 0})
	request("history", "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "tail", "n": 10})
	request("history with output", "history_request", map[string]any{"output": true, "raw": true, "hist_access_type": "tail", "n": 10})
	request("comm_info", "comm_info_request", map[string]any{})
	req := c.send(c.shell, "comm_open", map[string]any{"comm_id": "c1", "target_name": "nobody", "data": map[string]any{}}, nil)
	check("comm_open", c.until(req)...)

	// stop_on_error: the requests queued behind a failing cell are aborted.
	var reqs []*Message
	for _, code := range []string{`panic("first")`, `1`, `2`} {
		reqs = append(reqs, c.send(c.shell, "execute_request", map[string]any{"code": code}, nil))
	}
	for range reqs {
		check("stop_on_error", c.recv(c.shell, 20*time.Second))
	}
	// The aborted requests' busy and idle come before the failing cell's
	// idle: read iopub by parent until every idle is in.
	byParent := map[string][]*Message{}
	for idle := 0; idle < len(reqs); {
		m := c.recv(c.iopub, 20*time.Second)
		if m == nil {
			t.Fatalf("stop_on_error: %d of %d idle messages", idle, len(reqs))
		}
		var ph Header
		json.Unmarshal(m.ParentHeader, &ph)
		byParent[ph.MsgID] = append(byParent[ph.MsgID], m)
		if m.Header.MsgType == "status" && strings.Contains(string(m.Content), `"idle"`) {
			idle++
		}
	}
	for _, r := range reqs {
		check("stop_on_error", byParent[r.Header.MsgID]...)
	}

	// interrupt and shutdown on control.
	req = c.send(c.shell, "execute_request", map[string]any{"code": "for {\n}"}, nil)
	time.Sleep(300 * time.Millisecond)
	ir := c.send(c.control, "interrupt_request", map[string]any{}, nil)
	check("interrupt", c.recv(c.control, 10*time.Second))
	check("interrupt", c.until(ir)...)
	check("interrupted cell", c.recv(c.shell, 10*time.Second))
	check("interrupted cell", c.until(req)...)
	sr := c.send(c.control, "shutdown_request", map[string]any{"restart": false}, nil)
	check("shutdown", c.recv(c.control, 10*time.Second))
	check("shutdown", c.until(sr)...)

	var missing []string
	for t := range messageSpec {
		if !seen[t] {
			missing = append(missing, t)
		}
	}
	for _, t := range []string{"execute_reply error", "execute_reply aborted"} {
		if !seen[t] {
			missing = append(missing, t)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("the test saw no %v", missing)
	}
}
