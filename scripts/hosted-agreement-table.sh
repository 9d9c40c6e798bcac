#!/usr/bin/env bash
# The "A library in simulated time" table of docs/agreement.md (issue 39):
# for every catalog Redis story, `locksim run STORY --lock lib:redis-py
# --seed 1` (the unmodified redis-py in a real process, in simulated time)
# beside the live lib:redis-py outcome and the port's (token, simulated),
# both read from the same document's library table (its measured rows; a
# story without a lib:redis-py row there shows "—"). The simulated-time
# column is deterministic, so ctest hosted_agreement re-runs it with
# --check: a row that differs from what its run gives now fails.
#
#   scripts/hosted-agreement-table.sh [LOCKSIM_BINARY]          # rewrites the table (every story)
#   scripts/hosted-agreement-table.sh --check [LOCKSIM_BINARY]  # checks the rows (CI: a subset, below)
#
# --check runs, with $LOCKSIM_HOSTED_AGREEMENT unset, the CI subset: one
# story per distinct simulated-time outcome, every row that differs (each
# cause), a story with replicas and one of five masters, and the refused
# story (13 stories, 9-12 s on the loaded 2-core machine); "all", every
# story (39, 65-85 s there, 3.5 min at load 13).
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
if [[ ${1:-} == --check ]]; then check=true; shift; fi
bin=$(realpath "${1:-build/locksim}")
subset="aof-everysec-power-loss delayed-packet gc-pause flash-sale-gate flash-sale-gate-unique
        flash-sale-gate-winner-crash inventory-race inventory-lock-gc-pause redis-py-reacquire-no-timeout
        redlock-slow-client-clock replica-failover redlock-pause-after-acquire node-redlock-late-grant"
stories=$("$bin" list --format json | /usr/bin/python3 -c '
import json, sys
print(" ".join(s["name"] for s in json.load(sys.stdin)["scenarios"] if not s["name"].startswith(("etcd-", "zk-"))))')
if $check && [[ ${LOCKSIM_HOSTED_AGREEMENT:-} != all ]]; then stories=$subset; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for story in $stories; do
  code=0
  NO_COLOR=1 "$bin" run "$story" --lock lib:redis-py --seed 1 --format json > "$work/$story.json" 2> "$work/$story.err" ||
    code=$?
  echo "$code" > "$work/$story.code"
done
/usr/bin/python3 - "$check" "$work" $stories <<'PY'
import json, os, re, sys

check, work, stories = sys.argv[1] == "true", sys.argv[2], sys.argv[3:]
doc_path = "docs/agreement.md"
doc = open(doc_path).read().split("\n")
BEGIN, END = "<!-- hosted-table:begin -->", "<!-- hosted-table:end -->"


def library_rows():
    """scenario -> (live outcome, port simulated, the report's mark) of lib:redis-py's measured rows."""
    rows, on = {}, False
    for line in doc:
        on = (on or line == "<!-- library-table:begin -->") and line != "<!-- library-table:end -->"
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if on and len(cells) >= 7 and cells[1] == "lib:redis-py":
            rows[cells[0]] = (cells[2], cells[4], cells[6])
    return rows


def simulated(story):
    code = int(open(os.path.join(work, story + ".code")).read())
    if code > 1:
        err = [l for l in open(os.path.join(work, story + ".err")).read().split("\n") if l.startswith("locksim:")]
        text = err[-1][len("locksim: "):] if err else "exit %d" % code
        # Without the adapter's command line (a path of this checkout).
        text = re.sub(r" \(request: .*\)$", "", re.sub(r"adapter \([^)]*\)", "adapter", text))
        return "exit %d: %s" % (code, text.replace("|", "\\|"))
    run = json.load(open(os.path.join(work, story + ".json")))
    kinds = sorted({v["kind"] for v in run["violations"]})
    return ", ".join(kinds) or "none"


def row(story, live_rows):
    sim = simulated(story)
    live, port_sim, mark = live_rows.get(story, ("—", "—", ""))
    diffs = [name for name, other in (("live", live), ("port", port_sim)) if other != "—" and other != sim]
    agree = "yes" if not diffs else "**differs from " + " and ".join(diffs) + "**"
    if sim.startswith("exit "):
        agree = "refused"
    elif mark.startswith("not this library"):
        agree += "; " + mark
    return "| %s | %s | %s | %s | %s |" % (story, sim, live, port_sim, agree)


live_rows = library_rows()
rows = [row(s, live_rows) for s in stories]
begin, end = doc.index(BEGIN), doc.index(END)
if check:
    table = {l.split("|")[1].strip(): l for l in doc[begin + 1:end] if l.startswith("| ") and not l.startswith("| scenario")}
    bad = [(r, table.get(r.split("|")[1].strip(), "(no row)")) for r in rows if table.get(r.split("|")[1].strip()) != r]
    for now, written in bad:
        print("hosted-agreement: docs/agreement.md says\n  %s\nbut the run gives now\n  %s" % (written, now), file=sys.stderr)
    print("hosted-agreement: %d rows checked, %d differ (scripts/hosted-agreement-table.sh rewrites the table)" % (len(rows), len(bad)))
    sys.exit(1 if bad else 0)
header = ["", "| scenario | lib:redis-py, simulated time (seed 1) | lib:redis-py, live | token (port), simulated | agree? |",
          "|---|---|---|---|---|"]
doc[begin + 1:end] = header + rows + [""]
open(doc_path, "w").write("\n".join(doc))
print("hosted-agreement: docs/agreement.md's simulated-time table rewritten (%d rows)" % len(rows))
PY
