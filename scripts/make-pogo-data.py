#!/usr/bin/env python3
"""Generates IVScanner's compact game-data tables (Sources/IVScanner/Data/*.tsv) from the public
game-master data in ../shared/fixtures/pogo/data (see its SOURCES.md). Facts only: base
stats, candy families, Pokédex heights, CP multipliers and power-up costs.

- species.tsv: dex, species, form, attack, defense, stamina, family (the candy's name),
  evolve_candy (the candy its cheapest evolution costs, 0 when it does not evolve), height
  (the Pokédex height in metres, the form's where it has its own, 0 when not listed) and
  evolutions (the species it evolves into directly, ';'-separated, empty when none) for every
  species and form of the current game master (costume forms dropped: same stats).
- levels.tsv: level (1…55 by halves), CP multiplier (the game master's value at whole levels,
  √((a² + b²)/2) at half levels, as the game computes them), stardust, candy and XL candy to
  power up from that level.
- stats-YYYY-MM-DD.tsv: dated base-stat tables for old screenshots (GoIV's history): dex,
  species, attack, defense, stamina.

Usage: scripts/make-pogo-data.py [FIXTURES]
"""
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SENTIO_FIXTURES") or os.path.join(ROOT, "..", "shared", "fixtures")
DATA = os.path.join(FIXTURES, "pogo", "data")
OUT = os.path.join(ROOT, "Sources", "IVScanner", "Data")


def main():
    os.makedirs(OUT, exist_ok=True)
    seen = set()
    with open(os.path.join(DATA, "WatWowMap_master-latest-everything.json")) as f:
        pokedex = json.load(f)["pokemon"]

    def height(dex, form_id):
        entry = pokedex.get(dex, {})
        return entry.get("forms", {}).get(form_id, {}).get("height") or entry.get("height") or 0

    with open(os.path.join(DATA, "base_stats_by_form_WatWowMap.csv")) as f, open(os.path.join(OUT, "species.tsv"), "w") as out:
        out.write("dex\tspecies\tform\tattack\tdefense\tstamina\tfamily\tevolve_candy\theight\tevolutions\n")
        for r in csv.DictReader(f):
            if r["is_costume"] == "True":
                continue
            form = r["form_name"] or "Normal"
            key = (r["dex"], form)
            if key in seen:
                continue
            seen.add(key)
            # The candy the Evolve button shows: the cheapest evolution's (0: does not evolve).
            evolutions = [e.split(":")[0] for e in r["evolutions(target:candyCost)"].split(";") if ":" in e]
            costs = [int(e.split(":")[1]) for e in r["evolutions(target:candyCost)"].split(";") if ":" in e and e.split(":")[1].isdigit()]
            out.write("\t".join([r["dex"], r["species"], form, r["base_attack"], r["base_defense"], r["base_stamina"],
                                 r["candy_family_name"], str(min(costs) if costs else 0), str(height(r["dex"], r["form_id"])),
                                 ";".join(dict.fromkeys(evolutions))]) + "\n")
    with open(os.path.join(DATA, "cpm_and_powerup_costs_by_half_level.csv")) as f, open(os.path.join(OUT, "levels.tsv"), "w") as out:
        out.write("level\tcpm\tstardust\tcandy\txl_candy\n")
        for r in csv.DictReader(f):
            out.write("\t".join([r["level"], r["cpm_gm_or_sqrt_interp"], r["powerup_stardust_from_this_level"] or "0",
                                 r["powerup_candy_from_this_level"] or "0", r["powerup_xl_candy_from_this_level"] or "0"]) + "\n")
    for name in sorted(os.listdir(DATA)):
        if not name.startswith("goiv_base_stats_"):
            continue
        date = name[len("goiv_base_stats_"):][:10]
        with open(os.path.join(DATA, name)) as f, open(os.path.join(OUT, f"stats-{date}.tsv"), "w") as out:
            out.write("dex\tspecies\tattack\tdefense\tstamina\n")
            for r in csv.DictReader(f):
                out.write("\t".join([str(int(r["index(dex-1)"]) + 1), r["name"], r["base_attack"], r["base_defense"], r["base_stamina"]]) + "\n")
    print("wrote", ", ".join(sorted(os.listdir(OUT))))


if __name__ == "__main__":
    main()
