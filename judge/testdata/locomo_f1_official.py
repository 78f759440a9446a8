"""Writes locomo_f1_official.tsv: (category, prediction, gold) triples and
the score LoCoMo's own evaluation code gives each, which judge.LoCoMoF1
must reproduce.

    git -C LOCOMO show code:task_eval/evaluation.py > /tmp/locomo_evaluation.py
    /usr/bin/python3 judge/testdata/locomo_f1_official.py /tmp/locomo_evaluation.py \
        > judge/testdata/locomo_f1_official.tsv

LOCOMO is a clone of github.com/snap-research/locomo (its evaluation code is
on the branch "code"; it is read from there, never copied here). Debian
bookworm: apt-get install python3-nltk python3-regex python3-numpy. The
script stubs bert_score (imported by the module, unused by the F1) and
scores every triple through the module's eval_question_answering, the
function the official runs call, so the category dispatch is the
official one too.

The triples are made up here (no benchmark text): gold answers in LoCoMo's
styles (names, places, dates, lists, open-domain answers with ";") and
predictions derived from them (exact, reworded, inflected, partial, padded,
punctuated, with articles, reordered lists, unrelated, empty, abstentions),
drawn with a fixed seed.
"""
import contextlib
import importlib.util
import json
import os
import random
import sys
import tempfile
import types

sys.modules["bert_score"] = types.SimpleNamespace(score=None)
spec = importlib.util.spec_from_file_location("locomo_evaluation", sys.argv[1])
ev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ev)

rng = random.Random(21)

NAMES = ["Ava", "Marcus", "Lena", "Theo", "Priya", "Jonas", "Ines", "Kofi"]
PLACES = ["Lisbon", "the Rocky Mountains", "a small bakery in Kyoto", "Lake Tahoe", "the city library", "Brazil"]
THINGS = ["a red bicycle", "pottery classes", "the violin", "an old camera", "hiking boots", "a golden retriever",
          "watercolor painting", "the marathon", "camping trips", "a vegan cookbook", "running shoes", "the guitar"]
MONTHS = ["January", "March", "May", "June", "August", "October", "December"]
VERBS = ["painting", "painted", "paints", "running", "ran", "runs", "adopted", "adopting", "volunteering",
         "volunteered", "organizing", "organized", "relationships", "relational", "happiness", "happily"]


def date():
    d, m, y = rng.randint(1, 28), rng.choice(MONTHS), rng.choice([2022, 2023])
    return rng.choice(["%d %s %d" % (d, m, y), "%s %d, %d" % (m, d, y), "%s %d" % (m, y), "%d" % y,
                       "The week before %d %s %d" % (d, m, y), "the Sunday before %d %s %d" % (d, m, y)])


def gold(cat):
    if cat == 1:
        items = rng.sample(THINGS + PLACES + NAMES, rng.randint(2, 4))
        return ", ".join(items)
    if cat == 2:
        return date()
    if cat == 3:
        return rng.choice(["Likely yes", "Probably not", "Yes", "No", "Likely no"]) + rng.choice(
            ["; she enjoys " + rng.choice(THINGS), "; because he moved to " + rng.choice(PLACES), "", "; " + rng.choice(VERBS)])
    if cat == 4:
        return rng.choice([rng.choice(THINGS), rng.choice(PLACES), rng.choice(NAMES), rng.choice(VERBS) + " " + rng.choice(THINGS),
                           "%s and %s" % (rng.choice(NAMES), rng.choice(NAMES)), str(rng.randint(2, 30))])
    return rng.choice(THINGS + PLACES)


def predict(g, cat):
    kind = rng.randrange(16)
    words = g.replace(";", " ;").split()
    if kind == 0:
        return g
    if kind == 1:
        return g.upper()
    if kind == 2:
        return "The answer is " + g + "."
    if kind == 3:
        return " ".join(words[: max(1, len(words) // 2)])
    if kind == 4:
        return " ".join(rng.choice(VERBS) if rng.random() < 0.3 else w for w in words)
    if kind == 5:
        parts = [p.strip() for p in g.split(",")]
        rng.shuffle(parts)
        return ", ".join(parts[: rng.randint(1, len(parts))])
    if kind == 6:
        return gold(rng.choice([1, 2, 4]))
    if kind == 7:
        return ""
    if kind == 8:
        return rng.choice(["Not mentioned in the conversation", "No information available", "not mentioned",
                           "There is no information available about that.", "It is never mentioned", "I don't know"])
    if kind == 9:
        return g + ", " + rng.choice(THINGS)
    if kind == 10:
        return " and ".join(p.strip() for p in g.split(","))
    if kind == 11:
        return "\"" + g + "\"!?"
    if kind == 12:
        return rng.choice(["a ", "an ", "the ", "A ", "The "]) + g + rng.choice(["", " and the rest", ", and more"])
    if kind == 13:
        return g.replace(" ", "  ").replace("e", "é", 1)
    if kind == 14:
        return date()
    return " ".join(w + rng.choice(["s", "ing", "ed", "", "ly", "ness"]) for w in words)


cases = []
for i in range(400):
    cat = [1, 2, 3, 4, 5][i % 5]
    g = gold(cat)
    cases.append({"question": "q%d" % i, "answer": g, "category": cat, "evidence": [], "prediction": predict(g, cat)})

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "qa.json")
    json.dump({"qa": cases}, open(path, "w"))
    with contextlib.redirect_stdout(sys.stderr):  # the module prints a count
        scores, _, _ = ev.eval_question_answering(path, "prediction")

print("# category\tprediction\tgold\tscore by LoCoMo's task_eval/evaluation.py (eval_question_answering); made by locomo_f1_official.py")
for c, s in zip(cases, scores):
    assert "\t" not in c["prediction"] + c["answer"] and "\n" not in c["prediction"] + c["answer"]
    print("%d\t%s\t%s\t%r" % (c["category"], c["prediction"], c["answer"], float(s)))
