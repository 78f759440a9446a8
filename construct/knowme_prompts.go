package construct

// The KnowMe-Bench pipeline's prompts. Each is versioned: change a
// prompt's text and bump its Version (the hash changes anyway, so stored
// items made with the old text are never reused for the new one).

// inputBlock closes every user message: the step's input as JSON between
// markers (InputOf reads it back).
const inputBlock = "\n<<<INPUT\n{{json .}}\nINPUT>>>\n"

// checkIntro opens every checker prompt: the verify-and-revise auditor of
// KnowMe-Bench's appendix A.
const checkIntro = `You are a strict auditor of a data pipeline whose principle is "faithfulness first".
You are given the SOURCE a step worked from and the OUTPUT it produced. Extract the atomic facts
(entities, times, actions, places, things said, thoughts and feelings) of the source and of the
output. A fact of the source is MISSING when the output does not carry it; a fact of the output is
UNSUPPORTED when the source does not state it. Changing the grammatical person or splitting a
sentence is not a new fact; a new detail, a new time, a new place or a new motive is.
`

// checkReply ends every checker prompt.
const checkReply = `
Reply with one JSON object:
{"decision": "PASS" or "REJECT", "source_facts": <number of atomic facts in the source>, "output_facts": <number of atomic facts in the output>, "missing": [<each missing fact, a short sentence>], "unsupported": [<each unsupported fact, a short sentence>], "feedback": "<what the step must change, or empty>"}
Any unsupported fact, or any significant missing fact, means REJECT.`

// reviseIntro opens every revision prompt.
const reviseIntro = `You made the output "previous" from the input "source" below, and a check found problems,
listed in "feedback". Make the output again from the source, following the instructions below,
correcting every problem and keeping what was right.

Instructions:
`

const segmentTask = `Below is a passage of an autobiographical narrative, cut into numbered sentences (n); a
sentence with "paragraph_start" begins a paragraph. Find the natural boundaries of the passage:
the sentences where a new scene starts (a change of place, of time, or of the episode being told,
including the start and the end of a recollection). Segments hold one scene each; never cut inside
a dialogue. Do not quote, rewrite or summarise any text: answer with sentence numbers only.
Give the numbers of the sentences that start a segment, in increasing order, the first one being
the passage's first sentence ("first").`

const segmentReply = `
Reply with one JSON object: {"boundaries": [<sentence numbers, increasing>]}`

var knowMeSegmentPrompt = Prompt{Name: "knowme.segment", Version: 1,
	System: "You are a careful literary annotator. You never rewrite text; you only point at places in it.",
	User:   segmentTask + inputBlock + segmentReply}

var knowMeSegmentRevise = Prompt{Name: "knowme.segment.revise", Version: 1,
	System: knowMeSegmentPrompt.System,
	User:   reviseIntro + segmentTask + inputBlock + segmentReply}

const anuTask = `Decompose the narrative segment ("text") into Atomic Narrative Units, in the order they happen
in the text. A unit is one moment of experience and has:
- "t_anch": the temporal anchor of the unit copied VERBATIM from the text ("On the afternoon of 3
  October 2009", "The next morning", "the summer of 1986"), or "" when the unit has none of its own;
- "location": where the unit takes place (mandatory: when the text does not repeat it, the place of
  the scene it belongs to);
- five primitives, each a short faithful statement or "" when the unit has none:
  "action" (what is done), "dialogue" (what is said, with the speaker, quotes kept verbatim),
  "environment" (what is perceived of the surroundings), "background" (facts about the past or
  about people and things, as told), "mind" (thoughts, feelings, intentions).
Decompose abstract states into observable micro-behaviours where the text gives them. Keep every
fact of the text, invent nothing, and write the primitives close to the text's own words.`

const anuReply = `
Reply with one JSON object:
{"units": [{"t_anch": "...", "location": "...", "action": "...", "dialogue": "...", "environment": "...", "background": "...", "mind": "..."}]}`

var knowMeANUPrompt = Prompt{Name: "knowme.anu", Version: 1,
	System: "You turn autobiographical narrative into structured records without adding or dropping any fact.",
	User:   anuTask + inputBlock + anuReply}

var knowMeANURevise = Prompt{Name: "knowme.anu.revise", Version: 1,
	System: knowMeANUPrompt.System, User: reviseIntro + anuTask + inputBlock + anuReply}

var knowMeANUCheck = Prompt{Name: "knowme.anu.check", Version: 1,
	System: "You audit structured records against the text they were made from.",
	User: checkIntro + `The step decomposed the source text into Atomic Narrative Units (t_anch, location and five
primitives). Every fact of the text must be in some unit, t_anch must be copied from the text.
` + inputBlock + checkReply}

