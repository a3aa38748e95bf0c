#!/usr/bin/env python3
"""Every repository path named in README.md, docs/ and the comments of the sources must exist.

A path is a word that starts with one of the repository's top-level folders (app/, lib/, cuda/, pipeline/,
io/, tests/, samples/, packaging/, docs/, tools/, .ci/) and names a file or folder; a word with a
placeholder (<, *, {, $) is a pattern and is skipped. Prints each missing path with where it is
named and exits 1 if there is one.
    python3 tools/check_paths.py [ROOT]
"""
import os
import re
import subprocess
import sys

TOP = ("app", "lib", "cuda", "io", "pipeline", "tests", "samples", "packaging", "docs", "tools", ".ci")
WORD = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w+])" % "|".join(re.escape(t) for t in TOP))
# words that look like paths and are not: a rate, and paths under an install prefix
NOT_PATHS = {"samples/min"}
ELSEWHERE = ("lib/cmake/", "lib/python3", "lib/x86_64-linux-gnu/")
SOURCES = (".cpp", ".hpp", ".cu", ".h", ".sh", ".py", ".cmake", ".txt", ".md", ".json", ".service", ".ini")


def tracked(root):
    """The files git tracks; every file but build outputs where the tree is not a git checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
        return [p for p in out.splitlines() if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".git", ".devbundle", "dist"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = [p for p in tracked(root) if p.endswith(SOURCES) or os.path.basename(p) in ("run", "CMakeLists.txt")]
    missing = []
    for rel in files:
        try:
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in WORD.finditer(line):
                word = m.group(1).rstrip(".")
                tail = line[m.end():m.end() + 1]
                if tail in "<*{$" and tail != "" or any(c in word for c in "<*{$"):
                    continue
                if word in NOT_PATHS or any(word.startswith(p) or word == p.rstrip("/") for p in ELSEWHERE):
                    continue
                here = os.path.dirname(rel)
                if not os.path.exists(os.path.join(root, word)) and not os.path.exists(os.path.join(root, here, word)):
                    missing.append("%s:%d: %s" % (rel, n, word))
    for m in missing:
        print(m)
    if missing:
        print("check_paths: %d repository path(s) named above do not exist; fix the reference or the path"
              % len(missing), file=sys.stderr)
        return 1
    print("check_paths: every repository path named in %d files exists" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
