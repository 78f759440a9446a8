// Package catalog builds every component of an experiment from a short
// spec string: memory systems ("flat(bm25)", "flat(dense:lsa)",
// "flat(units=facts+raw,join=merge_raw)", "timeline", "mem0(model=x)",
// "decomposed(flat(bm25))"), embedders ("lsa", "embedder(model=x)"),
// extractors, readers ("extractive", "reader(model=x)") and judges
// ("judge(knowme)", "judge(clonemem,use=memory)").
//
// # Grammar
//
// A spec is a name, optionally followed by arguments in parentheses: an
// optional first positional argument for the component's primary knob,
// then key=value knobs. A value is a word, a quoted string ("a b"), a
// number, true or false, a list joined by "+" (units=facts+raw), or a
// nested spec where a wrapper takes a component (decomposed(flat(bm25))).
// flat's scorer may name its embedder: dense:lsa, hybrid:embedder(model=x).
// A parse error is a *SyntaxError naming the column; an unknown name, knob
// or value is an *UnknownError listing the nearest valid ones by edit
// distance ("unknown system \"flta\": did you mean flat?").
//
// # Canonical strings
//
// Spec.String (and Canonical) writes the knobs in the entry's order and
// leaves out those at their default, so "flat( bm25 , k1=1.5 )" and
// "flat(bm25)" are one string. It is what a table can show. Building maps
// each knob onto its constructor's config field, leaving a field at its
// zero value when the knob is at its default, so a built component's
// component.Spec equals that of the same component built by hand with the
// same config, and names and run ids agree.
//
// # Models
//
// Building takes an Env: the dataset systems index, the model client
// (nil offline) and, for the weaviate system, a Weaviate server. A component that needs a model without a client fails
// with a *NeedsModelError giving the role (llm.RoleEmbedder,
// RoleExtractor, RoleBackbone, RoleJudge); errors.Is(err,
// retrieval.ErrNeedsModel) holds for it too. Spec.Roles says beforehand
// which roles a spec needs, its parts' included, so a caller can skip it
// with that reason without building it. List and Table show every
// entry, its knobs, their defaults and whether it needs a model
// (`memlab components` prints the table).
//
// # Dependencies
//
// It sits above the domain packages it builds from (retrieval and its
// sub-packages, generate, judge, llm, datasets, component) and analysis
// (for its table), and below what runs experiments: runs, runstore,
// record, reports, formats, display and kernel must not be imported by it,
// and none of the packages below it may import it (internal/archtest
// enforces both).
package catalog
