"""Runs cells in the memlab kernel through jupyter_client and reports each
cell's displays with their display ids, as a front end sees them.

Run by TestJupyterProgressIsOneDisplayPerCell (progress_jupyter_test.go):
argv[1] is a JSON list of cell sources; the kernel is the kernelspec named
by $MEMLAB_KERNEL_NAME. Prints, per cell, its status, error and the list
of its display messages: [msg_type, display_id, text/plain].
"""
import json
import os
import sys

from jupyter_client.manager import KernelManager

TIMEOUT = 300


def run(kc, code):
    msg_id = kc.execute(code)
    out = {"status": None, "error": "", "displays": []}
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t, c = msg["msg_type"], msg["content"]
        if t in ("display_data", "update_display_data"):
            did = c.get("transient", {}).get("display_id", "")
            out["displays"].append([t, did, c.get("data", {}).get("text/plain", "")])
        elif t == "error":
            out["error"] = c["ename"] + ": " + c["evalue"]
        elif t == "status" and c["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            out["status"] = reply["content"]["status"]
            return out


def main():
    cells = json.load(open(sys.argv[1]))
    km = KernelManager(kernel_name=os.environ["MEMLAB_KERNEL_NAME"])
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        results = [run(kc, code) for code in cells]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    json.dump(results, sys.stdout)


main()
