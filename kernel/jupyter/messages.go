package jupyter

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The contents of the messages the kernel handles, one struct per message
// type, with the field names of the Jupyter messaging spec (protocol 5.3).
// A field the spec requires is always encoded; an optional one has
// omitempty, except debugger, help_links and payload, which the kernel
// always sends. Dicts and lists the protocol wants as {} and [] are of type
// Dict, MIMEBundle and List, which encode nil as {} or [] instead of null.
//
// Requests are decoded leniently: a missing field takes its zero value, or
// the spec's default where a pointer tells a missing field from false.

// Content is the content of a message: its MsgType is the header's
// msg_type.
type Content interface {
	MsgType() string
}

// Reply statuses.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusAborted = "aborted"
)

// Dict is a JSON object of any content (metadata, user_expressions, comm
// data); nil encodes as {}.
type Dict map[string]any

// MarshalJSON encodes d, {} when nil, without HTML escaping.
func (d Dict) MarshalJSON() ([]byte, error) {
	if d == nil {
		return []byte("{}"), nil
	}
	return marshalContent(map[string]any(d))
}

// MIMEBundle maps MIME types to the representations of one output
// (text/plain always, text/markdown, text/html, image/svg+xml, image/png in
// base64): the data of display_data, update_display_data, execute_result
// and inspect_reply. nil encodes as {}.
type MIMEBundle map[string]string

// MarshalJSON encodes b, {} when nil, without HTML escaping.
func (b MIMEBundle) MarshalJSON() ([]byte, error) {
	if b == nil {
		return []byte("{}"), nil
	}
	return marshalContent(map[string]string(b))
}

// List is a JSON list (traceback, matches, history, payload); nil encodes
// as [].
type List[T any] []T

// MarshalJSON encodes l, [] when nil, without HTML escaping.
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return marshalContent([]T(l))
}

// Shell and control requests.

// KernelInfoRequest is the content of a kernel_info_request (empty).
type KernelInfoRequest struct{}

// MsgType returns "kernel_info_request".
func (KernelInfoRequest) MsgType() string { return "kernel_info_request" }

// ExecuteRequest is the content of an execute_request. StoreHistory and
// StopOnError are nil when missing: both default to true (store_history is
// false when silent). The kernel evaluates no user_expressions: they are
// kept as received, so that whatever they hold never fails the request.
type ExecuteRequest struct {
	Code            string          `json:"code"`
	Silent          bool            `json:"silent"`
	StoreHistory    *bool           `json:"store_history,omitempty"`
	UserExpressions json.RawMessage `json:"user_expressions,omitempty"`
	AllowStdin      bool            `json:"allow_stdin"`
	StopOnError     *bool           `json:"stop_on_error,omitempty"`
}

// MsgType returns "execute_request".
func (ExecuteRequest) MsgType() string { return "execute_request" }

// IsCompleteRequest is the content of an is_complete_request.
type IsCompleteRequest struct {
	Code string `json:"code"`
}

// MsgType returns "is_complete_request".
func (IsCompleteRequest) MsgType() string { return "is_complete_request" }

// CompleteRequest is the content of a complete_request. CursorPos counts
// Unicode code points; nil (missing) means the end of Code.
type CompleteRequest struct {
	Code      string `json:"code"`
	CursorPos *int   `json:"cursor_pos,omitempty"`
}

// MsgType returns "complete_request".
func (CompleteRequest) MsgType() string { return "complete_request" }

// InspectRequest is the content of an inspect_request. CursorPos counts
// Unicode code points; nil (missing) means the end of Code.
type InspectRequest struct {
	Code        string `json:"code"`
	CursorPos   *int   `json:"cursor_pos,omitempty"`
	DetailLevel int    `json:"detail_level"`
}

// MsgType returns "inspect_request".
func (InspectRequest) MsgType() string { return "inspect_request" }

// HistoryRequest is the content of a history_request. HistAccessType is
// "range", "tail" or "search"; the kernel answers tail (the last N) and
// search (inputs matching the glob Pattern), and gives everything for
// range.
type HistoryRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session,omitempty"`
	Start          int    `json:"start,omitempty"`
	Stop           int    `json:"stop,omitempty"`
	N              int    `json:"n,omitempty"`
	Pattern        string `json:"pattern,omitempty"`
	Unique         bool   `json:"unique,omitempty"`
}

// MsgType returns "history_request".
func (HistoryRequest) MsgType() string { return "history_request" }

// CommInfoRequest is the content of a comm_info_request.
type CommInfoRequest struct {
	TargetName string `json:"target_name,omitempty"`
}

// MsgType returns "comm_info_request".
func (CommInfoRequest) MsgType() string { return "comm_info_request" }

// CommOpen is the content of a comm_open (the kernel has no comm targets:
// it answers with comm_close).
type CommOpen struct {
	CommID     string `json:"comm_id"`
	TargetName string `json:"target_name"`
	Data       Dict   `json:"data"`
}

// MsgType returns "comm_open".
func (CommOpen) MsgType() string { return "comm_open" }

