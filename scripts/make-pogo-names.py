#!/usr/bin/env python3
"""Generates Sources/IVScanner/Data/names.tsv: each species' name in the languages the game is
played in with the Latin alphabet (German, French, Spanish, Italian), where it differs from the
English one. The detail screen shows the name (and the candy's) in the player's language; the
scanner looks names up in this table as well as in species.tsv.

Facts only (one name per species and language), taken from PokéAPI's table of species names
(data/v2/csv/pokemon_species_names.csv; language ids 5 fr, 6 de, 7 es, 8 it, 9 en) in a
checkout of https://github.com/PokeAPI/pokeapi:

    scripts/make-pogo-names.py POKEAPI_CHECKOUT

Writes dex, language (ISO 639-1) and name, sorted by dex then language; species past the last
dex in species.tsv are left out.
"""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "IVScanner", "Data", "names.tsv")
LANGUAGES = {5: "fr", 6: "de", 7: "es", 8: "it"}
ENGLISH = 9
TABLE = "data/v2/csv/pokemon_species_names.csv"


def read_table(checkout):
    """The CSV from a work tree, or from HEAD of a bare clone."""
    path = os.path.join(checkout, TABLE)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    shown = subprocess.run(["git", "-C", checkout, "show", "HEAD:" + TABLE], capture_output=True)
    if shown.returncode != 0:
        sys.exit(f"make-pogo-names: no {TABLE} in {checkout}")
    return shown.stdout.decode("utf-8")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().split("\n\n")[2].strip())
    with open(os.path.join(ROOT, "Sources", "IVScanner", "Data", "species.tsv"), encoding="utf-8") as f:
        last_dex = max(int(r["dex"]) for r in csv.DictReader(f, delimiter="\t"))
    english, local = {}, {}
    for r in csv.DictReader(read_table(sys.argv[1]).splitlines()):
        dex, language = int(r["pokemon_species_id"]), int(r["local_language_id"])
        if dex > last_dex:
            continue
        if language == ENGLISH:
            english[dex] = r["name"]
        elif language in LANGUAGES:
            local[(dex, LANGUAGES[language])] = r["name"]
    rows = sorted((dex, lang, name) for (dex, lang), name in local.items() if name != english.get(dex))
    with open(OUT, "w", encoding="utf-8") as out:
        out.write("dex\tlanguage\tname\n")
        for dex, lang, name in rows:
            out.write(f"{dex}\t{lang}\t{name}\n")
    print(f"make-pogo-names: {len(rows)} names for {len({r[0] for r in rows})} species in {OUT}")


if __name__ == "__main__":
    main()
