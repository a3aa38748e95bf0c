#!/usr/bin/env python3
"""Each folder of the sources includes only itself and the folders below it.

The layers, lowest first (lib/CMakeLists.txt and CMakeLists.txt build them in this order, one
library each):

    lib/base < lib/physics < lib/geometry < lib/lattice < lib/backend < lib/parallel < lib/solve
    < io, cuda < pipeline < app < python

io/ and cuda/ stand side by side (neither includes the other); python/, the Python module, is a
front end over app/'s option table. The static libraries catch an
upward call only where the object it names is not linked for another reason; this reads every
`#include "..."` of the sources and so catches each one. Prints every include that climbs, and
exits 1 if there is one.
    python3 tools/check_layers.py [ROOT]
"""
import os
import re
import sys

LAYERS = [
    ["lib/base"], ["lib/physics"], ["lib/geometry"], ["lib/lattice"], ["lib/backend"], ["lib/parallel"],
    ["lib/solve"], ["io", "cuda"], ["pipeline"], ["app"], ["python"],
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".cpp", ".hpp", ".cu", ".h")


def level(path):
    """(layer index, folder) of a repository path, or None outside the layers."""
    for i, folders in enumerate(LAYERS):
        for f in folders:
            if path == f or path.startswith(f + "/"):
                return i, f
    return None


def main(root):
    bad = []
    for folders in LAYERS:
        for folder in folders:
            for d, _, names in os.walk(os.path.join(root, folder)):
                for name in names:
                    if not name.endswith(SOURCES):
                        continue
                    path = os.path.relpath(os.path.join(d, name), root)
                    here = level(path)
                    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    for included in INCLUDE.findall(text):
                        there = level(included)
                        if there is None:
                            continue  # a system, generated or third-party header
                        if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1]):
                            where = "above" if there[0] > here[0] else "beside"
                            bad.append("%s includes %s (%s is %s %s)" % (path, included, there[1], where, here[1]))
    for b in bad:
        print("check_layers: " + b)
    if bad:
        return 1
    print("check_layers: every include stays in its layer or goes down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
