#!/usr/bin/env bash
# Advice checked against reality: for each program under tests/advice, profile the sequential
# version with Revy, ask `revy whatif` for the change its hand-written parallel version makes
# (on this machine's cores), measure both versions (several runs each, interleaved, the
# minimum of each) and print predicted against measured speedup and the error.
#
#   tests/advice/check.sh [--tolerance FRACTION] [--runs N] [--only NAME] [--boost] [--keep]
#
# --tolerance 0.15 makes it exit 1 when any |error| is larger (and when the synchronous chain
# is predicted above 1.05x); without it the table is only printed. Programs report their own
# elapsed time on stderr (`elapsed_ms=`), so JVM start-up is left out of both versions.
# --boost runs the profiled run, `revy whatif` (it measures the handoff) and each measured run
# in a session of its own whose scheduler autogroup gets nice -20 (needs root): on a machine
# shared with other jobs, the closest to a quiet one (other jobs keep a small share; a
# real-time policy would starve the JVM's compiler threads and is no substitute).
# --keep leaves the work folder (copies, traces, whatif/analyze JSON) for a closer look.
set -euo pipefail

tolerance=""
runs=5
only=""
prio=()
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --tolerance) tolerance="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --boost) prio=(setsid -w bash -c 'echo -20 >/proc/self/autogroup && exec "$@"' boost); shift ;;
        --keep) keep=1; shift ;;
        *) echo "usage: $0 [--tolerance FRACTION] [--runs N] [--only NAME] [--boost] [--keep]" >&2; exit 2 ;;
    esac
done

# name | language | shape | --active pattern | further whatif options (the par version's own)
programs=(
    "workers|Java|independent workers|workers.Worker|"
    "pipeline|C++|unbalanced pipeline|Transformer|"
    "chain|Java|synchronous chain|chain.Lexer|"
    "finegrained|C++|fine-grained messages|Histogram|"
    "distribute|Java|distribution, 2 MiB messages|distribute.Analyzer|--latency 1ms --bandwidth 1000000000"
)

repo=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$repo" && cargo build --release -q -p revy)
revy="$repo/target/release/revy"
cores=$(nproc)

work=$(mktemp -d)
if [ -n "$keep" ]; then
    echo "work folder (traces, whatif and analyze output): $work"
else
    trap 'rm -rf "$work"' EXIT
fi
(cd "$repo/tests" && tar --exclude=build -cf - advice) | tar -xf - -C "$work"

# The manifest's build or run command of one version.
command_of() { # DIR KEY
    python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"][sys.argv[2]])' \
        "$1/revy.toml" "$2"
}

# One run's elapsed_ms (the program's own timer).
elapsed() { # DIR
    (cd "$1" && ADVICE_SCALE=1 ${prio[@]+"${prio[@]}"} bash -c "$(command_of "$1" run)" 2>&1 >/dev/null) |
        sed -n 's/^elapsed_ms=//p'
}

# A field of a JSON document on stdin, by a Python expression over `j`.
json() { python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

echo "machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
rows=()
tops=()
failed=0
for p in "${programs[@]}"; do
    IFS='|' read -r name lang shape pattern extra <<<"$p"
    if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
    seq="$work/advice/$name/seq"
    par="$work/advice/$name/par"
    echo "== $name: profile, whatif --active $pattern $extra" >&2
    (cd "$seq" && ${prio[@]+"${prio[@]}"} "$revy" profile >"$work/$name.profile" 2>&1) || {
        cat "$work/$name.profile" >&2
        exit 1
    }
    trace="$seq/$(sed -n 's/^trace: //p' "$work/$name.profile")"
    # shellcheck disable=SC2086 # $extra is a list of options
    if ${prio[@]+"${prio[@]}"} "$revy" whatif "$trace" --active "$pattern" --cores "$cores" $extra --format json \
        >"$work/$name.whatif" 2>"$work/$name.whatif.err"; then
        predicted=$(json 'j["predicted_speedup"]' <"$work/$name.whatif")
    else
        echo "revy whatif failed: $(head -c 300 "$work/$name.whatif.err")" >&2
        predicted=""
    fi
    # analyze's top hint, to see whether it names this change (kind, subject, predicted gain).
    top="?"
    if "$revy" analyze "$trace" --cores "$cores" --format json >"$work/$name.analyze" 2>/dev/null; then
        top=$(json '(lambda h: "%s %s %s" % (h[0]["kind"], h[0]["subject"], h[0]["numbers"].get("predicted_speedup", "")) if h else "-")(j["hints"])' <"$work/$name.analyze")
    fi
    echo "   analyze's top hint: $top" >&2
    tops+=("$name: $top")

    for v in "$seq" "$par"; do
        (cd "$v" && bash -c "$(command_of "$v" build)") >/dev/null
    done
    best_seq=""
    best_par=""
    for _ in $(seq 1 "$runs"); do
        s=$(elapsed "$seq")
        q=$(elapsed "$par")
        best_seq=$(python3 -c 'import sys; a = [float(x) for x in sys.argv[1:] if x]; print(min(a))' "$s" "$best_seq")
        best_par=$(python3 -c 'import sys; a = [float(x) for x in sys.argv[1:] if x]; print(min(a))' "$q" "$best_par")
    done
    row=$(python3 - "$name" "$lang" "$shape" "$pattern" "$best_seq" "$best_par" "$predicted" <<'EOF'
import sys
name, lang, shape, pattern, s, q, pred = sys.argv[1:]
s, q = float(s), float(q)
measured = s / q
if pred:
    pred = float(pred)
    err = (pred - measured) / measured
    print(f"| {name} | {lang} | {shape} | {pattern} | {s:.0f} | {q:.0f} | {measured:.2f}x | {pred:.2f}x | {err * 100:+.1f} % |")
else:
    print(f"| {name} | {lang} | {shape} | {pattern} | {s:.0f} | {q:.0f} | {measured:.2f}x | n/a | n/a |")
EOF
)
    row="$row $(cut -d' ' -f1 /proc/loadavg) |"
    rows+=("$row")
    echo "$row" >&2
    err=$(echo "$row" | awk -F'|' '{gsub(/[ %+]/, "", $10); print $10}')
    if [ -n "$tolerance" ]; then
        if [ "$err" = "n/a" ] ||
            python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1])) > 100 * float(sys.argv[2]) else 1)' "$err" "$tolerance"; then
            echo "FAIL $name: error $err % beyond the tolerance $tolerance" >&2
            failed=1
        fi
        if [ "$name" = chain ] && [ -n "$predicted" ] &&
            python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 1.05 else 1)' "$predicted"; then
            echo "FAIL chain: predicted ${predicted}x, a synchronous chain must be <= 1.05x" >&2
            failed=1
        fi
    fi
done

echo
echo "| program | language | shape | change (--active) | sequential ms | parallel ms | measured | predicted | error | load |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "revy analyze --cores $cores, top hint (kind, subject, predicted speedup):"
printf '  %s\n' "${tops[@]}"
echo
echo "minimum of $runs runs each; error = (predicted - measured) / measured;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) after"
exit "$failed"
