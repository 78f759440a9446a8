#!/usr/bin/env bash
# Regenerates what docs/REPRODUCING.md shows, from the notebooks themselves:
#
#   docs/results/NAME/NAME.md (+ its figures)  each paper notebook run offline on the
#                                              bundled sample (no endpoint, no run store)
#   docs/results/knowme_table1_dataset1/       knowme_table1 on KnowMe-Bench dataset 1,
#                                              when ../shared/datasets/knowmebench/dataset1
#                                              exists (skip with SKIP_KNOWME=1)
#   docs/results/cross_benchmark/              cross_benchmark on the sample, KnowMe-Bench
#                                              dataset 1 and ../shared/datasets/locomo, when
#                                              both exist (skipped with SKIP_KNOWME=1 too)
#   the generated section of docs/REPRODUCING.md: date, commit, the list of reports and
#   the model calls and tokens of each notebook, counted on a run against the in-repo fake
#   OpenAI-compatible server (its token counts are words of placeholder replies, not a real
#   model's tokens).
#
# Usage, from the repository root:  scripts/reproduce-docs.sh
# Nothing under docs/results is edited by hand; rerun this script instead.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
notebooks=(clonemem_retrieval clonemem_qa clonemem_ablation_embedding clonemem_ablation_units clonemem_breakdown knowme_table1 error_analysis)
knowme=../../shared/datasets/knowmebench/dataset1 # as the notebook sees it: a -p path resolves from the notebook's directory
doc=docs/REPRODUCING.md

