#!/usr/bin/env bash
# Advice checked against reality: for each program under tests/advice, profile the sequential
# version with Revy, ask `revy whatif` for the change each hand-written parallel version makes
# (on this machine's cores; a program may have several, `par`, `par-writer`…), measure all
# versions (several runs each, interleaved, the minimum of each), print predicted against
# measured speedup and the error, and whether `revy analyze`'s top proposal names the change
# measured best ("top proposal: X — measured best: Y — agrees/disagrees").
#
#   tests/advice/check.sh [--tolerance FRACTION] [--runs N] [--only NAME[,NAME…]] [--boost] [--keep]
#                         [--load N]
#
# When the project's handoff was kept in two states (revy's calibration windows disagree by 2x or
# more: this VM's wake-ups flip between a fast and a slow state over seconds), whatif predicts a
# range as well (`handoff_range`): the error is then against the range's nearest end (0 inside
# it), and the table shows "point (low-high)". Right before and after each program's measured
# runs the handoff is measured again (`revy whatif` on a scratch copy of the manifest whose
# .revy/machine.toml keeps all but the handoff, so only that is measured, ~2 s) and printed, so the
# output shows which state the machine was in while the speedups were measured.
# --tolerance 0.15 makes it exit 1 when any |error| is larger, when the synchronous chain is
# predicted above 1.05x, and when the top proposal names a hand-made change measured more
# than that fraction below the best; without it the tables are only printed. Programs report their own
# elapsed time on stderr (`elapsed_ms=`), so JVM start-up is left out of both versions.
# --boost runs the profiled run, `revy whatif` (it measures the handoff) and each measured run
# in a session of its own whose scheduler autogroup gets nice -20 (needs root): on a machine
# shared with other jobs, the closest to a quiet one (other jobs keep a small share; a
# real-time policy would starve the JVM's compiler threads and is no substitute).
# --only runs the named programs only (several: comma-separated, e.g. finegrained,telemetry).
# --keep leaves the work folder (copies, traces, whatif/analyze JSON) for a closer look.
# --load N profiles each program twice, quietly and again beside N CPU hogs (busy shell loops
# started and ended by this script), asks whatif and analyze about both traces, and measures
# the speedups quietly: a second table gives, per program, the quiet and the loaded
# prediction, their difference and both top proposals (with --tolerance, a loaded prediction
# more than 10 % off the quiet one, or another top proposal, fails). REVY=path runs that
# binary instead of building target/release/revy.
set -euo pipefail

tolerance=""
runs=5
only=""
prio=()
keep=""
hog_count=0
while [ $# -gt 0 ]; do
    case "$1" in
        --tolerance) tolerance="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --boost) prio=(setsid -w bash -c 'echo -20 >/proc/self/autogroup && exec "$@"' boost); shift ;;
        --keep) keep=1; shift ;;
        --load) hog_count="$2"; shift 2 ;;
        *) echo "usage: $0 [--tolerance FRACTION] [--runs N] [--only NAME[,NAME…]] [--boost] [--keep] [--load N]" >&2; exit 2 ;;
    esac
done

# name | language | shape | hand-made versions, each DIR=--active pattern | further whatif
# options (the par versions' own). A program may have several hand-made versions: each is
# measured and predicted, and analyze's top proposal is checked against the best measured.
programs=(
    "workers|Java|independent workers|par=workers.Worker|"
    "pipeline|C++|unbalanced pipeline|par=Transformer par-writer=Writer|"
    "chain|Java|synchronous chain|par=chain.Lexer|"
    "finegrained|C++|fine-grained messages|par=Histogram|"
    "distribute|Java|distribution, 2 MiB messages|par=distribute.Analyzer|--latency 1ms --bandwidth 1000000000"
    "telemetry|C++|10 M counted (throttled) calls|par=tele::LatencyStats|"
    "channels|Java|pipeline blocking on wait() channels|par=channels.Scorer|"
    "preempted|Java|worker preempted by 2 hogs|par=preempted.Auditor|"
)

repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${REVY:-}" ]; then
    revy="$REVY"
else
    (cd "$repo" && cargo build --release -q -p revy)
    revy="$repo/target/release/revy"
fi
cores=$(nproc)

work=$(mktemp -d)
hogs=()
stop_hogs() {
    if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi
    hogs=()
}
start_hogs() { # N
    for _ in $(seq 1 "$1"); do
        bash -c 'while :; do :; done' &
        hogs+=("$!")
    done
}
if [ -n "$keep" ]; then
    echo "work folder (traces, whatif and analyze output): $work"
    trap stop_hogs EXIT
else
    trap 'stop_hogs; rm -rf "$work"' EXIT
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

