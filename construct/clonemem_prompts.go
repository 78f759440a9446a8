package construct

// The CloneMem pipeline's prompts, versioned as the KnowMe ones are.

const cmSystem = "You help build a benchmark of an AI clone's long-term memory by simulating one person's life and digital traces. Everything you write is fiction about that person, consistent with what is given, and written in the language given as \"language\"."

const cmPersonaTask = `Create a person from the Big Five configuration ("big_five", each trait from 0 to 1).
Write: "name" (a full name), "age", "gender", "personality" (a description consistent with the
traits, two or three sentences), "family" (family history), "education", "occupation", "concerns"
(recurring worries, three to five), "interests" (three to six), and "narrative" (a short account
of their life before "start", one paragraph). The person lives an ordinary life; nothing is
dramatic unless the traits call for it.`

const cmPersonaReply = `
Reply with one JSON object:
{"name": "...", "age": <integer>, "gender": "...", "personality": "...", "family": "...", "education": "...", "occupation": "...", "concerns": ["..."], "interests": ["..."], "narrative": "..."}`

var cmPersonaPrompt = Prompt{Name: "clonemem.persona", Version: 1, System: cmSystem, User: cmPersonaTask + inputBlock + cmPersonaReply}
var cmPersonaRevise = Prompt{Name: "clonemem.persona.revise", Version: 1, System: cmSystem, User: reviseIntro + cmPersonaTask + inputBlock + cmPersonaReply}

const cmRelationsTask = `From the person's profile ("profile"), list the persistent social relations that will
recur across their timeline: family, partner (if any), close friends and colleagues, between
"min" and "max" people. For each: "name", "relation" (one of family, partner, friend, colleague,
other) and "description" (who they are to the person, one sentence).`

const cmRelationsReply = `
Reply with one JSON object:
{"relations": [{"name": "...", "relation": "friend", "description": "..."}]}`

var cmRelationsPrompt = Prompt{Name: "clonemem.relations", Version: 1, System: cmSystem, User: cmRelationsTask + inputBlock + cmRelationsReply}
var cmRelationsRevise = Prompt{Name: "clonemem.relations.revise", Version: 1, System: cmSystem, User: reviseIntro + cmRelationsTask + inputBlock + cmRelationsReply}

const cmSeedsTask = `Build the person's event-seed pool: from the predefined life-event concepts ("predefined"),
keep those that fit this person ("kept", copied exactly as written), and add persona-specific
seeds that the profile suggests ("added", short noun phrases), so that the pool has between "min"
and "max" seeds in all.`

const cmSeedsReply = `
Reply with one JSON object:
{"kept": ["..."], "added": ["..."]}`

var cmSeedsPrompt = Prompt{Name: "clonemem.seeds", Version: 1, System: cmSystem, User: cmSeedsTask + inputBlock + cmSeedsReply}
var cmSeedsRevise = Prompt{Name: "clonemem.seeds.revise", Version: 1, System: cmSystem, User: reviseIntro + cmSeedsTask + inputBlock + cmSeedsReply}

const cmArcTask = `Design one life arc of the person along the dimension "dimension" (experience: what they do
and go through; emotion: how they feel; opinion: what they think of something) over the timeline
from "start" to "end", drawing on their profile, relations and event seeds. The arc is a
sequence of exactly "anchors" anchor states, in order; each has a "state" (a short name), a
"description" and observable behavioural "cues" (two to four: what someone reading their messages
and notes would notice). "triggers" says what moves the person from one state to the next.`

const cmArcReply = `
Reply with one JSON object:
{"title": "...", "anchors": [{"state": "...", "description": "...", "cues": ["..."]}], "triggers": ["..."]}`

var cmArcPrompt = Prompt{Name: "clonemem.arc", Version: 1, System: cmSystem, User: cmArcTask + inputBlock + cmArcReply}
var cmArcRevise = Prompt{Name: "clonemem.arc.revise", Version: 1, System: cmSystem, User: reviseIntro + cmArcTask + inputBlock + cmArcReply}

const cmEventsTask = `Place exactly "count" major events of the person's life on the timeline from "start" to "end",
each grown from one of the event seeds and aligned with the life arcs ("arcs", by dimension): for
each event give "title", "date" (YYYY-MM-DD, within the timeline, in increasing order), "seed"
(the seed it grows from), "description" (two sentences) and "arc_states": for every dimension,
the index (from 0) of the anchor state its arc is in at that time. Arcs move forward through
their anchors over the timeline; never backwards.`

const cmEventsReply = `
Reply with one JSON object:
{"events": [{"title": "...", "date": "YYYY-MM-DD", "seed": "...", "description": "...", "arc_states": {"experience": 0, "emotion": 0, "opinion": 0}}]}`

