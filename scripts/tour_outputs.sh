#!/usr/bin/env bash
# Re-run the tour (docs/tour.md, the README quotes a few) and keep every command's output, to refresh them
# after a change that moves them (the engine, the bots, the demo).
#
#   scripts/tour_outputs.sh OUT            # everything: about 30 minutes on two cores
#   scripts/tour_outputs.sh OUT --quick    # skip the benchmarks, the ladder and calibration
#
# Works in a scratch copy of the repository's data/ (the demo database is built there, the
# replays and notes written there), so the checkout is left as it was. Each command's output
# goes to OUT/NN-name.txt, the command on its first line; OUT/README.txt lists them and says
# where each is quoted. Outputs are piped, so tables are never wrapped or cut.
set -euo pipefail

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
QUICK=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/.venv/bin
# the code of this checkout, even when .venv is shared with another checkout (a git worktree)
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
[[ -x $BIN/pmim ]] || { echo "no $BIN/pmim: run 'make venv' (or 'make test') first" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmim-tour.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/data" "$WORK/data"
rm -f "$WORK"/data/*.duckdb "$WORK"/data/*.duckdb.wal
export PMIM_DATA=$WORK/data PMIM_DB=$WORK/data/pmim.duckdb
cd "$WORK"
ln -s "$ROOT/bench" bench
n=0

# run NAME WHERE-QUOTED COMMAND...: one command, its output (stdout and stderr) and exit code kept
run() {
    local name=$1 where=$2
    shift 2
    n=$((n + 1))
    local file
    file=$(printf '%s/%02d-%s.txt' "$OUT" "$n" "$name")
    local started=$SECONDS
    { echo "\$ ${*//$BIN\//}"; "$@" 2>&1 || echo "[exit $?]"; } | sed "s#$WORK#/…#g" >"$file"
    printf '%-32s %-44s %4ss\n' "$(basename "$file")" "$where" $((SECONDS - started)) | tee -a "$OUT/README.txt"
}

: >"$OUT/README.txt"
run rules-list "docs/tour.md: The rules catalogue" "$BIN/pmim" rules list
run rules-show "docs/tour.md: The rules catalogue" "$BIN/pmim" rules show v3 --unit "Timber Wolf"
run rules-diff "docs/tour.md: The rules catalogue" "$BIN/pmim" rules diff v2 v3 --markdown
run army-validate "docs/tour.md: Army lists" "$BIN/pmim" army validate data/armies/v2-playtest-balanced.yaml --rules v1
run log-check "docs/tour.md: Logging a match" "$BIN/pmim" log check data/playtests/*.pmimlog
run dice-target "docs/tour.md: Balance reports" "$BIN/pmim" dice --rules v3 --target "Timber Wolf"
run dice-overheat "docs/tour.md: Optional rules" "$BIN/pmim" dice --rules v3-heat --overheat "Timber Wolf:GG,ML"
run play "docs/tour.md: Engine games" "$BIN/pmim" play --rules v3 --blue data/armies/v3-balanced.yaml \
    --red data/armies/v3-tank-heavy.yaml --blue-bot tactician --red-bot greedy --seed 7 --out replays/game.jsonl
run replay-show "docs/tour.md: Engine games" "$BIN/pmim" replay show replays/game.jsonl --round 2
run replay-verify "docs/tour.md: Engine games" "$BIN/pmim" replay verify replays/game.jsonl
run simulate "docs/tour.md: The database (simulate)" "$BIN/pmim" simulate --rules v3 \
    --blue data/armies/v3-balanced.yaml --red data/armies/v3-tank-heavy.yaml \
    --games 10000 --seed 1 --workers 2 --out replays/balanced-vs-tanks/
run ingest "docs/tour.md: The database (ingest)" "$BIN/pmim" ingest replays/balanced-vs-tanks/ data/playtests/*.pmimlog \
    --db "$WORK/own.duckdb"
run demo "docs/tour.md: The database; make run's time" "$BIN/pmim" demo
run db-info "docs/tour.md: The database" "$BIN/pmim" db info
run db-check "docs/tour.md: The database" "$BIN/pmim" db check
run optional-rules "docs/tour.md: Optional rules" "$BIN/pmim" report optional-rules
run impact-heat "docs/tour.md: Optional rules" "$BIN/pmim" report impact --rules v3,v3-heat
run units "docs/tour.md: Balance reports" "$BIN/pmim" report units --rules v3 --source engine
run compositions "docs/tour.md: Balance reports" "$BIN/pmim" report compositions --rules v2,v3
run impact-llaser "docs/tour.md: Balance reports; docs/findings.md" "$BIN/pmim" report impact --rules v3,v3-llaser-rpt4
run costs "docs/tour.md: the Mjolnir's price" "$BIN/pmim" report costs --rules v3 --source engine
run meta "docs/tour.md: Balance reports" "$BIN/pmim" report meta --rules v3
run impact-mjolnir "docs/tour.md: the Mjolnir's price" "$BIN/pmim" report impact --rules v3,v3-mjolnir-16
run impact-v2-v3 "docs/tour.md: the same list under v2 and v3" "$BIN/pmim" report impact --rules v2,v3
run robustness "docs/tour.md: Bots; docs/bots.md" "$BIN/pmim" report robustness --rules v3
run export "docs/findings.md" "$BIN/pmim" export \
    --rules v3,v3-llaser-rpt4,v3-heavy-def6 --out notes/
cp notes/note.md "$OUT/export-note.md" 2>/dev/null || true
cp notes/report.md "$OUT/export-report.md" 2>/dev/null || true
run playtest1-search "docs/tour.md: Bots (the playtest-1 matchup)" "$BIN/pmim" simulate --rules v2-heavy-def6 \
    --blue data/armies/v2-playtest-balanced.yaml --red data/armies/v2-playtest1-heavy.yaml \
    --blue-bot search --red-bot search --games 200 --seed 1 --workers 1 --out replays/playtest1-search/
if [[ $QUICK != --quick ]]; then
    run ladder "docs/tour.md: Bots; docs/bots.md" "$BIN/pmim" bots ladder --rules v3 --seed 1
    run calibrate "docs/tour.md: Bots; docs/bots.md" "$BIN/pmim" calibrate --only playtest- \
        --bots random,greedy,tactician,search,search:budget=200 --games 100
    run bench-bots "docs/tour.md: Bots; Engine games" "$BIN/python" bench/bench_bots.py --budgets 0,100,400 --strength-games 16 --scripted-games 16 --workers 2
    run bench-engine "docs/tour.md: Engine games (speed)" "$BIN/python" bench/bench_engine.py
    run screenshots "docs/tour.md: The dashboard (docs/screenshots)" "$BIN/python" "$ROOT/scripts/screenshots.py" \
        --db "$PMIM_DB" --out "$OUT/screenshots"
fi
echo "outputs in $OUT (list: $OUT/README.txt)"
