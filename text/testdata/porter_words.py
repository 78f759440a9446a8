"""Writes porter_nltk.tsv: word<TAB>stem pairs by NLTK's PorterStemmer
(default mode, NLTK_EXTENSIONS), which text.PorterStem must reproduce.

    /usr/bin/python3 text/testdata/porter_words.py ../shared/datasets/locomo \
        /usr/share/dict/american-english > text/testdata/porter_nltk.tsv

(Debian bookworm: apt-get install python3-nltk python3-regex wamerican.)

The words: every distinct token of the LoCoMo conversations in the folder
(every string of the files: turns, captions, questions, answers,
observations, summaries, events), as LoCoMo's evaluation normalizes answers
before stemming (commas dropped, lowercased, ASCII punctuation dropped,
split on whitespace); every word of the word list that ends with a suffix
one of the algorithm's rules names, up to 150 per suffix, and every 25th
word of the rest, lowercased; and a few hand-picked cases (irregular forms,
capitals, short words, non-ASCII letters).
"""
import glob
import json
import os
import string
import sys

import nltk
from nltk.stem import PorterStemmer

SUFFIXES = """sses ies ss s eed ied ed ing at bl iz y ational tional enci anci izer bli abli alli entli
eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti fulli logi icate
ative alize iciti ical ful ness al ance ence er ic able ible ant ement ment ent sion tion ou ism
ate iti ous ive ize e ll""".split()

HAND = """sky skies Sky SKIES dying lying tying news innings inning outings outing cannings canning
howe proceed exceed succeed dies flies died spied tied ties lies happy enjoy spy fly try as is
a an I me we be at go ox oxen Caresses PONIES cats feed agreed plastered bled motoring sing
conflated troubled sized hopping tanned falling hissing fizzed failing filing happiness relational
conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli
analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness
formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful
goodness revival allowance inference airliner gyroscopic adjustable defensible irritant
replacement adjustment dependent adoption homologou communism activate angulariti homologous
effective bowdlerize probate rate cease controll roll generalli archaeology geology theology
fully hopefulli café naïve résumé über straße İstanbul ΣΟΦΟΣ ὈΔΥΣΣΕΥΣ yyyy yay eyes syzygy toy
trees ivy troubles private oaten orrery xyz zzz 2023 3rd 1960s don't rock'n'roll""".split()


def normalize(s):
    # LoCoMo's answer normalization, up to the removal of articles, which
    # drops words the stemmer never sees.
    s = s.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    return s.split()


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            if k not in ("img_url", "dia_id"):
                yield from strings(x)


def main():
    locomo, wordlist = sys.argv[1], sys.argv[2]
    words = set(HAND)
    for f in sorted(glob.glob(os.path.join(locomo, "*.json"))):
        for s in strings(json.load(open(f, encoding="utf-8"))):
            words.update(normalize(s))
    per = {}
    for i, w in enumerate(open(wordlist, encoding="utf-8").read().split()):
        w = w.lower()
        suf = next((x for x in sorted(SUFFIXES, key=len, reverse=True) if w.endswith(x) and len(w) > len(x)), None)
        if suf is not None and per.get(suf, 0) < 150:
            per[suf] = per.get(suf, 0) + 1
            words.add(w)
        elif i % 25 == 0:
            words.add(w)
    ps = PorterStemmer()
    assert ps.mode == PorterStemmer.NLTK_EXTENSIONS
    print("# word\tstem by NLTK %s PorterStemmer() (NLTK_EXTENSIONS); made by porter_words.py" % nltk.__version__)
    for w in sorted(words):
        if "\t" in w or "\n" in w:
            continue
        print("%s\t%s" % (w, ps.stem(w)))


main()
