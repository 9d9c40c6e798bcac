#!/usr/bin/env bash
# The CI workflows (docs/ci.md): locksim's own (.github/workflows/ci.yml) and
# the one a user copies with examples/custom-lock. Each parses as YAML with
# jobs and steps; every script a step runs exists, executable, in the
# repository the workflow belongs to; locksim's own runs exactly the
# README's test command; the example's runs ci/test-my-lock.sh (the script
# ctest example_custom_lock runs, so the workflow cannot drift from what is
# tested) and uploads the failing-examples folder when it fails; docs/ci.md
# shows both as they are.
#   ci_workflows.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
exec /usr/bin/python3 - "$src" <<'PY'
import os, re, sys
import yaml  # python3-yaml (scripts/setup.sh)

src = sys.argv[1]
def fail(msg):
    print("ci_workflows: " + msg)
    sys.exit(1)

def steps_of(path):
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        fail(f"{path}: {e}")
    # YAML 1.1 reads the key `on` as true.
    if not isinstance(doc, dict) or not doc.get("jobs") or ("on" not in doc and True not in doc):
        fail(f"{path}: no `on` or `jobs`")
    steps = []
    for name, job in doc["jobs"].items():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list) or not job["steps"]:
            fail(f"{path}: job {name} has no steps")
        for step in job["steps"]:
            if not isinstance(step, dict) or ("run" in step) == ("uses" in step):
                fail(f"{path}: job {name}: a step needs one of run or uses: {step}")
            steps.append(step)
    return steps

def check_scripts(path, root, steps):
    for step in steps:
        for word in re.findall(r"(?<![\w/.-])((?:\./)?(?:[\w.-]+/)+[\w.-]+\.sh)\b", step.get("run", "")):
            script = os.path.join(root, word)
            if not os.access(script, os.X_OK):
                fail(f"{path}: runs {word}, which is not an executable file in {root}")

def readme_test_command():
    with open(os.path.join(src, "README.md")) as f:
        for line in f:
            if "#" in line and "test suite" in line.split("#", 1)[1]:
                return line.split("#", 1)[0].strip()
    fail("README.md: no line with the test command (`... # ... test suite`)")

own = os.path.join(src, ".github/workflows/ci.yml")
steps = steps_of(own)
check_scripts(own, src, steps)
command = readme_test_command()
if not any(str(s.get("run", "")).strip() == command for s in steps):
    fail(f"{own}: no step runs exactly the README's test command: {command}")

example = os.path.join(src, "examples/custom-lock")
user = os.path.join(example, ".github/workflows/locksim.yml")
steps = steps_of(user)
check_scripts(user, example, steps)
if not any("ci/test-my-lock.sh" in str(s.get("run", "")) for s in steps):
    fail(f"{user}: no step runs ci/test-my-lock.sh")
with open(os.path.join(src, "tests/scripts/example_installed.sh")) as f:
    if "ci/test-my-lock.sh" not in f.read():
        fail("tests/scripts/example_installed.sh does not run ci/test-my-lock.sh: the workflow's step is untested")
uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
def keeps_examples(step):
    return step.get("if") == "failure()" and ".locksim/examples" in str(step.get("with", {}).get("path", ""))
if not any(keeps_examples(s) for s in uploads):
    fail(f"{user}: no actions/upload-artifact step of .locksim/examples/ on failure()")
# docs/ci.md shows both as they are: each file's YAML, its comment lines left out.
with open(os.path.join(src, "docs/ci.md")) as f:
    doc = f.read()
for path in (own, user):
    with open(path) as f:
        body = "".join(l for l in f if not l.lstrip().startswith("#"))
    if body not in doc:
        fail(f"docs/ci.md does not show {os.path.relpath(path, src)} as it is (its YAML without the comment lines)")
print("ci_workflows: both workflows parse, their scripts exist, and they run what is tested")
PY
