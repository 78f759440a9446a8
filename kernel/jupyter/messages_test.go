package jupyter

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestContentEncoding pins the JSON of each content type: the spec's field
// names in order, {} and [] for nil dicts and lists, no HTML escaping, the
// three forms of execute_reply, and is_complete's indent only when
// incomplete. Each encoding decodes back to the same value.
func TestContentEncoding(t *testing.T) {
	empty, tab := "", "\t"
	out := "42"
	cases := []struct {
		c    Content
		want string
	}{
		{KernelStatus{ExecutionState: StateBusy}, `{"execution_state":"busy"}`},
		{ExecuteInput{Code: "x <- 1 && y", ExecutionCount: 3}, `{"code":"x <- 1 && y","execution_count":3}`},
		{Stream{Name: "stdout", Text: "hi\n"}, `{"name":"stdout","text":"hi\n"}`},
		{DisplayData{Data: MIMEBundle{"text/plain": "t", "text/html": "<b>t</b>"}},
			`{"data":{"text/html":"<b>t</b>","text/plain":"t"},"metadata":{},"transient":{}}`},
		{UpdateDisplayData{Data: MIMEBundle{"text/plain": "t"}, Transient: Transient{DisplayID: "d1"}},
			`{"data":{"text/plain":"t"},"metadata":{},"transient":{"display_id":"d1"}}`},
		{ExecuteResult{ExecutionCount: 2, Data: MIMEBundle{"text/plain": "21"}}, `{"execution_count":2,"data":{"text/plain":"21"},"metadata":{}}`},
		{ErrorContent{Ename: "Panic", Evalue: "boom"}, `{"ename":"Panic","evalue":"boom","traceback":[]}`},
		{executeOK(1), `{"status":"ok","execution_count":1,"user_expressions":{},"payload":[]}`},
		{executeError(2, ErrorContent{Ename: "CompileError", Evalue: "undefined: x", Traceback: []string{"cell 2, line 1: undefined: x"}}),
			`{"status":"error","execution_count":2,"ename":"CompileError","evalue":"undefined: x","traceback":["cell 2, line 1: undefined: x"]}`},
		{executeAborted(2), `{"status":"aborted","execution_count":2}`},
		{IsCompleteReply{Status: "complete"}, `{"status":"complete"}`},
		{IsCompleteReply{Status: "incomplete", Indent: &empty}, `{"status":"incomplete","indent":""}`},
		{IsCompleteReply{Status: "incomplete", Indent: &tab}, `{"status":"incomplete","indent":"\t"}`},
		{CompleteReply{Status: StatusOK, CursorStart: 1, CursorEnd: 3}, `{"status":"ok","matches":[],"cursor_start":1,"cursor_end":3,"metadata":{}}`},
		{InspectReply{Status: StatusOK}, `{"status":"ok","found":false,"data":{},"metadata":{}}`},
		{HistoryReply{Status: StatusOK}, `{"status":"ok","history":[]}`},
		{HistoryReply{Status: StatusOK, History: List[HistoryEntry]{
			{Session: 1, Line: 1, Input: "a"},
			{Session: 1, Line: 2, Input: "b", WithOutput: true},
			{Session: 1, Line: 3, Input: "c", WithOutput: true, Output: &out},
		}}, `{"status":"ok","history":[[1,1,"a"],[1,2,["b",null]],[1,3,["c","42"]]]}`},
		{CommInfoReply{Status: StatusOK, Comms: map[string]CommInfo{"c1": {TargetName: "t"}}}, `{"status":"ok","comms":{"c1":{"target_name":"t"}}}`},
		{CommClose{CommID: "c1"}, `{"comm_id":"c1","data":{}}`},
		{ShutdownReply{Status: StatusOK, Restart: true}, `{"status":"ok","restart":true}`},
		{InterruptReply{Status: StatusOK}, `{"status":"ok"}`},
		{KernelInfoReply{Status: StatusOK, ProtocolVersion: "5.3", Implementation: "memlab", ImplementationVersion: "v1",
			LanguageInfo: LanguageInfo{Name: "go", Version: "1.26", Mimetype: "text/x-go", FileExtension: ".go"}, Banner: "b"},
			`{"status":"ok","protocol_version":"5.3","implementation":"memlab","implementation_version":"v1",` +
				`"language_info":{"name":"go","version":"1.26","mimetype":"text/x-go","file_extension":".go"},"banner":"b","debugger":false,"help_links":[]}`},
		{ExecuteRequest{Code: "1"}, `{"code":"1","silent":false,"allow_stdin":false}`},
		{CompleteRequest{Code: "fmt."}, `{"code":"fmt."}`},
	}
	for _, c := range cases {
		b, err := marshalContent(c.c)
		if err != nil {
			t.Errorf("%s: %v", c.c.MsgType(), err)
			continue
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.c.MsgType(), b, c.want)
		}
		back := reflect.New(reflect.TypeOf(c.c))
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Errorf("%s: decode %s: %v", c.c.MsgType(), b, err)
			continue
		}
		again, _ := marshalContent(back.Elem().Interface())
		if string(again) != string(b) {
			t.Errorf("%s: decoded and encoded again to %s, want %s", c.c.MsgType(), again, b)
		}
	}
}

// TestRequestsDecodeLeniently: a request with missing fields decodes to the
// zero value, with nil for the fields whose default is not false.
func TestRequestsDecodeLeniently(t *testing.T) {
	var e ExecuteRequest
	if err := json.Unmarshal([]byte(`{"code":"x","user_expressions":{"a":1}}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Code != "x" || e.StoreHistory != nil || e.StopOnError != nil || e.Silent {
		t.Errorf("execute_request = %+v", e)
	}
	if err := json.Unmarshal([]byte(`{"code":"y","user_expressions":[1]}`), &e); err != nil || e.Code != "y" {
		t.Errorf("execute_request with a list for user_expressions = %+v, %v; want its code", e, err)
	}
	var c CompleteRequest
	if err := json.Unmarshal([]byte(`{"code":"x"}`), &c); err != nil || c.CursorPos != nil {
		t.Errorf("complete_request = %+v, %v", c, err)
	}
	var h HistoryEntry
	for _, bad := range []string{`[1,2]`, `{"a":1}`, `[1,2,[null,"x"]]`, `["s",2,"x"]`} {
		if err := json.Unmarshal([]byte(bad), &h); err == nil {
			t.Errorf("history entry %s decoded to %+v", bad, h)
		}
	}
}
