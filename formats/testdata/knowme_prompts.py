"""Independent rendering of KnowMe-Bench judge prompts, for tests.

Follows the rules of the benchmark's evaluate/run_eval.py (written from
those rules, not copied): the rubric file is read as UTF-8 text with
universal newlines; it is split at lines matching the regular expression
^# type\\s+(.+)$ (multiline); each section's header names its tasks,
separated by U+3001 or ",", each stripped, and the section's text after the
header, stripped, is their template (a task named again takes the later
section). An item's template is the one of its task_type, looked up
exactly. The placeholders are replaced one after the other, each in the
result of the previous replacement: {{question}}, then {{reference_answer}},
then {{model_answer}}, each by str() of the item's value ('' when absent).
The system message is fixed.

Usage: knowme_prompts.py RUBRIC_FILE ITEMS_FILE
Prints {"system": ..., "prompts": [prompt or null per item]} as ASCII JSON.
"""
import json
import re
import sys

SYSTEM = "You are an impartial judge evaluating AI model outputs based on strict criteria."


def templates(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^# type\s+(.+)$", text, flags=re.MULTILINE)
    out = {}
    for header, body in zip(parts[1::2], parts[2::2]):
        for name in re.split(r"[、,]", header.strip()):
            out[name.strip()] = body.strip()
    return out


def render(template, item):
    prompt = template
    for key in ("question", "reference_answer", "model_answer"):
        prompt = prompt.replace("{{" + key + "}}", str(item.get(key, "")))
    return prompt


def main():
    tm = templates(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        items = json.load(f)
    prompts = []
    for item in items:
        t = tm.get(item.get("task_type"))
        prompts.append(None if t is None else render(t, item))
    json.dump({"system": SYSTEM, "prompts": prompts}, sys.stdout, ensure_ascii=True)


main()
