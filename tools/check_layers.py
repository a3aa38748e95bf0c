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

Each folder of lib/ is also a namespace: lib/base is rockperm's own (the vocabulary every layer
uses: errors, host arrays, names), lib/geometry is rockperm::geometry, and so on; a file of lib/
opens no namespace but its folder's (or one inside it), apart from namespace aliases in rockperm
(d3q19 for physics::d3q19). Prints every file that does, too.
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
# a namespace opened at the top of a file: `namespace rockperm::x::y {` (group 1: "::x::y" or "")
OPENING = re.compile(r'^namespace rockperm((?:::\w+)*) \{', re.M)
# a `namespace rockperm {` block that holds only namespace aliases (and comments)
ALIASES_ONLY = re.compile(r'\{\n(?:\s*//[^\n]*\n|\s*namespace \w+ = [\w:]+;\n)*\}  // namespace rockperm\n')


def namespace_faults(path, text):
    """The namespaces a file of lib/ opens that are not its folder's."""
    folder = path.split("/")[1]
    faults = []
    for m in OPENING.finditer(text):
        inner = m.group(1)
        if folder == "base":
            ok = inner == "" or inner == "::detail"
        else:
            ok = inner == "::" + folder or inner.startswith("::" + folder + "::") or \
                (inner == "" and ALIASES_ONLY.match(text, m.end() - 1) is not None)
        if not ok:
            faults.append("%s opens namespace rockperm%s (lib/%s is %s)" %
                          (path, inner, folder, "rockperm" if folder == "base" else "rockperm::" + folder))
    return faults
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
                    if path.startswith("lib/"):
                        bad += namespace_faults(path, text)
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
    print("check_layers: every include stays in its layer or goes down; each folder of lib/ is its namespace")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
