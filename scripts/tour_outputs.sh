#!/usr/bin/env bash
# Re-run the README's tour and keep every command's output, to refresh README.md and docs/
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
run rules-list "README: The rules catalogue" "$BIN/pmim" rules list
run rules-show "README: The rules catalogue" "$BIN/pmim" rules show v3 --unit "Timber Wolf"
run rules-diff "README: The rules catalogue" "$BIN/pmim" rules diff v2 v3 --markdown
run army-validate "README: Army lists" "$BIN/pmim" army validate data/armies/v2-playtest-balanced.yaml --rules v1
run log-check "README: Logging a match" "$BIN/pmim" log check data/playtests/*.pmimlog
run dice-target "README: Balance reports" "$BIN/pmim" dice --rules v3 --target "Timber Wolf"
run dice-overheat "README: Optional rules" "$BIN/pmim" dice --rules v3-heat --overheat "Timber Wolf:GG,ML"
run play "README: Engine games" "$BIN/pmim" play --rules v3 --blue data/armies/v3-balanced.yaml \
    --red data/armies/v3-tank-heavy.yaml --blue-bot tactician --red-bot greedy --seed 7 --out replays/game.jsonl
run replay-show "README: Engine games" "$BIN/pmim" replay show replays/game.jsonl --round 2
run replay-verify "README: Engine games" "$BIN/pmim" replay verify replays/game.jsonl
run simulate "README: The database (simulate)" "$BIN/pmim" simulate --rules v3 \
    --blue data/armies/v3-balanced.yaml --red data/armies/v3-tank-heavy.yaml \
    --games 10000 --seed 1 --workers 2 --out replays/balanced-vs-tanks/
run ingest "README: The database (ingest)" "$BIN/pmim" ingest replays/balanced-vs-tanks/ data/playtests/*.pmimlog \
    --db "$WORK/own.duckdb"
run demo "README: The database; make run's time" "$BIN/pmim" demo
run db-info "README: The database" "$BIN/pmim" db info
run db-check "README: The database" "$BIN/pmim" db check
run optional-rules "README: Optional rules" "$BIN/pmim" report optional-rules
run impact-heat "README: Optional rules" "$BIN/pmim" report impact --rules v3,v3-heat
run units "README: Balance reports" "$BIN/pmim" report units --rules v3 --source engine
run compositions "README: Balance reports" "$BIN/pmim" report compositions --rules v2,v3
run impact-llaser "README: Balance reports; Rules impact" "$BIN/pmim" report impact --rules v3,v3-llaser-rpt4
run costs "README: the Mjolnir's price" "$BIN/pmim" report costs --rules v3 --source engine
run meta "README: Balance reports" "$BIN/pmim" report meta --rules v3
run impact-mjolnir "README: the Mjolnir's price" "$BIN/pmim" report impact --rules v3,v3-mjolnir-16
run impact-v2-v3 "README: the same list under v2 and v3" "$BIN/pmim" report impact --rules v2,v3
run robustness "README: Bots; docs/bots.md" "$BIN/pmim" report robustness --rules v3
run export "README: Summary, open questions, Rules impact" "$BIN/pmim" export \
    --rules v3,v3-llaser-rpt4,v3-heavy-def6 --out notes/
cp notes/note.md "$OUT/export-note.md" 2>/dev/null || true
cp notes/report.md "$OUT/export-report.md" 2>/dev/null || true
run playtest1-search "README: Bots (the playtest-1 matchup)" "$BIN/pmim" simulate --rules v2-heavy-def6 \
    --blue data/armies/v2-playtest-balanced.yaml --red data/armies/v2-playtest1-heavy.yaml \
    --blue-bot search --red-bot search --games 200 --seed 1 --workers 1 --out replays/playtest1-search/
if [[ $QUICK != --quick ]]; then
    run ladder "README: Bots; docs/bots.md" "$BIN/pmim" bots ladder --rules v3 --seed 1
    run calibrate "README: Bots; docs/bots.md" "$BIN/pmim" calibrate --only playtest- \
        --bots random,greedy,tactician,search,search:budget=200 --games 100
    run bench-bots "README: Bots; Engine games" "$BIN/python" bench/bench_bots.py --budgets 0,100,400 --strength-games 16 --scripted-games 16 --workers 2
    run bench-engine "README: Engine games (speed)" "$BIN/python" bench/bench_engine.py
    run screenshots "README: The dashboard (docs/screenshots)" "$BIN/python" "$ROOT/scripts/screenshots.py" \
        --db "$PMIM_DB" --out "$OUT/screenshots"
fi
echo "outputs in $OUT (list: $OUT/README.txt)"
