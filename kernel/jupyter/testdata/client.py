"""Drives the memlab kernel with jupyter_client's BlockingKernelClient.

Run by TestJupyterClient (kernel_test.go) with JUPYTER_PATH pointing at a
temporary kernelspec; prints "ok <check>" per check and exits 1 on the
first failure.
"""
import os
import sys
import time

from jupyter_client.manager import KernelManager

TIMEOUT = 30


def check(cond, what, *info):
    if not cond:
        print("FAIL", what, *info, flush=True)
        raise SystemExit(1)


IOPUB = {}  # parent msg_id -> iopub messages read but not yet collected
SHELL = {}  # parent msg_id -> shell reply read but not yet asked for


def is_idle(msg):
    return msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"


def collect(kc, msg_id, timeout=TIMEOUT):
    """iopub messages of one request, up to and including its idle."""
    msgs = IOPUB.setdefault(msg_id, [])
    deadline = time.time() + timeout
    while not (msgs and is_idle(msgs[-1])):
        msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
        IOPUB.setdefault(msg["parent_header"].get("msg_id"), []).append(msg)
    return IOPUB.pop(msg_id)


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    deadline = time.time() + timeout
    while msg_id not in SHELL:
        msg = kc.get_shell_msg(timeout=max(0.1, deadline - time.time()))
        SHELL[msg["parent_header"].get("msg_id")] = msg
    return SHELL.pop(msg_id)


def run(kc, code, **kw):
    msg_id = kc.execute(code, **kw)
    reply = shell_reply(kc, msg_id)
    msgs = collect(kc, msg_id)
    check(msgs[0]["msg_type"] == "status" and msgs[0]["content"]["execution_state"] == "busy",
          "busy first", [m["msg_type"] for m in msgs])
    return reply, msgs


def of(msgs, t):
    return [m for m in msgs if m["msg_type"] == t]


def main():
    km = KernelManager(kernel_name=os.environ.get("MEMLAB_KERNEL_NAME", "memlab"))
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT)
        print("ok wait_for_ready", flush=True)
        tests(km, kc)
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)


