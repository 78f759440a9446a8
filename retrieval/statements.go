package retrieval

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
)

// Statement modes of OracleStatements (CloneMem's eval_oracle.py flags).
const (
	// StatementsOnly returns the evidence statements instead of the traces
	// (--use_statement_only).
	StatementsOnly = "statements-only"
	// AddStatements returns the gold traces, then the statements
	// (--add_statement).
	AddStatements = "add-statements"
)

// Names of OracleStatements systems, by mode.
const (
	NameOracleStatementsOnly = "oracle-statements-only"
	NameOracleAddStatements  = "oracle+statements"
)

// StatementTag joins a statement hit's UnitID: "FIRSTTRACE#st2" is the
// statement of the question's second evidence group, whose first admitted
// trace is FIRSTTRACE.
const StatementTag = "#st"

// OracleStatements is the Oracle of CloneMem with evidence statements
// (memory-systems.md, "Oracle (CloneMem)"). It uses no model.
//
// Statement hits have Kind KindStatement, Text the evidence group's
// statement and TraceIDs all the group's trace ids that exist in the
// corpus and are admitted at q.AskedAt, in listed order. CloneMem keeps only
// the first id as the statement's chunk_id; memlab keeps every id of the
// group so that recall and provenance see the whole group, and names the
// first one in UnitID (FIRST + StatementTag + the 1-based group number).
// Time is the latest of those traces' times.
//
// Temporal admission as the Oracle's: only admitted traces are named, and a
// statement is dropped when none of its traces is both in the corpus and
// admitted (all future, unknown ids, or no id), so no hit can come from the
// question's future. Groups without a statement give no statement hit.
//
// Modes:
//   - StatementsOnly: the statements in evidence order, at most k.
//   - AddStatements: the gold traces exactly as Oracle returns them (Kind
//     KindChunk, Time set), then the statements in evidence order, at most
//     k hits in all; the statements fill the slots the traces leave.
//
// Scores descend from 1 in steps of 1/(number of hits). An OracleStatements
// is safe for concurrent use.
type OracleStatements struct {
	mode   string
	oracle *Oracle
	times  map[string]map[string]time.Time // corpus -> trace id -> time (first of an id)
}

// NewOracleStatements prepares the statement Oracle of d in mode
// (StatementsOnly or AddStatements). The dataset must not be changed
// afterwards. An unknown mode is an error; a nil dataset gives a system
// whose Retrieve reports unknown corpora.
func NewOracleStatements(d *datasets.Dataset, mode string) (*OracleStatements, error) {
	if mode != StatementsOnly && mode != AddStatements {
		return nil, fmt.Errorf("retrieval: new oracle statements: unknown mode %q (want %q or %q)", mode, StatementsOnly, AddStatements)
	}
	o := &OracleStatements{mode: mode, oracle: NewOracle(d), times: map[string]map[string]time.Time{}}
	if d != nil {
		for _, c := range d.Corpora {
			if c == nil || o.times[c.ID] != nil {
				continue
			}
			m := make(map[string]time.Time, len(c.Traces))
			for _, t := range c.Traces {
				if _, dup := m[t.ID]; !dup {
					m[t.ID] = t.Time
				}
			}
			o.times[c.ID] = m
		}
	}
	return o, nil
}

// Name returns NameOracleStatementsOnly or NameOracleAddStatements.
func (o *OracleStatements) Name() string {
	if o.mode == StatementsOnly {
		return NameOracleStatementsOnly
	}
	return NameOracleAddStatements
}

// Mode returns the statement mode.
func (o *OracleStatements) Mode() string { return o.mode }

// Retrieve returns up to k hits for q (see OracleStatements). k = 0 gives
// no hits; a negative k, an unknown corpus or a cancelled ctx is an error.
func (o *OracleStatements) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: %w", o.Name(), q.ID, err)
	}
	if k < 0 {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: k = %d, want >= 0", o.Name(), q.ID, k)
	}
	times, ok := o.times[q.CorpusID]
	if !ok {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: unknown corpus %q", o.Name(), q.ID, q.CorpusID)
	}
	var hits []Hit
	if o.mode == AddStatements {
		gold, err := o.oracle.Retrieve(ctx, q, k)
		if err != nil {
			return nil, fmt.Errorf("retrieval: %s retrieve %q: %w", o.Name(), q.ID, err)
		}
		for _, h := range gold {
			h.Kind = KindChunk
			for _, id := range h.TraceIDs {
				if t := times[id]; t.After(h.Time) {
					h.Time = t
				}
			}
			hits = append(hits, h)
		}
	}
	for gi, g := range q.Evidence {
		if len(hits) >= k {
			break
		}
		text := strings.TrimSpace(g.Statement)
		if text == "" {
			continue
		}
		h := Hit{Kind: KindStatement, Text: text}
		seen := map[string]bool{}
		for _, id := range g.TraceIDs {
			t, known := times[id]
			if !known || seen[id] || !(q.AskedAt.IsZero() || t.IsZero() || !t.After(q.AskedAt)) {
				continue
			}
			seen[id] = true
			h.TraceIDs = append(h.TraceIDs, id)
			if t.After(h.Time) {
				h.Time = t
			}
		}
		if len(h.TraceIDs) == 0 {
			continue
		}
		h.UnitID = h.TraceIDs[0] + StatementTag + strconv.Itoa(gi+1)
		hits = append(hits, h)
	}
	for i := range hits {
		hits[i].Score = 1 - float64(i)/float64(len(hits))
	}
	return hits, nil
}