// ShutdownRequest is the content of a shutdown_request.
type ShutdownRequest struct {
	Restart bool `json:"restart"`
}

// MsgType returns "shutdown_request".
func (ShutdownRequest) MsgType() string { return "shutdown_request" }

// InterruptRequest is the content of an interrupt_request (empty).
type InterruptRequest struct{}

// MsgType returns "interrupt_request".
func (InterruptRequest) MsgType() string { return "interrupt_request" }

// Replies.

// KernelInfoReply is the content of a kernel_info_reply.
type KernelInfoReply struct {
	Status                string         `json:"status"`
	ProtocolVersion       string         `json:"protocol_version"`
	Implementation        string         `json:"implementation"`
	ImplementationVersion string         `json:"implementation_version"`
	LanguageInfo          LanguageInfo   `json:"language_info"`
	Banner                string         `json:"banner"`
	Debugger              bool           `json:"debugger"`
	HelpLinks             List[HelpLink] `json:"help_links"`
}

// MsgType returns "kernel_info_reply".
func (KernelInfoReply) MsgType() string { return "kernel_info_reply" }

// LanguageInfo is kernel_info_reply.language_info.
type LanguageInfo struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	Mimetype          string `json:"mimetype"`
	FileExtension     string `json:"file_extension"`
	PygmentsLexer     string `json:"pygments_lexer,omitempty"`
	CodemirrorMode    string `json:"codemirror_mode,omitempty"`
	NbconvertExporter string `json:"nbconvert_exporter,omitempty"`
}

// HelpLink is an entry of kernel_info_reply.help_links.
type HelpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// ExecuteReply is the content of an execute_reply: status and
// execution_count always, then the fields of ExecuteOK when status is
// "ok", those of ErrorContent when it is "error", and nothing more when it
// is "aborted".
type ExecuteReply struct {
	Status         string `json:"status"`
	ExecutionCount int    `json:"execution_count"`
	*ExecuteOK
	*ErrorContent
}

// MsgType returns "execute_reply".
func (ExecuteReply) MsgType() string { return "execute_reply" }

// ExecuteOK holds the fields of an execute_reply with status "ok".
type ExecuteOK struct {
	UserExpressions Dict       `json:"user_expressions"`
	Payload         List[Dict] `json:"payload"`
}

// executeOK is the reply to a cell that ran (or was empty) with count n.
func executeOK(n int) ExecuteReply {
	return ExecuteReply{Status: StatusOK, ExecutionCount: n, ExecuteOK: &ExecuteOK{}}
}

// executeError is the reply to a cell that failed.
func executeError(n int, e ErrorContent) ExecuteReply {
	return ExecuteReply{Status: StatusError, ExecutionCount: n, ErrorContent: &e}
}

// executeAborted is the reply to a request not run after a failed cell.
func executeAborted(n int) ExecuteReply {
	return ExecuteReply{Status: StatusAborted, ExecutionCount: n}
}

// IsCompleteReply is the content of an is_complete_reply: Status is
// "complete", "incomplete", "invalid" or "unknown"; Indent is set exactly
// when it is "incomplete" (it may then be "").
type IsCompleteReply struct {
	Status string  `json:"status"`
	Indent *string `json:"indent,omitempty"`
}

// MsgType returns "is_complete_reply".
func (IsCompleteReply) MsgType() string { return "is_complete_reply" }

// CompleteReply is the content of a complete_reply; the cursor positions
// count Unicode code points.
type CompleteReply struct {
	Status      string       `json:"status"`
	Matches     List[string] `json:"matches"`
	CursorStart int          `json:"cursor_start"`
	CursorEnd   int          `json:"cursor_end"`
	Metadata    Dict         `json:"metadata"`
}

// MsgType returns "complete_reply".
func (CompleteReply) MsgType() string { return "complete_reply" }

// InspectReply is the content of an inspect_reply; Data is empty when
// nothing was found.
type InspectReply struct {
	Status   string     `json:"status"`
	Found    bool       `json:"found"`
	Data     MIMEBundle `json:"data"`
	Metadata Dict       `json:"metadata"`
}

// MsgType returns "inspect_reply".
func (InspectReply) MsgType() string { return "inspect_reply" }

// HistoryReply is the content of a history_reply.
type HistoryReply struct {
	Status  string             `json:"status"`
	History List[HistoryEntry] `json:"history"`
}

// MsgType returns "history_reply".
func (HistoryReply) MsgType() string { return "history_reply" }

// HistoryEntry is one entry of history_reply.history: the JSON list
// [session, line, input], or [session, line, [input, output]] when the
// request asked for output (output is null for a cell without a value).
type HistoryEntry struct {
	Session, Line int
	Input         string
	// WithOutput selects the second form; Output is nil when the cell had
	// no value.
	WithOutput bool
	Output     *string
}

