#!/usr/bin/env bash
# Exact counts on every run: the bank example (projects/account), the getter case
# (tests/fidelity/getter: Product.getSku called 1,650,000 times) and 3 x 1,500 C++ shapes
# (tests/fidelity/shapes), each annotated once and run N times (optionally beside CPU hogs).
# Per run it checks, from `revy analyze --format json`: every method's calls and every
# class's creations equal the expected ones (the program's own counts), no method that was
# called shows zero net time, and the run length is the same in analyze, whatif, estimate
# and the report. Prints one row per program; exits 1 when any run misses.
#
#   tests/fidelity/counts.sh [--runs N] [--load N]    (REVY=path: that binary, else
#                                                      target/debug/revy, built if missing)
set -euo pipefail

runs=10
hog_count=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --load) hog_count="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--load N]" >&2; exit 2 ;;
    esac
done

repo=$(cd "$(dirname "$0")/../.." && pwd)
revy="${REVY:-$repo/target/debug/revy}"
[ -x "$revy" ] || (cd "$repo" && cargo build -q -p revy)
work=$(mktemp -d)
hogs=()
trap 'if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
for _ in $(seq 1 "$hog_count"); do
    bash -c 'while :; do :; done' &
    hogs+=("$!")
done

cp -r "$repo/projects/account" "$work/account"
cp -r "$repo/tests/fidelity/getter" "$repo/tests/fidelity/shapes" "$work/"

# name | folder | whatif --active pattern | expected calls (method=N,...) | expected
# creations (class=N,...); calls of methods not listed must only agree across runs.
programs=(
    "bank|account|bank.Account||bank.Person=3,bank.Account=3"
    "getter|getter|shop.Product|shop.Product.getSku=1650000,shop.Shop.stock=1,shop.Shop.restock=1|shop.Product=1500,shop.Shop=1"
    "shapes|shapes|geo::Square||geo::Square=1500,geo::Circle=1500,geo::Polygon=1500"
)

echo "| program | runs | exact counts | zeroed methods | one run length | calls of the first run | creations |"
echo "|---|---:|---:|---:|---:|---|---|"
failed=0
for p in "${programs[@]}"; do
    IFS='|' read -r name dir pattern calls created <<<"$p"
    d="$work/$dir"
    (cd "$d" && "$revy" parse >/dev/null && "$revy" annotate >/dev/null)
    for i in $(seq 1 "$runs"); do
        (cd "$d" && "$revy" run >"$work/$name.$i.run" 2>&1) || { cat "$work/$name.$i.run" >&2; exit 1; }
        t=$(cd "$d" && ls -t .revy/traces/*.rvt | head -1)
        "$revy" analyze "$d/$t" --format json >"$work/$name.$i.analyze" 2>/dev/null
        "$revy" whatif "$d/$t" --active "$pattern" --format json >"$work/$name.$i.whatif" 2>/dev/null
        "$revy" estimate "$d/$t" --format json >"$work/$name.$i.estimate" 2>/dev/null
        "$revy" report "$d/$t" -o "$work/$name.$i.html" >/dev/null 2>&1
    done
    (cd "$d" && "$revy" restore >/dev/null)
    row=$(python3 - "$work" "$name" "$runs" "$calls" "$created" <<'PY'
import json, re, sys
work, name, runs, calls, created = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
want_calls = dict((k, int(v)) for k, v in (x.rsplit("=", 1) for x in calls.split(",") if x))
want_made = dict((k, int(v)) for k, v in (x.rsplit("=", 1) for x in created.split(",") if x))
first, exact, zeroed, same_len, notes = None, 0, 0, 0, []
for i in range(1, runs + 1):
    a = json.load(open(f"{work}/{name}.{i}.analyze"))
    got = {f"{m['class']}.{m['method']}{m['signature']}": m["calls"] for m in a["methods"]}
    short = {}
    for m in a["methods"]:
        short[f"{m['class']}.{m['method']}"] = short.get(f"{m['class']}.{m['method']}", 0) + m["calls"]
    made = {c["class"]: c["created"] for c in a["classes"] if c["created"]}
    first = first or (got, made)
    ok = got == first[0] and all(short.get(k) == v for k, v in want_calls.items())
    ok = ok and made == want_made
    exact += ok
    if not ok:
        notes.append(f"run {i}: calls {[(k, short.get(k)) for k in want_calls]} creations {made}")
    z = [f"{m['class']}.{m['method']}" for m in a["methods"] if m["calls"] and m["net_time"]["total"] == 0]
    zeroed += bool(z)
    if z:
        notes.append(f"run {i}: zeroed {z}")
    span = a["totals"]["run_span"]
    w = json.load(open(f"{work}/{name}.{i}.whatif"))
    e = json.load(open(f"{work}/{name}.{i}.estimate"))
    html = open(f"{work}/{name}.{i}.html").read()
    lens = {span, w["run_span"], e["runs"][0]["run_span"]}
    m = re.search(r'"run_span":(\d+)', html)
    lens.add(int(m.group(1)) if m else -1)
    same_len += len(lens) == 1
    if len(lens) != 1:
        notes.append(f"run {i}: run lengths {sorted(lens)}")
calls_shown = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(first[0].items()))
made_shown = ", ".join(f"{k} {v}" for k, v in sorted(first[1].items()))
print(f"| {name} | {runs} | {exact}/{runs} | {zeroed}/{runs} | {same_len}/{runs} | {calls_shown} | {made_shown} |")
for n in notes:
    print(f"NOTE {name}: {n}")
if exact != runs or zeroed or same_len != runs:
    print("FAILED")
PY
)
    while IFS= read -r line; do
        case "$line" in
            FAILED) failed=1 ;;
            NOTE*) echo "$line" >&2 ;;
            *) echo "$line" ;;
        esac
    done <<<"$row"
done
echo
echo "$runs runs each$([ "$hog_count" -gt 0 ] && echo " beside $hog_count CPU hogs"), $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg) after"
exit "$failed"