def tests(km, kc):
    # kernel_info, with busy/idle on iopub
    msg_id = kc.kernel_info()
    reply = shell_reply(kc, msg_id)
    c = reply["content"]
    check(c["status"] == "ok" and c["protocol_version"] == "5.3", "kernel_info", c)
    check(c["language_info"]["name"] == "go" and c["language_info"]["file_extension"] == ".go", "language_info", c)
    states = [m["content"]["execution_state"] for m in collect(kc, msg_id) if m["msg_type"] == "status"]
    check(states == ["busy", "idle"], "kernel_info status", states)
    check(kc.hb_channel.is_beating(), "heartbeat")
    print("ok kernel_info", flush=True)

    # execute: stream, display_data (image/png), execute_result
    code = "\n".join([
        'import (',
        '\t"bytes"',
        '\t"fmt"',
        '\t"image"',
        '\t"image/png"',
        '',
        '\t"github.com/memlab/memlab/display"',
        ')',
        'fmt.Println("hello")',
        'var buf bytes.Buffer',
        'png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4)))',
        'if err := display.PNG("t.png", buf.Bytes()); err != nil {',
        '\tpanic(err)',
        '}',
        'display.Markdown("**bold**")',
        'x := 40',
        'x + 2',
    ])
    reply, msgs = run(kc, code)
    c = reply["content"]
    check(c["status"] == "ok" and c["execution_count"] == 1, "execute reply", c)
    types = [m["msg_type"] for m in msgs]
    check(types == ["status", "execute_input", "stream", "display_data", "display_data", "execute_result", "status"],
          "execute order", types)
    check(of(msgs, "execute_input")[0]["content"]["execution_count"] == 1, "execute_input count")
    check(of(msgs, "stream")[0]["content"] == {"name": "stdout", "text": "hello\n"}, "stream", of(msgs, "stream"))
    d = of(msgs, "display_data")
    check(d[0]["content"]["data"]["image/png"].startswith("iVBOR"), "display png", d[0]["content"])
    check(d[0]["content"]["metadata"] == {}, "display metadata {}", d[0]["content"])
    check(d[1]["content"]["data"]["text/markdown"] == "**bold**", "display markdown", d[1]["content"])
    r = of(msgs, "execute_result")[0]["content"]
    check(r["data"]["text/plain"] == "42" and r["execution_count"] == 1, "execute_result", r)
    print("ok execute", flush=True)

    # stream output arrives in chunks while the cell runs
    reply, msgs = run(kc, 'import "time"\nfor i := 0; i < 3; i++ {\n\tfmt.Println(i)\n\ttime.Sleep(300 * time.Millisecond)\n}')
    streams = of(msgs, "stream")
    check(len(streams) >= 2 and "".join(s["content"]["text"] for s in streams) == "0\n1\n2\n", "chunked stream", streams)
    print("ok stream chunks", flush=True)

    # error with traceback naming the cell line
    reply, msgs = run(kc, 'y := 1\n_ = y\nundefinedThing()')
    c = reply["content"]
    check(c["status"] == "error" and c["execution_count"] == 3, "error reply", c)
    e = of(msgs, "error")[0]["content"]
    check(e["ename"] == "CompileError" and "undefinedThing" in e["evalue"], "error content", e)
    check("cell 3, line 3" in e["traceback"][0], "traceback names the line", e["traceback"])
    reply, msgs = run(kc, 'func boom() {\n\tpanic("boom")\n}\nboom()')
    e = of(msgs, "error")[0]["content"]
    check(e["ename"] == "Panic" and "cell 4, line 4" in "\n".join(e["traceback"]), "panic traceback", e)
    print("ok error", flush=True)

    # silent and store_history=false do not count
    reply, msgs = run(kc, 'x = 1', silent=True)
    check(reply["content"]["execution_count"] == 4, "silent count", reply["content"])
    check([m["msg_type"] for m in msgs] == ["status", "status"], "silent publishes only status", msgs)
    reply, msgs = run(kc, 'x', store_history=False)
    check(reply["content"]["execution_count"] == 4, "store_history=false count", reply["content"])
    reply, msgs = run(kc, 'x')
    check(reply["content"]["execution_count"] == 5, "count", reply["content"])
    print("ok execution_count", flush=True)

    # is_complete
    for code, want in [("func f() {", "incomplete"), ("x := 1", "complete"), ("}", "invalid"), ("a := []int{\n1,\n", "incomplete")]:
        msg_id = kc.is_complete(code)
        c = shell_reply(kc, msg_id)["content"]
        check(c["status"] == want, "is_complete", code, c)
        if want == "incomplete":
            check("indent" in c, "indent", c)
    print("ok is_complete", flush=True)

    # complete: memlab identifiers, cursor positions in code points
    code = 's := "é"\nreports.Comp'
    msg_id = kc.complete(code, len(code))
    c = shell_reply(kc, msg_id)["content"]
    check("Compare" in c["matches"] and c["cursor_start"] == len(code) - 4 and c["cursor_end"] == len(code),
          "complete reports.Comp", c)
    msg_id = kc.complete("anal", 4)
    c = shell_reply(kc, msg_id)["content"]
    check("analysis" in c["matches"] and c["cursor_start"] == 0, "complete package", c)
    msg_id = kc.complete("bu", 2)
    c = shell_reply(kc, msg_id)["content"]
    check("buf" in c["matches"], "complete variable", c)
    print("ok complete", flush=True)

    # inspect: a doc comment
    code = "reports.Compare("
    msg_id = kc.inspect(code, len(code))
    c = shell_reply(kc, msg_id)["content"]
    check(c["found"] and "func Compare" in c["data"]["text/plain"], "inspect reports.Compare", c)
    msg_id = kc.inspect("display.Markdown", 10)
    c = shell_reply(kc, msg_id)["content"]
    check(c["found"] and "Markdown shows" in c["data"]["text/plain"], "inspect display.Markdown", c)
    print("ok inspect", flush=True)

    # history, comm_info
    msg_id = kc.history(hist_access_type="tail", n=2)
    c = shell_reply(kc, msg_id)["content"]
    check(c["status"] == "ok" and isinstance(c["history"], list), "history", c)
    msg_id = kc.comm_info()
    c = shell_reply(kc, msg_id)["content"]
    check(c["status"] == "ok" and c["comms"] == {}, "comm_info", c)
    print("ok history comm_info", flush=True)

    # rich display: HTML, SVG, a table, an updatable display
    code = "\n".join([
        'import "github.com/memlab/memlab/analysis"',
        'display.HTML("<b>hi</b>", "hi")',
        'if err := display.SVG("t.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>`)); err != nil {',
        '\tpanic(err)',
        '}',
        'display.Table(analysis.Table{Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}})',
        'd := display.NewLive()',
        'd.Markdown("step 1")',
        'd.Markdown("step 2")',
    ])
    reply, msgs = run(kc, code)
    check(reply["content"]["status"] == "ok", "rich reply", reply["content"])
    d = of(msgs, "display_data")
    check(len(d) == 4, "rich displays", d)
    check(d[0]["content"]["data"]["text/html"] == "<b>hi</b>", "html", d[0])
    check(d[1]["content"]["data"]["image/svg+xml"].startswith("<svg"), "svg", d[1])
    check("| a | b |" in d[2]["content"]["data"]["text/markdown"] and "<table" in d[2]["content"]["data"]["text/html"], "table", d[2])
    did = d[3]["content"]["transient"]["display_id"]
    u = of(msgs, "update_display_data")
    check(len(u) == 1 and u[0]["content"]["transient"]["display_id"] == did
          and u[0]["content"]["data"]["text/markdown"] == "step 2", "update_display_data", u)
    print("ok rich display", flush=True)

    # interrupt stops a long cell; the kernel stays usable
    msg_id = kc.execute('for {\n\ttime.Sleep(10 * time.Millisecond)\n}')
    time.sleep(1.0)
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=10)
    c = reply["content"]
    check(c["status"] == "error" and c["ename"] == "Interrupted", "interrupted", c)
    collect(kc, msg_id)
    reply, msgs = run(kc, '1 + 1')
    check(of(msgs, "execute_result")[0]["content"]["data"]["text/plain"] == "2", "usable after interrupt", msgs)
    print("ok interrupt", flush=True)

    # stop_on_error aborts queued requests
    ids = [kc.execute('panic("first")'), kc.execute('fmt.Println("never")'), kc.execute('fmt.Println("never")')]
    statuses = [shell_reply(kc, i)["content"]["status"] for i in ids]
    check(statuses == ["error", "aborted", "aborted"], "stop_on_error", statuses)
    for i in ids:
        msgs = collect(kc, i)
        check(not of(msgs, "stream"), "aborted cells do not run", msgs)
    print("ok stop_on_error", flush=True)

    # shutdown on control: reply, then the process exits 0
    msg_id = kc.shutdown()
    deadline = time.time() + 10
    while True:
        msg = kc.get_control_msg(timeout=max(0.1, deadline - time.time()))
        if msg["parent_header"].get("msg_id") == msg_id:
            break
    check(msg["msg_type"] == "shutdown_reply" and msg["content"]["status"] == "ok", "shutdown_reply", msg)
    deadline = time.time() + 10
    while km.is_alive() and time.time() < deadline:
        time.sleep(0.1)
    check(not km.is_alive(), "kernel exited after shutdown")
    code = km.provisioner.process.returncode if km.provisioner and km.provisioner.process else None
    check(code == 0, "exit status 0", code)
    print("ok shutdown", flush=True)


if __name__ == "__main__":
    main()
    print("PASS", flush=True)