const realignTask = `The units of a narrative segment ("units", with the segment's "text") are in narrative order.
Realign them in time, as a stack machine over the narrator's timeline would. For each unit give:
- "op": MAINTAIN (the unit continues the current timeline), PUSH (a sustained recollection starts:
  the unit's event content belongs to an earlier time), POP (the recollection ends: back to the
  time it interrupted), or TRANSIENT (a fleeting association evokes a memory without leaving the
  present);
- "time": the time the unit's event content happens when the text states or implies it, as
  "YYYY-MM-DD HH:MM", "YYYY-MM-DD", "YYYY-MM" or "YYYY" (a PUSH must have one), else "";
- "shift_days": when the time is relative ("the next morning": 1), the days after the current
  time of the timeline, else 0; "clock": the time of day as "HH:MM" when the text gives or implies
  it ("at six in the evening": "18:00", "in the morning": "08:00"), else "";
- "trigger": for a PUSH or TRANSIENT, the words of the unit that happen in the present and evoke
  the memory (the mnemonic trigger), copied VERBATIM from one of the unit's fields, else "";
- "location": for a PUSH, where the recalled event happens ("" = the unit's own location).
Use only what the text says; do not change any unit.`

const realignReply = `
Reply with one JSON object:
{"units": [{"id": "<unit id>", "op": "MAINTAIN", "time": "", "shift_days": 0, "clock": "", "trigger": "", "location": ""}]}`

var knowMeRealignPrompt = Prompt{Name: "knowme.realign", Version: 1,
	System: "You are a narratologist who tracks flashbacks precisely.",
	User:   realignTask + inputBlock + realignReply}

var knowMeRealignRevise = Prompt{Name: "knowme.realign.revise", Version: 1,
	System: knowMeRealignPrompt.System, User: reviseIntro + realignTask + inputBlock + realignReply}

var knowMeRealignCheck = Prompt{Name: "knowme.realign.check", Version: 1,
	System: "You audit temporal annotations against the text.",
	User: checkIntro + `The step gave each unit a temporal operation (MAINTAIN, PUSH, POP, TRANSIENT), a time, a day shift,
a clock time and a trigger. Here the facts are these annotations: a time, shift or clock the text
does not state or imply is UNSUPPORTED; a recollection, or its end, that the text marks and the
output misses is MISSING; a trigger not copied from the unit is UNSUPPORTED.
` + inputBlock + checkReply}

const instantiateTask = `Rewrite each entry of the stream ("entries") as a first-person record of the narrator's
experience, component by component: each non-empty field ("action", "dialogue", "environment",
"background", "mind") becomes a first-person sentence or two ("Rain hits the glass" becomes "I see
rain hitting the glass"; what others say becomes "I heard X say: ..." with the words kept). Keep
every fact and every quoted word, add nothing, keep empty fields empty, keep "id" and "location"
exactly as they are.`

const instantiateReply = `
Reply with one JSON object:
{"entries": [{"id": "...", "location": "...", "action": "...", "dialogue": "...", "environment": "...", "background": "...", "mind": "..."}]}`

var knowMeInstantiatePrompt = Prompt{Name: "knowme.instantiate", Version: 1,
	System: "You write faithful first-person records of a person's experience.",
	User:   instantiateTask + inputBlock + instantiateReply}

var knowMeInstantiateRevise = Prompt{Name: "knowme.instantiate.revise", Version: 1,
	System: knowMeInstantiatePrompt.System, User: reviseIntro + instantiateTask + inputBlock + instantiateReply}

var knowMeInstantiateCheck = Prompt{Name: "knowme.instantiate.check", Version: 1,
	System: "You audit first-person records against the records they were made from.",
	User: checkIntro + `The step rewrote each entry in the first person. Every fact and quoted word must survive.
` + inputBlock + checkReply}

const questionTask = `You write one benchmark question about a person, from entries of their memory stream
("entries": id, timestamp, location and what they did, said, perceived, knew and thought). The
question belongs to the task "task" (level "level"), described in "task_description"; follow the
task's "instructions". The question is asked of the person's digital
companion, about "me" or "the narrator"; it must be answerable from the entries alone (except for
adversarial questions, whose answer is that the information is not there), and it must not quote
the answer. Give the ids of the entries that support the answer as "evidence" (only ids from the
entries).`

const questionReply = `
Reply with one JSON object:
{"question": "...", "answer": <a string; for Logical Event Ordering a list [{"rank": 1, "event": "...", "reasoning": "..."}]>, "evidence": [<entry ids>], "type": "<sub-type, or empty>", "strategy": "<adversarial strategy, or empty>", "reasoning": "<how the answer follows from the entries>"}`

var knowMeQuestionPrompt = Prompt{Name: "knowme.question", Version: 1,
	System: "You write evaluation questions for person-understanding benchmarks, grounded in evidence.",
	User:   questionTask + inputBlock + questionReply}

var knowMeQuestionRevise = Prompt{Name: "knowme.question.revise", Version: 1,
	System: knowMeQuestionPrompt.System, User: reviseIntro + questionTask + inputBlock + questionReply}

var knowMeQuestionCheck = Prompt{Name: "knowme.question.check", Version: 1,
	System: "You audit benchmark questions against the evidence they cite.",
	User: checkIntro + `The output is a question with its reference answer and cited evidence; the source is the
stream entries it was written from. Check the ANSWER (and the question's premises, except for an
adversarial question, whose premise is meant to be false or absent): every fact of the answer must
be stated by the cited entries. Here "missing" lists what the answer needs but the cited entries
do not give; the source's facts that the question does not ask about are not missing.
` + inputBlock + checkReply}
