#!/usr/bin/env python3
"""The folder layout is the architecture: every project include follows the dependency
rules of the folder READMEs (docs/architecture.md), and no chain of includes comes back
to where it started. Exit 1 naming every breach."""
import os
import re
import sys

ROOT = sys.argv[1]
# Folder (longest prefix wins) -> the folders its files may include. Generated and
# Verilated headers (no folder in their include path) are always allowed.
ALLOWED = {
    "hal": {"hal"},
    "ops": {"ops", "hal"},
    "firmware": {"firmware", "hal"},
    "sim": {"sim", "firmware", "hal"},
    "testbench": {"testbench", "sim", "firmware", "ops", "hal"},
    "driver/isa_model": {"driver/isa_model", "firmware", "ops", "hal"},
    "driver/compiler": {"driver/compiler", "driver/isa_model", "firmware", "ops", "hal"},
    "driver/runtime": {"driver/runtime", "driver/compiler", "driver/isa_model", "firmware", "ops", "hal"},
    "driver/runtime/soc": {"driver/runtime", "driver/compiler", "driver/isa_model", "sim", "firmware", "ops", "hal"},
    "driver/api": {"driver/api", "driver/runtime", "driver/compiler", "driver/isa_model", "firmware", "ops", "hal"},
    "verify": {"verify", "driver", "firmware", "ops", "hal"},
    "frontend": {"frontend", "driver", "sim", "firmware", "ops", "hal"},
    "cli": {"cli", "frontend", "verify", "driver", "testbench", "sim", "firmware", "ops", "hal"},
    "python": {"python", "frontend", "verify", "driver", "testbench", "sim", "firmware", "ops", "hal"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room(path):
    best = None
    for r in ALLOWED:
        if path == r or path.startswith(r + "/"):
            if best is None or len(r) > len(best):
                best = r
    return best


def allowed(src_room, target):
    return any(target == a or target.startswith(a + "/") for a in ALLOWED[src_room])


files = {}
for top in sorted({r.split("/")[0] for r in ALLOWED}):
    for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
        for n in names:
            if n.endswith((".h", ".cc", ".def")):
                rel = os.path.relpath(os.path.join(dirpath, n), ROOT)
                files[rel] = [m for m in INCLUDE.findall(open(os.path.join(dirpath, n), encoding="utf-8").read())]

breaches = []
for f, incs in sorted(files.items()):
    r = room(f)
    if r is None:
        breaches.append(f"{f} is in no room of the layering rules")
        continue
    for inc in incs:
        if "/" not in inc:
            continue  # generated or Verilated headers
        if inc.split("/")[0] not in ALLOWED and not inc.startswith("driver/"):
            continue  # a third-party header with a path (nlohmann/, tlm_utils/, ...)
        if not allowed(r, inc):
            breaches.append(f"{f} ({r}) includes {inc}")

# Include cycles between project files (depth-first search over the include graph).
graph = {f: [i for i in incs if i in files] for f, incs in files.items()}
state, stack, cycles = {}, [], []


def visit(f):
    state[f] = 1
    stack.append(f)
    for g in graph[f]:
        if state.get(g) == 1:
            cycles.append(" -> ".join(stack[stack.index(g):] + [g]))
        elif g not in state:
            visit(g)
    stack.pop()
    state[f] = 2


sys.setrecursionlimit(10000)
for f in sorted(graph):
    if f not in state:
        visit(f)

print(f"{len(files)} files, {sum(len(v) for v in graph.values())} project includes: "
      f"{len(breaches)} layering breaches, {len(cycles)} include cycles")
for b in breaches:
    print("BREACH", b)
for c in cycles:
    print("CYCLE", c)
sys.exit(1 if breaches or cycles else 0)