var cmEventsPrompt = Prompt{Name: "clonemem.events", Version: 1, System: cmSystem, User: cmEventsTask + inputBlock + cmEventsReply}
var cmEventsRevise = Prompt{Name: "clonemem.events.revise", Version: 1, System: cmSystem, User: reviseIntro + cmEventsTask + inputBlock + cmEventsReply}

const cmPhaseTask = `Generate phase "k" of "of" of the person's life around the major event "event", between
"from" and "to", carrying the state snapshot "snapshot" forward (energy and stress from 0 to 10,
dominant emotion, current focus, and the status of every life arc). Write the "phase" (its
"title", "start" and "end" dates YYYY-MM-DD within "from" and "to", and a "summary" of what
happens in it, three or four sentences, consistent with the snapshot and the arcs), then the
"snapshot" at the phase's end: how energy, stress, emotion, focus and each arc's status changed.
Change the snapshot only as the phase explains.`

const cmPhaseReply = `
Reply with one JSON object:
{"phase": {"title": "...", "start": "YYYY-MM-DD", "end": "YYYY-MM-DD", "summary": "..."}, "snapshot": {"energy": <0-10>, "stress": <0-10>, "emotion": "...", "focus": "...", "arcs": {"experience": "...", "emotion": "...", "opinion": "..."}}}`

var cmPhasePrompt = Prompt{Name: "clonemem.phase", Version: 1, System: cmSystem, User: cmPhaseTask + inputBlock + cmPhaseReply}
var cmPhaseRevise = Prompt{Name: "clonemem.phase.revise", Version: 1, System: cmSystem, User: reviseIntro + cmPhaseTask + inputBlock + cmPhaseReply}

const cmDetailsTask = `Expand the phase ("phase", with the snapshot at its start) into exactly "count" detailed
day-to-day events of the person's life, in date order, each dated within the phase ("date",
YYYY-MM-DD). For each event write a "title", a "description" (three or four sentences: who, where,
what happened, what the person did), and, generated together with it, its "evidence": the facts,
emotional signals and expressed opinions the event establishes, each with its "kind" (fact,
emotion or opinion), a "statement" (one sentence, third person, naming the person) and the "arcs"
(dimensions: experience, emotion, opinion) it belongs to. Two to four evidence entries per event;
the people named are the person's relations where they fit.`

const cmDetailsReply = `
Reply with one JSON object:
{"events": [{"date": "YYYY-MM-DD", "title": "...", "description": "...", "evidence": [{"kind": "fact", "statement": "...", "arcs": ["experience"]}]}]}`

var cmDetailsPrompt = Prompt{Name: "clonemem.details", Version: 1, System: cmSystem, User: cmDetailsTask + inputBlock + cmDetailsReply}
var cmDetailsRevise = Prompt{Name: "clonemem.details.revise", Version: 1, System: cmSystem, User: reviseIntro + cmDetailsTask + inputBlock + cmDetailsReply}

const cmIntentTask = `The person will leave a digital trace of the event ("event") in the medium "medium" (its
format: "format"). Before it is written, decide its communicative "intent" (why they write it),
its "audience" (who reads it: themselves, a named relation, a group, the public, a search engine),
and the "key_information" it must carry: the indices (from 0) of the event's evidence entries the
trace conveys, at least one. The trace is written by the person, as they are at this moment
("snapshot").`

const cmIntentReply = `
Reply with one JSON object:
{"intent": "...", "audience": "...", "key_information": [0]}`

var cmIntentPrompt = Prompt{Name: "clonemem.intent", Version: 1, System: cmSystem, User: cmIntentTask + inputBlock + cmIntentReply}
var cmIntentRevise = Prompt{Name: "clonemem.intent.revise", Version: 1, System: cmSystem, User: reviseIntro + cmIntentTask + inputBlock + cmIntentReply}

const cmTraceTask = `Write the person's digital trace: medium "medium", written on "date", with the intent, audience
and key information planned ("plan"), conditioned on the event, its evidence and the person's
recent states ("snapshots"). Follow the medium's format exactly ("format"). The trace carries
every key information item, in the person's own voice (or the voices of a chat), implicitly where
people would be implicit; it never mentions a benchmark, and it invents nothing that contradicts
the evidence. Write it in "language".`

const cmTraceReply = `
Reply with one JSON object:
{"content": "<the trace, with its line breaks as \n>"}`

var cmTracePrompt = Prompt{Name: "clonemem.trace", Version: 1, System: cmSystem, User: cmTraceTask + inputBlock + cmTraceReply}
var cmTraceRevise = Prompt{Name: "clonemem.trace.revise", Version: 1, System: cmSystem, User: reviseIntro + cmTraceTask + inputBlock + cmTraceReply}

