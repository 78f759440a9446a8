"""Checks memlab's errors as Jupyter front ends see them.

Run by TestJupyterErrors (jupyter_errors_test.go) on the kernelspec named by
$MEMLAB_KERNEL_NAME: through jupyter_client, the execute_reply and the
iopub error of failing cells (ename, evalue, a traceback naming In [n]),
execution counts after a silent cell and after a cell that crashes the
worker process, and kernel_info's language_info.version; through nbclient,
the CellExecutionError a failing notebook raises and, with allow_errors,
the error outputs and counts of a notebook with a crash in it. Prints
"ok <check>" per check, then PASS; exits 1 at the first failure.
"""
import os
import sys

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

TIMEOUT = 120
NAME = os.environ["MEMLAB_KERNEL_NAME"]
CRASH = 'import "time"\ngo func() { panic("boom") }()\ntime.Sleep(5 * time.Second)'


def check(cond, what, *info):
    if not cond:
        print("FAIL", what, *info, flush=True)
        raise SystemExit(1)
    print("ok", what, flush=True)


def run(kc, code, silent=False):
    """The execute_reply's content and the iopub error's (None if none)."""
    msg_id = kc.execute(code, silent=silent)
    error = None
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            error = msg["content"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"], error


def client_checks():
    km = KernelManager(kernel_name=NAME)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT)
        info = kc.kernel_info(reply=True, timeout=TIMEOUT)["content"]
        check(info["language_info"]["version"] == os.environ["MEMLAB_GO_LEVEL"],
              "language_info.version is the interpreter's Go", info["language_info"])

        r, _ = run(kc, "x := 1")
        check(r["status"] == "ok" and r["execution_count"] == 1, "In [1]", r)
        r, _ = run(kc, "hidden := 0", silent=True)
        check(r["status"] == "ok", "a silent cell", r)
        r, e = run(kc, "func f() int {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n\treturn 1\n}")
        check(r["status"] == "ok" and r["execution_count"] == 2, "In [2]", r)

        r, e = run(kc, "undefinedThing + 1")
        check(r["status"] == "error" and r["execution_count"] == 3 and r["ename"] == "CompileError"
              and r["evalue"] == "undefined: undefinedThing", "a compile error's reply", r)
        check(e is not None and (e["ename"], e["evalue"], e["traceback"]) == (r["ename"], r["evalue"], r["traceback"]),
              "the iopub error says what the reply says", e)
        check(r["traceback"] == ["cell 3, line 1: undefined: undefinedThing"], "its traceback names In [3]", r["traceback"])

        r, e = run(kc, "f()")
        check(r["status"] == "error" and r["ename"] == "Panic" and r["execution_count"] == 4
              and r["evalue"] == "panic: assignment to entry in nil map", "a panic's reply", r)
        tb = "\n".join(r["traceback"])
        check(tb.startswith("cell 4, line 1: ") and "in f (cell 2, " in tb and "yaegi" not in tb,
              "its traceback names the user's cells", r["traceback"])

        r, e = run(kc, CRASH)
        check(r["status"] == "error" and r["ename"] == "Crash" and r["execution_count"] == 5
              and "boom" in r["evalue"] and "restarted" in r["evalue"], "a crash's reply", r)
        tb = "\n".join(r["traceback"])
        check(tb.startswith("cell 5: ") and "yaegi" not in tb and "goroutine" not in tb,
              "its traceback leaves the interpreter's frames out", r["traceback"])

        r, _ = run(kc, "y := 2\ny")
        check(r["status"] == "ok" and r["execution_count"] == 6, "In [6] after the crash", r)
        r, _ = run(kc, "var e error\ne.Error()")
        check(r["status"] == "error" and r["execution_count"] == 7 and r["traceback"][0].startswith("cell 7, line 2: ")
              and "reflect" not in r["evalue"] and "nil pointer dereference" in r["evalue"],
              "an error after the crash names In [7]", r)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def notebook(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources],
                                    metadata={"kernelspec": {"name": NAME, "display_name": NAME, "language": "go"}})


def nbclient_checks():
    nb = notebook("x := 1\nx", "undefinedThing", "x + 1")
    try:
        NotebookClient(nb, kernel_name=NAME, timeout=TIMEOUT).execute()
        check(False, "nbclient raises CellExecutionError")
    except CellExecutionError as err:
        check(err.ename == "CompileError" and err.evalue == "undefined: undefinedThing",
              "nbclient raises CellExecutionError with ename and evalue", err.ename, err.evalue)
        check("cell 2, line 1: undefined: undefinedThing" in str(err), "its message shows the traceback", str(err))
    check(nb.cells[2].get("execution_count") is None, "the cell after the error did not run", nb.cells[2])

    nb = notebook("x := 1\nx", CRASH, "y := 5\ny", "undefinedThing")
    NotebookClient(nb, kernel_name=NAME, timeout=TIMEOUT, allow_errors=True).execute()
    counts = [c.execution_count for c in nb.cells]
    check(counts == [1, 2, 3, 4], "execution counts go on after a crash", counts)
    crash = [o for o in nb.cells[1].outputs if o.output_type == "error"]
    check(len(crash) == 1 and crash[0].ename == "Crash", "the crash is an error output", nb.cells[1].outputs)
    result = [o for o in nb.cells[2].outputs if o.output_type == "execute_result"]
    check(len(result) == 1 and result[0].execution_count == 3 and result[0].data["text/plain"] == "5",
          "Out [3] after the crash", nb.cells[2].outputs)
    err = [o for o in nb.cells[3].outputs if o.output_type == "error"]
    check(len(err) == 1 and err[0].ename == "CompileError" and err[0].traceback == ["cell 4, line 1: undefined: undefinedThing"],
          "the error output of In [4] names cell 4", nb.cells[3].outputs)
    nbformat.validate(nb)
    print("ok the executed notebook validates", flush=True)


client_checks()
nbclient_checks()
print("PASS", flush=True)