# The handoff as `revy` measures it now (its windows over 2 s, nothing else: the other
# kept costs copied), on a scratch copy of NAME's manifest: "2.01 µs (one state)" or
# "2.01 µs (two states: fast 1.95 µs, slow 14.2 µs, 30 % slow)", then the wake-up curve
# measured with it ("; wake-up after idling 0: 4.0, 20: 28.1, … µs": idle µs: wake-up µs).
handoff_now() { # NAME
    local scratch="$work/handoff-now/$1" seq="$work/advice/$1/seq"
    rm -rf "$scratch" && mkdir -p "$scratch"
    cp "$seq/revy.toml" "$scratch/"
    mkdir -p "$scratch/.revy"
    # The project's kept costs but the handoff: whatif measures only what is missing.
    python3 -c 'import re, sys; t = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(re.sub(r"(?ms)^\[handoff\]\n.*?(?=^\[|\Z)", "", t))' \
        "$seq/.revy/machine.toml" "$scratch/.revy/machine.toml"
    ${prio[@]+"${prio[@]}"} "$revy" -m "$scratch/revy.toml" whatif "$trace" --active "$first_pattern" \
        --format json >/dev/null 2>&1 || true
    python3 - "$scratch/.revy/machine.toml" <<'EOF3'
import sys, tomllib
try:
    h = tomllib.load(open(sys.argv[1], "rb"))["handoff"]
except Exception:
    print("not measured")
    sys.exit()
us = lambda ns: f"{ns / 1000:.2f} µs"
fast, slow = h.get("fast_ns"), h.get("slow_ns")
if fast and slow and slow >= 2 * fast:
    line = f"{us(h['ns'])} (two states: fast {us(fast)}, slow {us(slow)}, {h.get('slow_share', 0) * 100:.0f} % slow)"
else:
    line = f"{us(h['ns'])} (one state)"
# The wake-up after idling, measured with it (revy's [wake_after_idle]).
c = tomllib.load(open(sys.argv[1], "rb")).get("wake_after_idle")
if c:
    pts = zip(c["idle_ns"], c["wake_ns"])
    line += "; wake-up after idling " + ", ".join(f"{i / 1000:.0f}: {w / 1000:.1f}" for i, w in pts) + " µs"
    if c.get("slow_wake_ns"):
        line += " (two states, slow end " + ", ".join(f"{w / 1000:.1f}" for w in c["slow_wake_ns"]) + " µs)"
print(line)
EOF3
}

