// Package weaviate keeps memlab retrieval units in a Weaviate server and
// searches them there: dense (nearVector, cosine), BM25 and hybrid search,
// with temporal admission applied by the server before ranking.
//
// # Server
//
// The package talks to a running server (Weaviate 1.35.2 with
// weaviate-go-client v4.16.1). scripts/weaviate-start.sh installs one if
// needed, starts it on loopback (REST 127.0.0.1:8089, gRPC 127.0.0.1:50051)
// with the settings this package relies on, waits until it is ready and
// prints the environment (MEMLAB_WEAVIATE_URL, MEMLAB_WEAVIATE_GRPC) to
// eval. Two of those settings matter for results: USE_INVERTED_SEARCHABLE=
// false (with the default BlockMax index, BM25 ranks freshly imported
// objects wrongly until a memtable flush in 1.35.2) and
// AUTOSCHEMA_ENABLED=false (an unexpected property is an error, not a new
// property).
//
// # Collections
//
// A Store is one collection (Weaviate class). CollectionName derives one per
// dataset fingerprint and embedder, so vectors of different embedders never
// mix; the corpora of a dataset share it and every object names its corpus.
// By default each corpus is a tenant of the collection (Weaviate
// multi-tenancy, TenantName), with its own index, so BM25's statistics of a
// persona never include another's; Config.Shared keeps every corpus in one
// index instead, as collections made before tenants did.
// The schema: corpus, unitId, traceIds, kind and medium are text with field
// tokenization (exact match); hasTime is a boolean; eventTime a date;
// content the unit's text (word tokenization); terms the text cut by
// text.Tokens (the tokenizer of memlab's Flat BM25, which also splits
// Chinese into character bigrams) and joined by spaces, with whitespace
// tokenization: BM25 and the keyword side of hybrid search read terms, so
// lexical matching is the same in English and Chinese. Only what a search
// reads is indexed (in the collections this version creates): corpus and hasTime
// are filterable, eventTime has a range index (the admission filter's <=),
// terms is searchable (BM25) and not filterable; unitId, traceIds, kind,
// medium and content are stored without any inverted index, which made the
// import of 200,000 traces 2.6 times faster (docs/performance.md).
// Collections made before, with every property indexed, are opened as they
// are and give the same results. Vectors come from the
// caller (vectorizer none), with cosine distance and a flat (exact, the
// default) or HNSW index. The vector length is recorded in the collection's
// description and checked on the client side: the server does not check it
// (a wrong-length object is stored without an index entry).
//
// Object ids are ObjectID(corpus, unit id), a name-based UUID, so importing
// a unit again replaces it: re-ingest is idempotent, and an import that
// failed half way (the server died) is resumed by running it again.
// Dates are sent as RFC 3339 strings (a time.Time property is silently
// dropped on the gRPC import path). A collection's BM25 constants are
// Weaviate's (k1 = 1.2, b = 0.75) unless Config.BM25 sets others at its
// creation; constants other than Weaviate's are in a System's name and spec.
//
// # Import
//
// Store.Put is batched and concurrent: the objects are split into requests
// of at most Config.BatchSize objects of one corpus (one tenant) each, sent
// through the client's batcher (gRPC when Config.GRPC is set), with at most
// Config.Workers requests in flight over the whole Store, whichever
// goroutines import; System.IngestDataset embeds and imports the corpora
// concurrently under the same bound. The tenants of new corpora are
// created first (one listing, one creation request per 100). An object the
// server refuses does not stop the import: the others go on, and Put
// returns an *ImportError whose Failures name each refused object (trace id,
// corpus, object id, the server's message), in the import's order. A
// request that fails as a whole (the server died) stops the import: no
// further request is sent, those in flight are cancelled, and the error
// names that request's corpus and units. Nothing of this changes what is
// stored (object ids are deterministic).
//
// # Temporal admission
//
// A search for a question asked at t carries the filter
//
//	corpus == C AND (hasTime == false OR eventTime <= t)
//
// A unit of unknown time is stored with hasTime false and no eventTime: it
// matches the first operand, and a missing eventTime never matches the
// second, so it is always admitted, as datasets.Admit does. A question of
// unknown time (zero t) gets the filter corpus == C alone. Weaviate applies
// the filter before ranking (the flat index scores only allowed objects;
// HNSW searches with the allow list), so k hits come back whenever k
// admitted units exist.
//
// # Systems
//
// System puts a Store behind retrieval.Memory and retrieval.System: it
// embeds units with an llm.Embedder (dense and hybrid modes), imports them,
// and searches in one of three modes: dense (Hit.Score = cosine
// similarity), bm25 and hybrid (Weaviate's scores; hybrid fuses with
// relative score fusion, Weaviate's default, weight Alpha on the vector
// side). Its meter counts embedded texts.
//
// # Strict statistics
//
// The time filter keeps later traces out of the results, not out of
// Weaviate's BM25 statistics: the server computes N (the objects of the
// tenant), each term's document frequency and the average length over
// every object of the index, and counts the matches the filter excludes
// into the document frequency on purpose (Weaviate 1.35's BM25Searcher).
// A tenant holding later traces therefore shapes an earlier question's
// BM25 scores even though the filter never returns them. So the System has
// two ingest modes, named in its name: IngestIncremental (the default; the
// Memory protocol through retrieval.NewIncremental, the store holding only
// what was admitted at the question asked, emptied for a corpus at its
// first ingest) and IngestAll (IngestDataset once, then Retrieve, every
// query filtered by its time). Over a per-corpus store, incremental ingest
// is strict: the question's tenant holds exactly its admitted traces, so
// the server's BM25 statistics are theirs ("stats=admitted"), and the time
// filter, still sent, is a second guard. This is exact by construction
// rather than by re-ranking: no statistic is recomputed locally (Weaviate's
// BM25 scores are its own, not memlab's).
//
// Dense search has no statistics: a cosine depends on the query and the
// object alone. Over a flat index the server ranks exactly the objects the
// filter allows, so the filter is exact admission and IngestAll is strict
// as well: every trace of every persona is imported once (concurrently) and
// each question filtered by its time, which is the fast mode for dense
// search over many personas ("weaviate-dense(...,ingest=all,stats=admitted)";
// TestDenseFilterEqualsIncremental and TestFutureTraceDoesNotChangeScores
// check it against a server). The vectors are the embedder's: a model
// embedder or a retrieval.AdmittedEmbedder carries no later trace, an
// offline embedder fitted on every trace does (its name says how many it
// was fitted on). Over an HNSW index an approximate search walks a graph
// that, in IngestAll, holds later traces, so that mode is named
// stats=corpus (in 1.35 the server searches the allowed objects by brute
// force when fewer than its flatSearchCutoff, 40,000 by default, pass the
// filter, and is then exact). BM25 and hybrid search in IngestAll, and
// every mode but flat dense in a shared collection, are leaky (stats=corpus,
// stats=collection): kept to measure the leak.
//
// # Ties
//
// Hits of equal score come back in the server's order, which depends on
// the internal document ids; the server stores a batch's objects
// concurrently, so that order, and which of several tied objects fill the
// last places of a top k, may differ from one import to another and from
// the embedded stores' (which break ties by insertion order). Apart from
// ties, the same search against Weaviate and against the embedded stores
// returns the same ids in the same order (TestDenseSameAsVecStore,
// TestBM25SameAsFlat).
package weaviate