const cmPlanTask = `You plan a benchmark question about the person, asked by a close friend at "question_time".
The grounding is a trajectory segment: the evidence of one life arc ("dimension") up to that time
("segment", each with its id, date, kind and statement). The question type is "type":
"type_description". First decide whether the segment supports a meaningful question of that type
("supported"; "reason" says why or why not). If it does, plan it: select the evidence it rests
on ("evidence", ids from the segment), its temporal scope ("from", "to", dates YYYY-MM-DD), and an
"outline" of the reasoning the question targets.`

const cmPlanReply = `
Reply with one JSON object:
{"supported": true, "reason": "...", "evidence": ["<ids>"], "from": "YYYY-MM-DD", "to": "YYYY-MM-DD", "outline": "..."}`

var cmPlanPrompt = Prompt{Name: "clonemem.qa_plan", Version: 1, System: cmSystem, User: cmPlanTask + inputBlock + cmPlanReply}
var cmPlanRevise = Prompt{Name: "clonemem.qa_plan.revise", Version: 1, System: cmSystem, User: reviseIntro + cmPlanTask + inputBlock + cmPlanReply}

const cmWriteTask = `Write the planned question ("plan") of type "type" and its answer, from the selected evidence
("evidence") only. The question is asked at "question_time" by a close friend of the person
("person"), in a conversational tone with cues a friend would give (no ids, no dates the person
would not mention); it must need the evidence to answer. The answer is the person's answer, in
the first person, complete and faithful to the evidence. For an unanswerable question, the
evidence does not state the outcome: the answer says it cannot be determined. List the evidence
the answer rests on ("evidence": a "statement" and the "evidence_ids" it comes from).`

const cmWriteReply = `
Reply with one JSON object:
{"question": "...?", "answer": "...", "evidence": [{"statement": "...", "evidence_ids": ["..."]}]}`

var cmWritePrompt = Prompt{Name: "clonemem.qa_write", Version: 1, System: cmSystem, User: cmWriteTask + inputBlock + cmWriteReply}
var cmWriteRevise = Prompt{Name: "clonemem.qa_write.revise", Version: 1, System: cmSystem, User: reviseIntro + cmWriteTask + inputBlock + cmWriteReply}

const cmSufficiencyTask = `Quality control of a benchmark question: does the cited evidence (the statements and the
traces that carry them, "traces", all dated at or before "question_time") support the reference
answer ("answer") to the question? Answer "sufficient": true only when a careful reader of the
traces alone reaches that answer (for an unanswerable question: when the traces indeed do not
state it). "reason" says why.`

const cmSufficiencyReply = `
Reply with one JSON object:
{"sufficient": true, "reason": "..."}`

var cmSufficiencyPrompt = Prompt{Name: "clonemem.sufficiency", Version: 1, System: "You check benchmark questions against their evidence, strictly.", User: cmSufficiencyTask + inputBlock + cmSufficiencyReply}

const cmChoicesTask = `Turn the question into multiple choice. Given the question, its correct answer ("answer"),
its type and the evidence, write "count" distractors: plausible, of the same form and length as the
answer, each wrong at "question_time". When "later_true" lists statements that become true only
after the question's time, make at least one distractor from them and mark it "later_true": true
(it tests whether the clone keeps time). Do not let surface cues (length, wording copied from the
question, a single memorable fact) give the answer away: answering must need the temporal or
trajectory reasoning the question targets. Write "correct" as a short option text for the
correct answer.`

const cmChoicesReply = `
Reply with one JSON object:
{"correct": "...", "distractors": [{"text": "...", "later_true": false}]}`

var cmChoicesPrompt = Prompt{Name: "clonemem.choices", Version: 1, System: cmSystem, User: cmChoicesTask + inputBlock + cmChoicesReply}
var cmChoicesRevise = Prompt{Name: "clonemem.choices.revise", Version: 1, System: cmSystem, User: reviseIntro + cmChoicesTask + inputBlock + cmChoicesReply}

var cmChoicesCheck = Prompt{Name: "clonemem.choices.check", Version: 1,
	System: "You validate multiple-choice benchmark questions.",
	User: `The source is a question with its type and answer; the output is its options (the correct one
and the distractors). Decide whether the question can be answered WITHOUT the temporal or trajectory
reasoning it targets: by surface cues (an option longer or more specific than the others, words
copied from the question, an option that is the only plausible one) or by recalling a single
memorable fact. If it can, REJECT and say in "feedback" which cue gives it away and how the
distractors must change; if it cannot, PASS. List the cues in "unsupported". (For an unanswerable
question the correct option is "Cannot be determined based on available information"; a
distractor the traces state as true gives it away.)` + inputBlock + `
Reply with one JSON object:
{"decision": "PASS" or "REJECT", "source_facts": 1, "output_facts": 5, "missing": [], "unsupported": [<each cue that gives the answer away>], "feedback": "<how to change the distractors, or empty>"}`}