# A field of a JSON document on stdin, by a Python expression over `j`.
json() { python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# Profiles NAME's sequential version beside HOGS CPU hogs, then (hogs stopped) asks analyze
# for its top hint and whatif for each hand-made version's change: sets trace, top, preds.
profile_predict() { # NAME TAG HOGS VERSIONS EXTRA
    local name=$1 tag=$2 n=$3 versions=$4 extra=$5 seq="$work/advice/$1/seq" v dir pattern
    echo "== $name: profile ($tag, $n hogs)" >&2
    start_hogs "$n"
    if ! (cd "$seq" && ${prio[@]+"${prio[@]}"} "$revy" profile >"$work/$name.$tag.profile" 2>&1); then
        stop_hogs
        cat "$work/$name.$tag.profile" >&2
        exit 1
    fi
    stop_hogs
    trace="$seq/$(sed -n 's/^trace: //p' "$work/$name.$tag.profile")"
    # analyze's top hint, to see whether it names the change that pays most (kind, subject,
    # class, predicted gain).
    top="?"
    # With the project's manifest: its handoff and enqueue cost, measured once (at the first
    # profile, quietly) and kept in .revy/machine.toml, so both traces replay on one machine.
    if "$revy" -m "$seq/revy.toml" analyze "$trace" --cores "$cores" --format json >"$work/$name.$tag.analyze" 2>/dev/null; then
        top=$(json '(lambda h: "%s|%s|%s|%s|%s" % (h[0]["kind"], h[0]["subject"], h[0].get("class") or "", "pool" if h[0].get("method") is not None else "object", h[0]["numbers"].get("predicted_speedup", "")) if h else "-")(j["hints"])' <"$work/$name.$tag.analyze")
    fi
    echo "   analyze's top hint ($tag): $top" >&2
    preds=()
    for v in $versions; do
        dir="${v%%=*}"
        pattern="${v#*=}"
        echo "== $name/$dir ($tag): whatif --active $pattern $extra" >&2
        # shellcheck disable=SC2086 # $extra is a list of options
        if ${prio[@]+"${prio[@]}"} "$revy" -m "$seq/revy.toml" whatif "$trace" --active "$pattern" --cores "$cores" $extra --format json \
            >"$work/$name.$dir.$tag.whatif" 2>"$work/$name.$dir.$tag.whatif.err"; then
            # point;low;high (low and high: the handoff range's ends, when there is one)
            preds+=("$(json '";".join(str(x) for x in [j["predicted_speedup"]] + ([j["handoff_range"]["speedup_low"], j["handoff_range"]["speedup_high"]] if "handoff_range" in j else ["", ""]))' <"$work/$name.$dir.$tag.whatif")")
        else
            echo "revy whatif failed: $(head -c 300 "$work/$name.$dir.$tag.whatif.err")" >&2
            preds+=("")
        fi
    done
}

echo "machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
rows=()
tops=()
handoffs=()
loaded_rows=()
failed=0
for p in "${programs[@]}"; do
    IFS='|' read -r name lang shape versions extra <<<"$p"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
    seq="$work/advice/$name/seq"
    dirs=("$seq")
    pats=()
    first_pattern=""
    for v in $versions; do
        [ -n "$first_pattern" ] || first_pattern="${v#*=}"
        dirs+=("$work/advice/$name/${v%%=*}")
        pats+=("${v%%=*}=${v#*=}")
    done
    quiet_top=""
    quiet_preds=()
    if [ "$hog_count" -gt 0 ]; then
        profile_predict "$name" quiet 0 "$versions" "$extra"
        quiet_top=$top
        quiet_preds=(${preds[@]+"${preds[@]}"})
        profile_predict "$name" loaded "$hog_count" "$versions" "$extra"
        out=$(python3 - "$name" "$tolerance" "$quiet_top" "$top" "${pats[@]}" -- \
            ${quiet_preds[@]+"${quiet_preds[@]}"} -- ${preds[@]+"${preds[@]}"} <<'EOF2'
import sys
name, tol, qtop, ltop = sys.argv[1:5]
rest = sys.argv[5:]
cut = rest.index("--")
pats, rest = rest[:cut], rest[cut + 1:]
cut = rest.index("--")
quiet, loaded = rest[:cut], rest[cut + 1:]
def key(top):
    p = top.split("|")
    return (p[0], p[2], p[3]) if len(p) == 5 else (top,)
def shown(top):
    p = top.split("|")
    if len(p) != 5:
        return top
    return f"{p[0]} {p[1]}" + (f" ({float(p[4]):.2f}x)" if p[4] else "")
same = "same" if key(qtop) == key(ltop) else "OTHER"
fails = [] if same == "same" or not tol else [f"FAIL {name}: top hint under load differs"]
for pat, q, l in zip(pats, quiet, loaded):
    q, l = q.split(";")[0], l.split(";")[0]
    if q and l:
        d = (float(l) - float(q)) / float(q)
        cell = f"{float(q):.2f}x | {float(l):.2f}x | {d * 100:+.1f} %"
        if tol and abs(d) > 0.10:
            fails.append(f"FAIL {name}/{pat}: loaded prediction {d * 100:+.1f} % off the quiet one")
    else:
        cell = "n/a | n/a | n/a"
    print(f"LROW| {name} | {pat} | {cell} | {shown(qtop)} | {shown(ltop)} | {same} |")
for f in fails:
    print(f"FAILED|{f}")
EOF2
)
        while IFS= read -r line; do
            case "$line" in
                LROW\|*) loaded_rows+=("${line#LROW}") ;;
                FAILED\|*) echo "${line#FAILED|}" >&2; failed=1 ;;
            esac
        done <<<"$out"
        # The main table compares the quiet prediction with the (quiet) measurement.
        top=$quiet_top
        preds=(${quiet_preds[@]+"${quiet_preds[@]}"})
    else
        profile_predict "$name" quiet 0 "$versions" "$extra"
    fi
    for v in "${dirs[@]}"; do
        (cd "$v" && bash -c "$(command_of "$v" build)") >/dev/null
    done
    # Interleaved: seq, par, par-…, seq, … ; the minimum of each. The handoff measured
    # again right before and after, to show which state the machine was in meanwhile.
    beside=("$(handoff_now "$name")")
    best=()
    for _ in $(seq 1 "$runs"); do
        for i in "${!dirs[@]}"; do
            t=$(elapsed "${dirs[$i]}")
            best[i]=$(python3 -c 'import sys; a = [float(x) for x in sys.argv[1:] if x]; print(min(a))' "$t" "${best[i]:-}")
        done
    done
    beside+=("$(handoff_now "$name")")
    echo "   handoff beside the measurement: before ${beside[0]}; after ${beside[1]}" >&2
    handoffs+=("$name: before ${beside[0]}; after ${beside[1]}")
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$(python3 - "$name" "$lang" "$shape" "$load" "$tolerance" "$top" "${best[0]}" \
        "${pats[@]}" -- "${best[@]:1}" -- "${preds[@]}" <<'EOF'
import sys
name, lang, shape, load, tol, top, s = sys.argv[1:8]
rest = sys.argv[8:]
cut = rest.index("--")
pats = rest[:cut]
rest = rest[cut + 1:]
cut = rest.index("--")
pars, preds = rest[:cut], rest[cut + 1:]
s = float(s)
fails, measured = [], {}
for pat, q, pred in zip(pats, pars, preds):
    d, pattern = pat.split("=", 1)
    q = float(q)
    m = s / q
    measured[pattern] = m
    pred, low, high = (pred.split(";") + ["", ""])[:3]
    if pred:
        if low and high:
            # A range (the handoff in two states): the error against its nearest end,
            # none inside it.
            low, high = float(low), float(high)
            near = min(max(m, low), high)
            e = (near - m) / m
            pe = f"{float(pred):.2f}x ({low:.2f}-{high:.2f}x) | {e * 100:+.1f} %"
        else:
            e = (float(pred) - m) / m
            pe = f"{float(pred):.2f}x | {e * 100:+.1f} %"
        if tol and abs(e) > float(tol):
            fails.append(f"FAIL {name}/{d}: error {e * 100:+.1f} % beyond the tolerance {tol}")
        if tol and name == "chain" and float(pred) > 1.05:
            fails.append(f"FAIL chain: predicted {float(pred):.2f}x, a synchronous chain must be <= 1.05x")
    else:
        pe = "n/a | n/a"
        if tol:
            fails.append(f"FAIL {name}/{d}: no prediction")
    print(f"ROW| {name} | {lang} | {shape} | {d}: `{pattern}` | {s:.0f} | {q:.0f} | {m:.2f}x | {pe} | {load} |")

# Does analyze's top hint name the change measured best? A pattern names a class
# (`pkg.Class`, `ns::Class`, `Class`); the hint names an instance or class of it.
def names(cls, pattern):
    short = lambda x: x.replace("::", ".").split(".")[-1]
    return cls == pattern or short(cls) == short(pattern)
best = max(measured, key=measured.get)
parts = top.split("|") if top.count("|") == 4 else ["?", top, "", "", ""]
kind, subject, cls, shape_, speed = parts
shown = f"{subject} ({float(speed):.2f}x)" if speed else subject
# A statement (no-gain) is no proposal: say so.
shown = f"top proposal: {shown}" if kind == "proposal" else f"top hint: {kind} {shown}"
if measured[best] < 1.05:
    # Nothing made by hand pays: analyze should not propose any of them.
    hit = [p for p in measured if kind == "proposal" and shape_ == "object" and names(cls, p)]
    verdict = "disagrees" if hit else "agrees (nothing pays)"
    msg = f"measured best: none pays ({best} {measured[best]:.2f}x)"
elif kind != "proposal" or shape_ != "object":
    verdict = "disagrees"
    msg = f"measured best: {best} {measured[best]:.2f}x"
else:
    mine = [p for p in measured if names(cls, p)]
    msg = f"measured best: {best} {measured[best]:.2f}x"
    if not mine:
        verdict = "unconfirmed (no hand-made version of it)"
    elif mine[0] == best:
        verdict = "agrees"
    else:
        m = measured[mine[0]]
        # Within the tolerance of the best, the measurement cannot tell them apart.
        close = tol and m >= measured[best] * (1 - float(tol))
        verdict = f"disagrees ({mine[0]} measured {m:.2f}x)" + (", within the tolerance" if close else "")
        if tol and not close:
            fails.append(f"FAIL {name}: analyze's top proposal {subject} is not the change that pays most ({best})")
print(f"TOP| {name}: {shown} — {msg} — {verdict}")
for f in fails:
    print(f"FAILED|{f}")
EOF
)
    while IFS= read -r line; do
        case "$line" in
            ROW\|*) rows+=("${line#ROW}"); echo "${line#ROW}" >&2 ;;
            TOP\|*) tops+=("${line#TOP| }"); echo "   ${line#TOP| }" >&2 ;;
            FAILED\|*) echo "${line#FAILED|}" >&2; failed=1 ;;
        esac
    done <<<"$out"
done

echo
echo "| program | language | shape | version: change (--active) | sequential ms | parallel ms | measured | predicted | error | load |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "revy analyze --cores $cores, top hint against the hand-made change measured best:"
printf '  %s\n' "${tops[@]}"
if [ "$hog_count" -gt 0 ]; then
    echo
    echo "recorded quietly and beside $hog_count CPU hogs (speedups measured quietly):"
    echo "| program | version | quiet prediction | loaded prediction | difference | quiet top hint | loaded top hint | top |"
    echo "|---|---|---:|---:|---:|---|---|---|"
    printf '%s\n' "${loaded_rows[@]}"
fi
echo
echo "the handoff measured right before and after each program's runs (revy's windows):"
printf '  %s\n' "${handoffs[@]}"
echo
echo "minimum of $runs runs each; error = (predicted - measured) / measured," \
    "against the nearest end of the range when the handoff was kept in two states (then: point (low-high));" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) after"
exit "$failed"
