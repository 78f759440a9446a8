"""Runs cells in the memlab kernel through jupyter_client, as a front end does.

Run by TestSessionInSixCells (session_test.go): argv[1] is a JSON list of
cell sources; the kernel is the kernelspec named by $MEMLAB_KERNEL_NAME.
Prints one JSON object: per cell, its status, its stdout and stderr, the
text/plain and text/markdown of its displays, the PNG displays' count, and
every display message as [msg_type, display_id, text/plain] (display_data
and update_display_data, as a front end updates a display in place).
"""
import json
import os
import sys

from jupyter_client.manager import KernelManager

TIMEOUT = 300


def run(kc, code):
    msg_id = kc.execute(code)
    out = {"status": None, "stdout": "", "stderr": "", "displays": [], "png": 0, "error": "", "display_msgs": []}
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t, c = msg["msg_type"], msg["content"]
        if t == "stream":
            out[c["name"]] += c["text"]
        elif t in ("display_data", "execute_result", "update_display_data"):
            data = c.get("data", {})
            if "image/png" in data:
                out["png"] += 1
            if t in ("display_data", "update_display_data"):
                did = c.get("transient", {}).get("display_id", "")
                out["display_msgs"].append([t, did, data.get("text/plain", "")])
            if t == "display_data" or t == "execute_result":
                out["displays"].append(data.get("text/markdown") or data.get("text/plain", ""))
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
