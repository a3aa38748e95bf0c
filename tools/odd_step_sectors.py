#!/usr/bin/env python3
"""Counts the 32-byte sectors the fused odd step's stores to neighbours' slots touch (fp32, 8 slots a
sector) on a random sphere pack, numbered as the lattice numbers fluid cells (raster order, x fastest):
  - as the warps make them (32 consecutive cells, each storing at its neighbour's slot);
  - if each block of 256 cells wrote, per direction, the slots it owns in the order of the
    neighbours' numbers (a window of up to 512 entries, as a shared-memory staging would).
The difference says whether the excess sectors come from the warps' order (staging helps) or from
slots of one sector owned by cells of different blocks (the bounce-back owners: it does not).
It also counts the solid voxels a fluid cell links to: the cells a layout with wall cells of their
own (one owner per slot) would add.
docs/PERFORMANCE.md quotes its output.
  python3 tools/odd_step_sectors.py [EDGE=128] [RADIUS=8] [POROSITY=0.32] [SEED=1]
"""
import math
import random
import sys

edge, radius, porosity, seed = 128, 8, 0.32, 1
for a in sys.argv[1:]:
    k, v = a.split("=")
    if k == "EDGE": edge = int(v)
    elif k == "RADIUS": radius = int(v)
    elif k == "POROSITY": porosity = float(v)
    elif k == "SEED": seed = int(v)
    else: sys.exit("odd_step_sectors: unknown argument " + a)
N = edge
random.seed(seed)
solid = bytearray(N * N * N)
solid_count = 0
while 1 - solid_count / len(solid) > porosity:  # overlapping spheres, periodic, until the porosity
    cx, cy, cz = (random.randrange(N) for _ in range(3))
    for z in range(cz - radius, cz + radius + 1):
        for y in range(cy - radius, cy + radius + 1):
            r2 = radius * radius - (z - cz) ** 2 - (y - cy) ** 2
            if r2 < 0:
                continue
            w = math.isqrt(r2)
            base = ((z % N) * N + (y % N)) * N
            for x in range(cx - w, cx + w + 1):
                if not solid[base + x % N]:
                    solid[base + x % N] = 1
                    solid_count += 1
rank = [-1] * (N ** 3)
cells = []
for v in range(N ** 3):
    if not solid[v]:
        rank[v] = len(cells)
        cells.append(v)
half = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, -1, 0), (1, 0, -1), (0, 1, -1)]
directions = half + [(-a, -b, -c) for a, b, c in half]


def behind(v, d):  # the voxel a population along d streams from (periodic)
    x, y, z = v % N, (v // N) % N, v // (N * N)
    return (((z - d[2]) % N) * N + (y - d[1]) % N) * N + (x - d[0]) % N


block, room, sector = 256, 512, 8
warps = staged = 0
for b0 in range(0, len(cells), block):
    members = cells[b0:b0 + block]
    for d in directions:
        t = [rank[behind(v, d)] for v in members]
        for w in range(0, len(t), 32):
            warps += len({r // sector for r in t[w:w + 32] if r >= 0})
        mine = [r for r in t if r >= 0]
        if not mine:
            continue
        lo = min(mine)
        held = {r - lo for r in mine if r - lo < room}
        staged += len({r // sector for r in mine if r - lo >= room})
        for w in range(0, room, 32):
            staged += len({(lo + e) // sector for e in range(w, w + 32) if e in held})
walls = set()
for v in cells:
    for d in directions:
        u = behind(v, d)
        if solid[u]:
            walls.add(u)
print("pack %d^3, porosity %.3f, %d fluid cells" % (N, 1 - solid_count / len(solid), len(cells)))
print("solid voxels a fluid cell links to: %d (%.0f %% of the fluid cells)" % (len(walls), 100.0 * len(walls) / len(cells)))
print("sectors of the stores to neighbours' slots: as the warps make them %d, written in order per block %d"
      % (warps, staged))
