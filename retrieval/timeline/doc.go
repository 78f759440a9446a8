// Package timeline is memlab's own memory system: an evidence-preserving,
// time-aware memory that keeps every raw trace as a unit, organises the
// traces into per-topic timelines with recorded state transitions,
// retrieves with the question's time shape in mind, and says when nothing
// admitted supports a committed answer.
//
// # Units and topics
//
// Every trace is kept whole: hits are Kind chunk, UnitID = the trace id,
// Text = the raw trace, so a reader sees the real evidence. At ingest each
// trace gets a TF-IDF vector of its content words (text.ContentTokens;
// Chinese as character bigrams; idf from the traces ingested so far) and
// joins the topic whose centroid is most similar (cosine >= TopicThreshold;
// candidates are the topics of its 8 heaviest words seen before, skipping
// words in over 10% of the traces), else starts a topic. A topic is the
// time-ordered list of its traces (Topics). Ingestion is incremental and
// never looks ahead: topics only change as traces arrive.
//
// # Transitions
//
// Offline, a transition is recorded at a topic's new trace when the stance
// of its opinion/sentiment cue words (English words and Chinese
// substrings) flips against the topic's latest non-neutral trace, else when
// a commitment cue (decided, signed, quit, 决定, 辞职 ...) appears without a
// tentative cue after a trace without one, else when its cosine with the
// previous trace of the topic is below ShiftThreshold. With an extractor
// model (New's chat) each trace costs one call that states the topic's
// state, whether it changed and whether something was actually done or
// decided: {"state","changed","committed"}; a change is a TransitionModel.
// A failed or unparseable answer is counted (Stats) and the offline rule is
// applied to that trace.
//
// # Retrieval
//
// Temporal admission comes first: a question asked at t ranks only the
// traces dated at or before t, with BM25 statistics over those traces
// alone. The question's terms are its tokens; function words (stopwords,
// question words such as how, now, usually, Chinese bigrams holding a
// question character such as 怎么 or 你) count FunctionWeight of their idf,
// so that they cannot carry a trace. The score of a trace is its BM25
// score normalised by the best, plus TopicBoost × its topic's strength for
// the question (the mean of the topic's three best normalised scores),
// plus NeighborWeight × the best score of its episode neighbours (the
// traces just before and after it, when at most EpisodeGap apart: a
// stream's scene), plus WindowBoost when the trace is dated inside a
// window the question names.
//
// # Time references
//
// TimeRefs reads a question's time expressions, offline, in English and
// Chinese, and resolves them against its asked-at time into windows:
// absolute dates ("August 15, 1969", "in 1998", 2023年7月), dates without
// a year (the most recent past occurrence: "in March", 7月16日), relative
// spans ("last summer", "this autumn", "last year", "three months ago",
// 去年, 上个月, 去年夏天), and two markers without dates: RefFirst ("at
// first", "your first one", "from start to finish", 当初, 刚开始) and RefNow
// ("now", "these days", "still", 现在, 最近). Seasons are northern and
// meteorological. A relative reference is skipped when the asked-at time
// is unknown. The words of a time expression stay in the lexical query
// (a later trace that says "last summer" is talking about it). Only the
// dated windows act on the ranking; RefFirst and RefNow are reported for
// readers (the timeline below already holds the earliest and the latest
// relevant traces; preferring them for point questions lowered the sample).
//
// Shape reads the question's time shape from a CloneMem task (trajectory,
// comparison, pattern) or from its wording ("how has ... changed",
// "compared with", "usually", "still", 变化, 相比, 一般 ...). Point questions
// get the k best by score. Time-shaped questions get a timeline: the best
// trace, the best trace dated in each window the question names, the
// earliest and latest relevant traces (normalised score >= RelevantFloor,
// in the topics at least half as strong as the best one, or among the k
// best), the best relevant trace of each of Periods (4) equal periods
// from the earliest relevant trace to the question's time (one trace per
// stretch of the story rather than the most similar passages, which
// crowd into its busiest stretch), the traces where a non-shift
// transition happened, then the rest
// greedily by score × (1 + ln(1 + distance in traces to the picks)), then
// the ranking, so the k slots span the topic's history instead of holding
// near-duplicates.
//
// # State
//
// At ingest every sentence of a trace gets a status (offline rules, the
// extractor ExtractorRules): StatusExplored when it only plans, searches,
// enquires, wonders or asks (maybe, plan, thinking, enquiry, yet, a
// question mark, a search history; 打算, 考虑, 犹豫, 搜, 还在 ...),
// StatusDeclined when it negates (didn't, hadn't, never, no; 没, 不会),
// StatusDecided when it has a commitment cue (decided, signed, booked,
// quit; 决定, 签了, 辞职 ...), else StatusStated. A trace's status is
// decided when one sentence is, else explored, else declined, else
// stated. Each topic keeps a dated sequence of state changes
// (StateChange): a change is recorded at a trace whose status or opinion
// stance differs from the topic's latest state, and the traces that keep
// it are added to it as support. With the extractor model (ExtractorModel,
// New's chat) the model's stated state is the change's text, its
// committed flag makes the trace decided, and its changed flag starts a
// new change. States, StateAt and Changes answer "what was the state at
// t" and "how did it change between t1 and t2" from the admitted traces
// only.
//
// # Knowing what is not yet known
//
// State(ctx, q, k) reads the question's subject: its AbstainAnchors most
// specific words (highest idf over the traces admitted at q.AskedAt;
// Porter stems, one a prefix of the other counting as the same word when
// both have at least 5 bytes; words of time and time shape such as
// autumn, past, changed, usually, 去年, 一般 are skipped unless
// AbstainWhenWords, as they say when or how the question asks, not what
// about), and every admitted sentence mentioning it with its status. A
// sentence's negation declines the subject only within NegationScope (5)
// tokens of a subject word (NegEx's window); further away the mention is
// stated, or decided with a commitment cue. The abstention score is
//
//	score = (open + missing + p) / (open + missing + closed + 2p)
//
// where open counts the explored and declined mentions, closed the stated
// and decided ones, missing is AbstainMissing when one of the question's
// content words is in no admitted trace, and p is AbstainPrior. It is
// high when the subject was only explored, declined, or never recorded by
// the question's time ("is this decided yet"), and the question is
// Undetermined when score >= AbstainThreshold. Nothing is fitted at run
// time: the prior is set a priori, the threshold's default was fitted
// once on the odd-numbered questions of the bundled sample
// (TestAbstainThresholdDefault; docs/retrieval.md reports the other half).
// The report holds the subject's dated mentions, the dated state changes
// of the topics of the question's best traces and a compact summary
// (StateText). Search ends its hits with StateHit (Kind
// retrieval.KindState, no trace ids, the summary as text, the score as
// Score, the decision as Undetermined) unless NoStateHit: readers follow
// it (generate's extractive reader and the model reader's StateSection).
//
// Support(ctx, q) is the older, binary signal: no admitted sentence that covers at least
// SupportCoverage of the question's focus (its content words, idf-weighted)
// states something without a tentative cue (maybe, plan, wonder, a
// question mark, 打算, 犹豫 ...), without a negation, outside a search
// history. Evidence, Committed and Tentative name the traces, Reason says
// why. It flags most questions (43 of the sample's 54) and readers do not
// use it.
//
// # Cost before the run
//
// PlanIngest and PlanSearch (retrieval.IngestPlanner, SearchPlanner) say
// what a run will spend without calling a model or changing the memory.
// Offline, nothing, exactly; search never calls a model. With the
// extractor model: one call per trace (exact, with max_tokens 200), whose
// prompt is counted without the topic's main words and the previous state
// the model stated (known only at ingest): a lower bound, not Exact.
//
// All knobs are in Config and in Name. The memory works offline by
// default; only the optional extractor uses a model (counted in Meter).
//
// # Dependencies
//
// timeline imports only retrieval, datasets, llm, text and component of
// memlab, as every package under retrieval (internal/archtest enforces it).
package timeline