// MarshalJSON encodes e as the spec's tuple.
func (e HistoryEntry) MarshalJSON() ([]byte, error) {
	if e.WithOutput {
		return marshalContent([]any{e.Session, e.Line, []any{e.Input, e.Output}})
	}
	return marshalContent([]any{e.Session, e.Line, e.Input})
}

// UnmarshalJSON decodes either form of the tuple.
func (e *HistoryEntry) UnmarshalJSON(b []byte) error {
	var t []json.RawMessage
	if err := json.Unmarshal(b, &t); err != nil || len(t) != 3 {
		return fmt.Errorf("jupyter: history entry %.64s: want [session, line, input]", b)
	}
	var out HistoryEntry
	if err := json.Unmarshal(t[0], &out.Session); err != nil {
		return fmt.Errorf("jupyter: history entry %.64s: session: %w", b, err)
	}
	if err := json.Unmarshal(t[1], &out.Line); err != nil {
		return fmt.Errorf("jupyter: history entry %.64s: line: %w", b, err)
	}
	if bytes.HasPrefix(bytes.TrimSpace(t[2]), []byte("[")) {
		var io []*string
		if err := json.Unmarshal(t[2], &io); err != nil || len(io) != 2 || io[0] == nil {
			return fmt.Errorf("jupyter: history entry %.64s: want [input, output]", b)
		}
		out.WithOutput, out.Input, out.Output = true, *io[0], io[1]
	} else if err := json.Unmarshal(t[2], &out.Input); err != nil {
		return fmt.Errorf("jupyter: history entry %.64s: input: %w", b, err)
	}
	*e = out
	return nil
}

// CommInfoReply is the content of a comm_info_reply: the open comms by id.
type CommInfoReply struct {
	Status string              `json:"status"`
	Comms  map[string]CommInfo `json:"comms"`
}

// MsgType returns "comm_info_reply".
func (CommInfoReply) MsgType() string { return "comm_info_reply" }

// CommInfo is an entry of comm_info_reply.comms.
type CommInfo struct {
	TargetName string `json:"target_name"`
}

// ShutdownReply is the content of a shutdown_reply.
type ShutdownReply struct {
	Status  string `json:"status"`
	Restart bool   `json:"restart"`
}

// MsgType returns "shutdown_reply".
func (ShutdownReply) MsgType() string { return "shutdown_reply" }

// InterruptReply is the content of an interrupt_reply.
type InterruptReply struct {
	Status string `json:"status"`
}

// MsgType returns "interrupt_reply".
func (InterruptReply) MsgType() string { return "interrupt_reply" }

// IOPub messages.

// Execution states of KernelStatus.
const (
	StateStarting = "starting"
	StateBusy     = "busy"
	StateIdle     = "idle"
)

// KernelStatus is the content of a status message.
type KernelStatus struct {
	ExecutionState string `json:"execution_state"`
}

// MsgType returns "status".
func (KernelStatus) MsgType() string { return "status" }

// ExecuteInput is the content of an execute_input: the code about to run
// and its execution count.
type ExecuteInput struct {
	Code           string `json:"code"`
	ExecutionCount int    `json:"execution_count"`
}

// MsgType returns "execute_input".
func (ExecuteInput) MsgType() string { return "execute_input" }

// Stream is the content of a stream message; Name is "stdout" or "stderr".
type Stream struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// MsgType returns "stream".
func (Stream) MsgType() string { return "stream" }

// DisplayData is the content of a display_data.
type DisplayData struct {
	Data      MIMEBundle `json:"data"`
	Metadata  Dict       `json:"metadata"`
	Transient Transient  `json:"transient"`
}

// MsgType returns "display_data".
func (DisplayData) MsgType() string { return "display_data" }

// UpdateDisplayData is the content of an update_display_data: a
// DisplayData whose Transient.DisplayID names the display it replaces.
type UpdateDisplayData DisplayData

// MsgType returns "update_display_data".
func (UpdateDisplayData) MsgType() string { return "update_display_data" }

// Transient is the transient dict of display_data: what lives only during
// the session (a display id, so that an update can replace it).
type Transient struct {
	DisplayID string `json:"display_id,omitempty"`
}

// ExecuteResult is the content of an execute_result: the value of the
// cell's trailing expression.
type ExecuteResult struct {
	ExecutionCount int        `json:"execution_count"`
	Data           MIMEBundle `json:"data"`
	Metadata       Dict       `json:"metadata"`
}

// MsgType returns "execute_result".
func (ExecuteResult) MsgType() string { return "execute_result" }

// ErrorContent is the content of an error message, and the fields an
// execute_reply with status "error" has in place of its usual content.
type ErrorContent struct {
	Ename     string       `json:"ename"`
	Evalue    string       `json:"evalue"`
	Traceback List[string] `json:"traceback"`
}

// MsgType returns "error".
func (ErrorContent) MsgType() string { return "error" }

// CommClose is the content of a comm_close.
type CommClose struct {
	CommID string `json:"comm_id"`
	Data   Dict   `json:"data"`
}

// MsgType returns "comm_close".
func (CommClose) MsgType() string { return "comm_close" }
