#!/usr/bin/env python3
"""Runs every command block of the manual marked as runnable (issue 52): a fence whose info string
is `sh runnable` runs in bash (-e -u -o pipefail), `python runnable` in python3 with the built
module on PYTHONPATH. Each page's blocks run in order in one fresh folder of its own that holds
`build` (the build tree) and `samples` (the bundled sample), as the manual's commands name them
from the repository root. A failing block fails the test, naming the page, its line and its
output; so does a manual with no runnable block at all.
    manual_blocks.py REPO_ROOT BUILD_DIR WORK_DIR [PYTHON: the interpreter the module was built for]"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

root, build, work = (pathlib.Path(a).resolve() for a in sys.argv[1:4])
python = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else sys.executable
fence = re.compile(r"^```(\w+) runnable\s*$")
blocks = []  # (page, line, language, text)
for page in sorted((root / "docs" / "manual").glob("*.md")):
    lines = page.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = fence.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            blocks.append((page, i + 1, m.group(1), "\n".join(lines[i + 1:j])))
            i = j
        i += 1
if not blocks:
    print("manual_blocks: FAIL: no runnable block in docs/manual", file=sys.stderr)
    sys.exit(1)

env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           PYTHONPATH=str(build / "python"), OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
failures = 0
shutil.rmtree(work, ignore_errors=True)
for page, line, language, text in blocks:
    folder = work / page.stem
    if not folder.exists():
        folder.mkdir(parents=True)
        (folder / "build").symlink_to(build)
        (folder / "samples").symlink_to(root / "samples")
    if language in ("sh", "bash"):
        command = ["bash", "-euo", "pipefail", "-c", text]
    elif language == "python":
        if not (build / "python" / "rockperm").is_dir():
            print("manual_blocks: %s:%d skipped (no Python module in this build)" % (page.name, line))
            continue
        command = [python, "-c", text]
    else:
        print("manual_blocks: FAIL: %s:%d: no runner for '%s'" % (page.name, line, language), file=sys.stderr)
        failures += 1
        continue
    result = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        failures += 1
        print("manual_blocks: FAIL: %s:%d exited %d\n%s\n%s" % (page.name, line, result.returncode,
              result.stdout[-2000:], result.stderr[-2000:]), file=sys.stderr)
    else:
        print("manual_blocks: %s:%d ran" % (page.name, line))
sys.exit(1 if failures else 0)