tmp=$(mktemp -d)
fake_pid=""
cleanup() {
	if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building memlab" >&2
go build -o "$tmp/memlab" ./cmd/memlab
memlab=$tmp/memlab

# Offline: no endpoint may leak in from the caller's environment.
offline() { env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u MEMLAB_CONFIG "$@"; }

rm -rf docs/results
mkdir -p docs/results
for nb in "${notebooks[@]}"; do
	echo "offline, sample: $nb" >&2
	offline "$memlab" run "notebooks/$nb.go" -o "docs/results/$nb" -no-store -quiet >/dev/null 2>"$tmp/$nb.err" || {
		cat "$tmp/$nb.err" >&2
		exit 1
	}
	rm -f "docs/results/$nb/$nb.ipynb" # the report (.md) and the figures are what the docs show
done
if [ -z "${SKIP_KNOWME:-}" ] && [ -d "notebooks/$knowme" ]; then
	echo "offline, KnowMe dataset 1: knowme_table1" >&2
	offline "$memlab" run notebooks/knowme_table1.go -p "data=$knowme" -o docs/results/knowme_table1_dataset1 -no-store -quiet >/dev/null 2>"$tmp/km.err" || {
		cat "$tmp/km.err" >&2
		exit 1
	}
	rm -f docs/results/knowme_table1_dataset1/knowme_table1.ipynb
fi
locomo=../../shared/datasets/locomo
if [ -z "${SKIP_KNOWME:-}" ] && [ -d "notebooks/$knowme" ] && [ -d "notebooks/$locomo" ]; then
	echo "offline, sample + KnowMe dataset 1 + LoCoMo: cross_benchmark" >&2
	offline "$memlab" run notebooks/cross_benchmark.go -p "knowme=$knowme" -p "locomo=$locomo" -o docs/results/cross_benchmark -no-store -quiet >/dev/null 2>"$tmp/xb.err" || {
		cat "$tmp/xb.err" >&2
		exit 1
	}
	rm -f docs/results/cross_benchmark/cross_benchmark.ipynb
fi

# Against the fake server: the model calls and tokens of each notebook on the sample,
# from the records' usage (runs export: calls, prompt_tokens, completion_tokens per
# question) and from the client's tally of the whole process (which also counts what
# building the indexes and memories called before any question).
port=$((20000 + RANDOM % 20000))
"$memlab" fake-openai -addr "127.0.0.1:$port" >"$tmp/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do
	if grep -q "127.0.0.1:$port" "$tmp/fake.log" 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	sleep 0.1
done

usage=$tmp/usage.md
{
	echo "| notebook | runs | questions | per-question calls (retrieve + read + judge) | prompt tokens | completion tokens | process: calls sent | process: served from cache | process: prompt tokens | process: completion tokens |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} >"$usage"
for nb in "${notebooks[@]}"; do
	echo "fake server, sample: $nb" >&2
	store=$tmp/$nb.db
	OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY="" MEMLAB_CONFIG="" MEMLAB_CACHE="$tmp/$nb-cache.db" \
		"$memlab" run "notebooks/$nb.go" -o "$tmp/out-$nb" -store "$store" -quiet >/dev/null 2>"$tmp/$nb.fake.err" || {
		cat "$tmp/$nb.fake.err" >&2
		exit 1
	}
	# Sum the records' usage over every run the notebook made.
	nruns=0
	: >"$tmp/$nb.csv"
	for id in $("$memlab" runs list -store "$store" | grep -oE '^\| [0-9a-f]{16} ' | tr -d '| '); do
		nruns=$((nruns + 1))
		"$memlab" runs export -store "$store" -format csv "$id" >"$tmp/$nb.run.csv"
		python3 - "$tmp/$nb.run.csv" >>"$tmp/$nb.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(len(rows), sum(int(r["calls"] or 0) for r in rows), sum(int(r["prompt_tokens"] or 0) for r in rows),
      sum(int(r["completion_tokens"] or 0) for r in rows))
EOF
	done
	read -r q c p o < <(awk '{q+=$1; c+=$2; p+=$3; o+=$4} END {print q+0, c+0, p+0, o+0}' "$tmp/$nb.csv")
	# The client's tally: the "| all | all |" row of the usage report memlab run prints.
	# (With one role only the report has no "all" row: its one row is the total.)
	read -r ac ah ap ao < <(awk -F'|' '
		/^model calls of this run:/ {t = 1; next}
		t && /^\|/ {
			gsub(/ /, "")
			if ($2 == "role" || $2 ~ /^-+$/) next
			if ($2 == "all" && $3 == "all") {a = $4; h = $5; p = $7; o = $8; all = 1} else {sa += $4; sh += $5; sp += $7; so += $8}
			next
		}
		t {t = 0}
		END {if (all) print a, h, p, o; else print sa + 0, sh + 0, sp + 0, so + 0}' "$tmp/$nb.fake.err")
	echo "| $nb | $nruns | $q | $c | $p | $o | ${ac:-0} | ${ah:-0} | ${ap:-0} | ${ao:-0} |" >>"$usage"
done

# The generated section of docs/REPRODUCING.md.
gen=$tmp/generated.md
{
	echo "<!-- BEGIN GENERATED by scripts/reproduce-docs.sh: do not edit by hand -->"
	echo
	echo "Generated on $(date -u +%Y-%m-%d) at commit \`$(git rev-parse --short HEAD)\`$(git diff --quiet HEAD -- notebooks runs record runstore reports formats retrieval judge generate analysis datasets llm 2>/dev/null || echo ' (with uncommitted changes)')."
	echo
	echo "### Offline results"
	echo
	echo "Each report is the notebook run offline (\`memlab run notebooks/NAME.go -no-store\`): offline embedders,"
	echo "the extractive reader and the offline proxies, labelled as such; LLM-judged metrics are not computed."
	echo
	for nb in "${notebooks[@]}"; do
		echo "* [$nb](results/$nb/$nb.md) (bundled sample)"
	done
	if [ -f docs/results/knowme_table1_dataset1/knowme_table1.md ]; then
		echo "* [knowme_table1 on KnowMe-Bench dataset 1](results/knowme_table1_dataset1/knowme_table1.md)"
	fi
	if [ -f docs/results/cross_benchmark/cross_benchmark.md ]; then
		echo "* [cross_benchmark on the sample, KnowMe-Bench dataset 1 and LoCoMo](results/cross_benchmark/cross_benchmark.md)"
	fi
	echo
	echo "### Model calls and tokens of a run with models (bundled sample)"
	echo
	echo "Counted on a run of each notebook against the in-repo fake server (\`memlab fake-openai\`), every role on it,"
	echo "with an empty call cache. **The fake server's tokens are words of placeholder replies, not a real model's"
	echo "tokens**: take the calls as exact for this protocol and the tokens as an order of magnitude only. The per-question"
	echo "columns sum the records' usage over every run the notebook makes (\`Record.Usage\`, \`runs export\` columns calls,"
	echo "prompt_tokens, completion_tokens): what the questions' retrieval, reading and judging would spend without a cache."
	echo "The process columns are the client's usage report of the whole \`memlab run\`: the calls actually sent (the cache"
	echo "serves a call already made, e.g. when a memory is rebuilt for another k) and the calls served from the cache;"
	echo "they also count what building indexes and extractions cost before any question."
	echo
	cat "$usage"
	echo
	echo "<!-- END GENERATED -->"
} >"$gen"

python3 - "$doc" "$gen" <<'EOF'
import sys
doc, gen = sys.argv[1], open(sys.argv[2]).read().rstrip("\n")
text = open(doc).read()
begin, end = "<!-- BEGIN GENERATED", "<!-- END GENERATED -->"
i, j = text.find(begin), text.find(end)
if i < 0 or j < 0:
    sys.exit(doc + ": no generated section markers")
open(doc, "w").write(text[:i] + gen + text[j + len(end):])
EOF
echo "wrote docs/results and the generated section of $doc" >&2
