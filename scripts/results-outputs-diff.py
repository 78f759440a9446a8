#!/usr/bin/env python3
# Compares the regenerated docs/results with the committed ones (HEAD) on what the notebooks
# printed: the notebooks' Go source cells, the report header line (time, duration) and
# 16-hex-digit run ids are left out, so a move of code that keeps every figure shows only the
# markdown prose of the notebooks that changed.
#
# Usage, from the repository root, after scripts/reproduce-docs.sh:
#   scripts/results-outputs-diff.py
# Exits 1 when some output differs.
import difflib
import re
import subprocess
import sys


def outputs(text):
    out, mode = [], None
    for line in text.splitlines():
        s = line.strip()
        if mode is None and s.startswith("```"):
            mode = "go" if s == "```go" else "out"
            continue
        if mode and s == "```":
            mode = None
            continue
        if mode == "go" or line.startswith("_Notebook"):
            continue
        out.append(re.sub(r"\b[0-9a-f]{16}\b", "<id>", line))
    return out


files = subprocess.check_output(["git", "diff", "--name-only", "docs/results"]).decode().split()
differ = 0
for f in files:
    if not f.endswith(".md"):
        print(f, "changed (not a report: compare it by hand)")
        differ += 1
        continue
    old = outputs(subprocess.check_output(["git", "show", "HEAD:" + f]).decode())
    with open(f, encoding="utf-8") as fh:
        new = outputs(fh.read())
    if old != new:
        lines = [l for l in difflib.unified_diff(old, new, lineterm="", n=0) if not l.startswith(("---", "+++", "@@"))]
        print(f, len(lines), "lines")
        print("\n".join(lines[:40]))
        differ += 1
print(f"{differ} of {len(files)} changed files differ beyond notebook source, report header and run ids")
sys.exit(1 if differ else 0)
