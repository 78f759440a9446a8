package retrieval

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/llm"
)

// This file holds the component specs (component.Spec) of the memory
// systems, embedders and extractors of this package: what identifies a run
// of each (record.Spec.ID), every knob that can change results.

// describe is x's spec, or its name's (component.Of).
func describe(x interface{ Name() string }) component.Spec {
	return component.Of(x, llm.RedactURLs(x.Name()))
}

// HashPrompts returns the first 16 hex digits of the SHA-256 of a
// component's prompts (system messages, schemas), for its spec.
func HashPrompts(prompts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(prompts, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// Spec is the BM25 constants and the scope of the statistics, resolved.
func (p BM25Params) Spec() component.Spec {
	rp, err := p.resolve()
	if err != nil {
		rp = p
	}
	return component.New("bm25").With("k1", rp.K1).With("b", rp.B).With("stats", rp.Stats)
}

// Spec is the fusion's rank constant and weights (defaults resolved).
func (r RRF) Spec() component.Spec {
	k := r.K
	if k == 0 {
		k = DefaultRRFK
	}
	s := component.New("rrf").With("k", k)
	if r.Weights != nil {
		s = s.With("weights", r.Weights)
	}
	return s
}

// Spec is the unit options, resolved: expansions, join mode, use-raw.
func (o UnitOptions) Spec() component.Spec {
	ro, err := o.Resolve()
	if err != nil {
		ro = o
	}
	exp := ro.Expansions
	if exp == nil {
		exp = []string{}
	}
	return component.New("units").With("expansions", exp).With("join", ro.Join).With("use_raw", ro.UseRaw)
}

// Spec is Flat's: its BM25 constants and statistics.
func (f *Flat) Spec() component.Spec { return component.New(NameFlat).Part("bm25", f.params.Spec()) }

// Spec is the Oracle's (no knob).
func (o *Oracle) Spec() component.Spec { return component.New(NameOracle) }

// Spec is the statement Oracle's: its mode.
func (o *OracleStatements) Spec() component.Spec {
	return component.New("oracle-statements").With("mode", o.mode)
}

// Spec is the no-memory baseline's (no knob).
func (BaseNoMemory) Spec() component.Spec { return component.New(NameBaseNoMemory) }

// Spec is the recent-context baseline's: its token budget.
func (b *BaseRecent) Spec() component.Spec {
	return component.New("base-recent").With("tokens", b.tokens)
}

// Spec is FlatUnits': the scorer; the units and, with expansions, the
// extractor and whether expansion hits are returned; the trace cap; BM25's
// constants (BM25 and hybrid scoring); the embedder, the statistics' scope
// and the refit growth of a strict offline embedder (dense and hybrid);
// the fusion (hybrid). The index cache directory changes no result.
func (f *FlatUnits) Spec() component.Spec {
	c := f.cfg
	s := component.New("flat-units").With("scorer", c.Scorer).With("stats", c.Stats).With("retrieve_k", c.RetrieveK).
		Part("units", c.Units.Spec())
	if len(c.Units.Expansions) > 0 {
		s = s.With("expansion_hits", c.ExpansionHits)
		if c.Extractor != nil {
			s = s.Part("extractor", describe(c.Extractor))
		}
	}
	if c.Scorer != ScorerDense {
		s = s.Part("bm25", c.BM25.Spec())
	}
	if c.Scorer == ScorerDense || c.Scorer == ScorerHybrid {
		if c.Embedder != nil {
			s = s.Part("embedder", describe(c.Embedder))
		} else {
			emb := component.New("offline-embedder").With("kind", c.Offline).With("stats", c.Stats)
			if c.Stats == StatsAdmitted {
				emb = emb.With("refit_growth", c.RefitGrowth)
			}
			s = s.Part("embedder", emb)
		}
	}
	if c.Scorer == ScorerHybrid {
		s = s.Part("fusion", c.Fusion.Spec())
	}
	return s
}

// Spec is Naive RAG's: the dense FlatUnits it runs.
func (n *NaiveRAG) Spec() component.Spec {
	return component.New("naive-rag").Part("flat", n.flat.Spec())
}

// Spec is Hybrid's: both systems, the fusion and the depth asked of each.
func (h *Hybrid) Spec() component.Spec {
	return component.New("hybrid").With("depth", h.Depth).Part("a", describe(h.A)).Part("b", describe(h.B)).
		Part("fusion", h.Fusion.Spec())
}

// Spec is the memory's spec (Incremental only feeds it).
func (s *Incremental) Spec() component.Spec {
	return component.New("incremental").Part("memory", describe(s.mem))
}

// Spec is the strict offline embedder's: its kind, fitted on admitted
// traces.
func (a *AdmittedEmbedder) Spec() component.Spec {
	return component.New("admitted-embedder").With("kind", a.kind).With("stats", StatsAdmitted)
}

// Spec is the base embedder's spec (CorpusEmbedders fits it per corpus
// when it is an AdmittedEmbedder, else uses it as it is).
func (c *CorpusEmbedders) Spec() component.Spec {
	return component.New("corpus-embedders").Part("embedder", describe(c.base))
}

// Spec is the time-aware wrapper's: the inner system, the mode, the
// widening, the depth, whether the inner system searches a range, the
// token bound, the model and the hash of its prompt.
func (s *TimeAware) Spec() component.Spec {
	_, ranged := s.inner.(TimeRanged)
	return component.New("time-aware").With("mode", s.cfg.Mode).With("widen_days", s.widen).With("depth", s.cfg.Depth).
		With("ranged", ranged && s.cfg.Mode == TimeFilter).With("max_tokens", s.cfg.MaxTokens).
		With("prompts", HashPrompts(taSystem, taSchema)).
		Part("inner", describe(s.inner)).Part("model", llm.ModelSpec(s.c, s.cfg.Role, s.cfg.Model))
}

// Spec is the decomposition wrapper's: the inner system, the number of
// subquestions, the temperature, the token bound, whether the question is
// kept, the model and the hash of its prompt.
func (s *Decomposed) Spec() component.Spec {
	return component.New("decomposed").With("subquestions", s.cfg.Subquestions).With("temperature", s.temp).
		With("max_tokens", s.cfg.MaxTokens).With("keep_question", s.cfg.KeepQuestion).
		With("prompts", HashPrompts(dqSystem, dqSchema)).
		Part("inner", describe(s.inner)).Part("model", llm.ModelSpec(s.c, s.cfg.Role, s.cfg.Model))
}

// Spec is the model extractor's: its settings, its model and the hash of
// its prompts.
func (x *ModelExtractor) Spec() component.Spec {
	return component.New("model-extractor").MustFields(x.cfg, "Role", "Model").With("role", x.cfg.Role).
		With("prompts", HashPrompts(mxSummarySystem, mxKeywordsSystem, mxFactsSystem, mxFactsSchema)).
		Part("model", llm.ModelSpec(x.c, x.cfg.Role, x.cfg.Model))
}
