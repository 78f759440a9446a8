// Package text holds the text primitives every layer of memlab shares: the
// word tokens of its lexical components (the BM25 retriever, the offline
// embedders and extractor, the extractive reader and the offline answer
// proxies: token F1, ROUGE-L, evidence coverage), and Clip and ClipLine,
// which shorten a text for an error message, a table cell or a notebook.
//
// PorterStem is NLTK's PorterStemmer in its default mode (NLTK_EXTENSIONS),
// checked against NLTK 3.8 on 15,126 words (testdata/porter_nltk.tsv, made
// by testdata/porter_words.py); PyLower lowercases as Python's str.lower
// does. LoCoMo's QA F1 (package judge) stems with them, as LoCoMo's
// evaluation script does with NLTK.
//
// It imports nothing of memlab, so that datasets, llm, retrieval, generate,
// judge and the reports can all use it without pointing an import the wrong
// way.
//
// # Tokens
//
// Tokens segments text into maximal runs of letters, digits and combining
// marks, lowercased. Fullwidth ASCII forms (Ａ, ５) are folded to ASCII first.
// An apostrophe (' or ’) between two letters or digits of a word stays inside
// the token and is normalised to ASCII ' ("Don’t" → "don't"); elsewhere an
// apostrophe is punctuation ("'quoted'" → "quoted").
//
// Default-ignorable code points (Unicode's Default_Ignorable_Code_Point,
// IsDefaultIgnorable: variation selectors such as the U+FE0F of "❤️", zero
// width joiners and non-joiners, the soft hyphen, bidi controls, tag
// characters, Hangul fillers, the byte-order mark) are treated as absent:
// they never form or end a token ("co\u00ADoperate" → cooperate), except
// U+200B ZERO WIDTH SPACE, which separates words as a space does.
//
// Runs of CJK characters (Han ideographs, Hiragana, Katakana with its
// prolonged-sound mark, Hangul) have no spaces between words, so each run
// becomes overlapping character bigrams: "我喜欢北京" → 我喜 喜欢 欢北 北京.
// A run of one CJK character becomes that character. A CJK run and an
// adjacent Latin run are separate tokens: "我在Google工作" → 我在 google 工作.
//
// ContentTokens is Tokens minus a small English stopword list (Stopwords)
// and with a trailing possessive 's removed ("anna's" → "anna"); readers and
// proxies use it to compare meaning-bearing words. It has no Chinese stopword
// list: the bigrams are kept as they are.
package text
