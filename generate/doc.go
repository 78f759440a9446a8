// Package generate holds memlab's readers: components that answer a
// question from the passages a memory system retrieved, and the parser of a
// model's multiple-choice output.
//
// # Readers
//
// A Reader takes a datasets.Question and its retrieved Passages and returns
// an Answer: for multiple-choice questions an option id, otherwise a text.
// Two readers ship:
//
//   - ModelReader: a model through the llm package (any llm.Chatter). Its
//     prompts (Prompts, PromptFor) follow the papers' protocols in memlab's
//     own words: CloneMem free text (the person answers a close friend from
//     the retrieved memories, each shown with its date and medium) and
//     multiple choice (a letter), one prompt per KnowMe task family, and
//     LoCoMo's (a short phrase in the conversation's words; temporal
//     questions told to date the answer from the sessions; adversarial
//     questions a choice between "Not mentioned in the conversation" and
//     the adversarial answer, LoCoMoOptions). Every prompt is versioned by
//     the hash of its text, recorded in the reader's spec (and, for those
//     before LoCoMo's, in its name). A multiple-choice reply is read with ParseChoice; an
//     unparseable or ambiguous reply is a recorded Outcome, not a letter.
//
//   - Extractive ("extractive (offline)"): no model. It picks the option best
//     supported by the words of the retrieved text, or copies the retrieved
//     sentences that share the most words with the question. It is a
//     lexical baseline for running the pipeline without an endpoint, and
//     its scores must be labelled as such; it is not a stand-in for an LLM
//     reader.
//
// # Parsing model output
//
// ParseChoice turns a model's reply to a multiple-choice prompt into an
// option id ("C", "(c)", "Answer: C", "选项C", the option's text, ...). An
// output that names no option, or names two different options as the
// answer, is an error (ErrUnparseable, ErrAmbiguous): a recorded failure, not
// a wrong letter.
//
// This package does not import retrieval: the runs package converts
// retrieval hits into Passages.
package generate
