"""Scores memlab's LoCoMo export with LoCoMo's own evaluation code and
compares every question with memlab's scores.

    /usr/bin/python3 formats/testdata/locomo_official_check.py EVALUATION_PY DIR

EVALUATION_PY is task_eval/evaluation.py of github.com/snap-research/locomo
(branch "code"; read from a clone, never copied here:
`git -C LOCOMO show code:task_eval/evaluation.py > /tmp/locomo_evaluation.py`).
Debian bookworm: apt-get install python3-nltk python3-regex python3-numpy.
The module imports bert_score, which its F1 does not use: it is stubbed.

DIR holds the files formats.WriteLoCoMoDir wrote (CORPUS.json, the
prediction key "memlab") and memlab_scores.tsv: question id, memlab's LoCoMo
F1 and Recall-Flat, tab-separated, one line per question written.
TestWriteLoCoMoScoresAsTheRecords writes both and runs this script when
MEMLAB_LOCOMO_EVAL names EVALUATION_PY. For each file, the script runs the
module's eval_question_answering (the function the official runs call) and
prints every question whose F1 or evidence recall differs from memlab's, then
one line: "questions N F1 differences A recall differences B". It exits 1 when
A or B is not 0.
"""
import glob
import importlib.util
import json
import math
import os
import sys
import types

sys.modules["bert_score"] = types.SimpleNamespace(score=None)
spec = importlib.util.spec_from_file_location("locomo_evaluation", sys.argv[1])
ev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ev)

out = sys.argv[2]
memlab = {}
with open(os.path.join(out, "memlab_scores.tsv")) as f:
    for line in f:
        qid, f1, recall = line.rstrip("\n").split("\t")
        memlab[qid] = (float(f1), float(recall))

n = bad_f1 = bad_recall = 0
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    with open(path) as f:
        qa = json.load(f)["qa"]
    f1s, _, recalls = ev.eval_question_answering(path, "memlab_prediction")
    for item, f1, recall in zip(qa, f1s, recalls):
        qid = item["memlab_question_id"]
        want_f1, want_recall = memlab[qid]
        n += 1
        if not math.isnan(want_f1) and abs(f1 - want_f1) > 1e-9:
            bad_f1 += 1
            print("F1 differs", qid, f1, want_f1)
        if item["evidence"] and abs(recall - want_recall) > 1e-9:
            bad_recall += 1
            print("recall differs", qid, recall, want_recall)
print("questions", n, "F1 differences", bad_f1, "recall differences", bad_recall)
sys.exit(1 if bad_f1 or bad_recall else 0)
