// Package jupyter is memlab's Jupyter kernel: the Jupyter messaging
// protocol (5.3) over ZeroMQ (github.com/go-zeromq/zmq4, pure Go) in front
// of one kernel.Session, the same session `memlab run` uses, so cells are
// split, run and reported exactly as there. Config.NewSession can put that
// session in a supervised worker process (package kernel/worker, as
// `memlab kernel` does): a cell that crashes it gets an error reply with
// ename "Crash" and the next cell runs in a fresh session; completion and
// inspection then describe variables through VarDescriber.
//
// # Wire
//
// Five sockets are bound from the connection file: shell, control and
// stdin (ROUTER), iopub (PUB) and heartbeat (REP, echoed in its own
// goroutine). Every socket's sends go through a mutex. A message is
// [identities] "<IDS|MSG>" signature header parent_header metadata
// content [buffers]; Parse checks every bound and the HMAC (the key
// string as is; constant-time compare) over the four JSON frames as
// received, and rejects a signature it accepted before (a replayed
// message: the Signer keeps the last DigestHistorySize signatures, as
// jupyter_client's Session does). A malformed, badly signed or replayed
// message is logged and dropped without a reply. A connection file with an
// empty key turns authentication off (the protocol's rule); the kernel
// warns once in its log when it starts so. Parent headers are echoed as the raw header bytes, and
// empty dicts are always sent as {} (never null).
//
// # Messages
//
// Every content the kernel sends or decodes is a struct of messages.go,
// one per message type (KernelInfoReply, ExecuteRequest, ExecuteReply,
// Stream, DisplayData, ...), with the field names of the messaging spec and
// encoded with encoding/json; its MsgType method gives the header's
// msg_type, so a content cannot go out under another type's name. Fields
// the spec requires are always sent; dicts and lists are Dict, MIMEBundle
// and List, which encode nil as {} and [], never null. An execute_reply
// carries user_expressions and payload when its status is "ok", ename,
// evalue and traceback when it is "error", and only its execution_count
// when it is "aborted", as the spec says. Requests decode leniently: a
// missing field takes its default.
//
// # Dispatch
//
// Every request is wrapped in iopub status busy ... idle (kernel_info too:
// jupyter_client's wait_for_ready depends on it). Execute requests run one
// at a time on an executor goroutine; other shell requests (kernel_info,
// is_complete, complete, inspect, history, comm_info) and control requests
// (shutdown, interrupt) are answered at once, so that they never wait for
// a running cell. An execute publishes execute_input, then the cell's
// stdout/stderr in batches (every 50 ms) and its displays as they happen,
// then execute_result (the trailing expression's value) or error
// (ename/evalue/traceback naming the cell and line), then the reply and
// idle. execution_count counts the executions with store_history and not
// silent (empty code does not count); silent executions publish nothing
// but busy/idle. After a failed cell with stop_on_error, the execute
// requests already queued are answered "aborted". interrupt_request (and
// SIGINT) cancels the running cell's context; shutdown_request is answered
// on control, then the kernel exits. The stdin channel is bound but unused:
// cells read an empty standard input.
//
// The session numbers cells by every Exec, and a worker restarted after a
// crash numbers them from 1 again; the kernel maps the session's numbers
// to execution counts (cellnumbers.go), so the "cell N" of an error's
// evalue and traceback is In [N]. kernel_info's language_info.version is
// the Go the interpreter speaks (kernel.GoLevel), not the version of the
// toolchain that built memlab.
//
// # Rich output
//
// Package display's outputs become display_data with every form they
// carry (text/plain always; text/markdown, text/html, image/png,
// image/svg+xml): display.Markdown, Text, HTML, Table, PNG and SVG. A
// display.Live is shown with transient.display_id and replaced with
// update_display_data. `memlab run` writes the same bundles to its .ipynb,
// so a notebook's outputs are the same in both.
//
// # Outside Jupyter
//
// Assistant gives the same completion, inspection and is-complete answers
// for a session without a connection: `memlab repl` uses it.
//
// # Kernelspec
//
// Install writes kernel.json (argv: the absolute memlab binary, "kernel",
// "{connection_file}"; interrupt_mode "message"; language go) and logos.
//
// # Imports
//
// jupyter imports package kernel (the session) and display. It must not
// import kernel/notebook (the file format is not the kernel's business),
// kernel/worker (a worker session comes in through Config.NewSession),
// stdlib (Config.Symbols), nor the domain packages.
package jupyter
