#!/usr/bin/env python3
"""An independent brute force of PvP league ranks, for IVScanner's `leagueRanks` to be checked
against (Tests/IVScannerTests/LeagueRankTests.swift runs it).

Reads only the shipped game tables (Sources/IVScanner/Data: species.tsv and levels.tsv) and
computes, for random Pokémon and IVs (seeded), the rank in the Great (CP ≤ 1500), Ultra (≤ 2500)
and Master (no cap) leagues of the Pokémon and of each species it evolves into:

- CP = max(10, floor((A + a) · sqrt(D + d) · sqrt(S + s) · CPM² / 10)), HP = max(10, floor((S + s) · CPM));
- for each of the 4,096 IV combinations (or those with every IV ≥ the floor), the highest level
  up to the level cap (default 50) whose CP is within the league's cap; its stat product is
  (A + a)·CPM · (D + d)·CPM · HP, computed as (A + a)(D + d)·HP (exact integers) times CPM², so
  that products equal in exact arithmetic are equal here too;
- rank = 1 + the number of combinations with a strictly higher stat product (ties share a rank).

The loops are written out plainly, with none of the Swift code's structure, so that the two agree
only if both compute the game's rule.

Usage: scripts/reference/pvp_ranks.py [--count 50] [--seed 2026] [--max-level 50] [--floor 0]
Prints one JSON document: {"cases": [{"species", "form", "iv": [a, d, s], "evolutions": [
{"species", "form", "leagues": {"great": {"rank", "level", "cp", "statProduct"}, ...}}]}]}.
"""
import argparse
import csv
import json
import math
import os
import random

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "IVScanner", "Data")
CAPS = {"great": 1500, "ultra": 2500, "master": None}


def read(name):
    with open(os.path.join(DATA, name), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--max-level", type=float, default=50)
    p.add_argument("--floor", type=int, default=0)
    a = p.parse_args()

    species = read("species.tsv")
    levels = [(float(r["level"]), float(r["cpm"])) for r in read("levels.tsv") if float(r["level"]) <= a.max_level]

    def find(name, form):
        rows = [r for r in species if r["species"] == name]
        for wanted in (form, "Normal"):
            for r in rows:
                if r["form"] == wanted:
                    return r
        return rows[0] if rows else None

    def line(row):
        """The row and every species it evolves into, breadth first."""
        out, queue, seen = [row], [row], {row["species"]}
        while queue:
            current = queue.pop(0)
            for name in filter(None, current["evolutions"].split(";")):
                if name in seen:
                    continue
                seen.add(name)
                target = find(name, current["form"])
                if target is not None:
                    out.append(target)
                    queue.append(target)
        return out

    def best(row, ivs, cap):
        A, D, S = int(row["attack"]) + ivs[0], int(row["defense"]) + ivs[1], int(row["stamina"]) + ivs[2]
        found = None
        for level, m in levels:
            cp = max(10, math.floor(A * math.sqrt(D) * math.sqrt(S) * m * m / 10))
            if cap is not None and cp > cap:
                continue
            hp = max(10, math.floor(S * m))
            if found is None or level > found[0]:
                found = (level, cp, (A * D * hp) * m * m)
        return found

    rng = random.Random(a.seed)
    cases = []
    # Half the cases from species that evolve, so that evolution lines are well covered (most
    # species in the table are final forms).
    evolving = [r for r in species if r["evolutions"]]
    while len(cases) < a.count:
        row = rng.choice(evolving if len(cases) % 2 == 0 else species)
        ivs = [rng.randint(a.floor, 15) for _ in range(3)]
        evolutions = []
        for target in line(row):
            leagues = {}
            for league, cap in CAPS.items():
                mine = best(target, ivs, cap)
                if mine is None or best(target, [a.floor] * 3, cap) is None:
                    continue
                better = 0
                for x in range(a.floor, 16):
                    for y in range(a.floor, 16):
                        for z in range(a.floor, 16):
                            other = best(target, (x, y, z), cap)
                            if other is not None and other[2] > mine[2]:
                                better += 1
                leagues[league] = {"rank": better + 1, "level": mine[0], "cp": mine[1], "statProduct": mine[2]}
            evolutions.append({"species": target["species"], "form": target["form"], "leagues": leagues})
        cases.append({"species": row["species"], "form": row["form"], "iv": ivs, "evolutions": evolutions})
    print(json.dumps({"maxLevel": a.max_level, "floor": a.floor, "cases": cases}))


if __name__ == "__main__":
    main()
