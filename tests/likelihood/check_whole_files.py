"""Check the readers and the download pins on the whole CrowS-Pairs and StereoSet files.

Only small excerpts of the datasets enter the repository (tests/likelihood/data), so the
test suite cannot read the whole files. Where they are at hand (a download, or the project's
shared data), this script checks that every pair and example parses, with the counts that the
datasets' papers and SOURCES.md give, and that the pinned checksums are the authors' files':

    python tests/likelihood/check_whole_files.py --crows-pairs crows_pairs_anonymized.csv \
        [--stereoset stereoset.json [--stereoset-examples 1295]]

Exit 0 when every check holds, 1 with one line per failed check otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wefe_same.errors import LikelihoodError
from wefe_same.likelihood.data import DOWNLOADS, checksum, read_crows_pairs, read_stereoset

#: Nangia et al. (2020), Table 1, and the dataset's README: 1,508 pairs.
CROWS_COUNTS = {
    "direction": {"stereo": 1290, "antistereo": 218},
    "bias_type": {"race-color": 516, "gender": 262, "socioeconomic": 172, "nationality": 159, "religion": 105,
                  "age": 87, "sexual-orientation": 84, "physical-appearance": 63, "disability": 60},
}
#: The CrowS-Pairs file's git blob id in nyu-mll/crows-pairs @ 8aaac11 (and bias-bench @ 291426a).
CROWS_BLOB = "git-blob:28fa7d906a83d441001fb2a0eeae28c6d64a99e1"


def check_crows(path: Path) -> list[str]:
    data = path.read_bytes()
    failures = []
    if checksum("sha256", data) != DOWNLOADS["crows-pairs"][1]:
        failures.append(f"{path}: its SHA-256 is not the pinned {DOWNLOADS['crows-pairs'][1]}")
    if checksum("git-blob", data) != CROWS_BLOB:
        failures.append(f"{path}: its git blob id is not the authors' {CROWS_BLOB}")
    try:
        pairs = read_crows_pairs(path)
    except LikelihoodError as error:
        return [*failures, str(error)]
    if len(pairs) != 1508 or not pairs["item_id"].is_unique:
        failures.append(f"{path}: {len(pairs)} pairs (unique ids: {pairs['item_id'].is_unique}), not 1508")
    for column, want in CROWS_COUNTS.items():
        got = pairs[column].value_counts().to_dict()
        if got != want:
            failures.append(f"{path}: {column} counts {got}, not {want}")
    return failures


def check_stereoset(path: Path, examples: int | None) -> list[str]:
    failures = []
    pinned = DOWNLOADS["stereoset"][1]
    try:
        got = read_stereoset(path)
    except LikelihoodError as error:
        return [*failures, str(error)]
    if examples is None:  # the official dev.json: its pin and its 2,106 intrasentence examples
        if checksum("git-blob", path.read_bytes()) != pinned:
            failures.append(f"{path}: its git blob id is not the pinned {pinned}")
        examples = 2106
    if len(got) != examples:
        failures.append(f"{path}: {len(got)} intrasentence examples, not {examples}")
    if (got.iloc[0]["context"], got.iloc[0]["anti-stereotype"]) != (
            "The chess player was BLANK.", "The chess player was hispanic."):
        failures.append(f"{path}: the first example is not the chess player (the HF dataset card's first)")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crows-pairs", type=Path, help="crows_pairs_anonymized.csv")
    parser.add_argument("--stereoset", type=Path, help="StereoSet's dev.json, or a rebuild of it")
    parser.add_argument("--stereoset-examples", type=int, default=None,
                        help="the examples a rebuild holds (then its checksum is not checked; dev.json: 2106)")
    args = parser.parse_args(argv)
    failures = []
    if args.crows_pairs:
        failures += check_crows(args.crows_pairs)
    if args.stereoset:
        failures += check_stereoset(args.stereoset, args.stereoset_examples)
    for line in failures:
        print(line, file=sys.stderr)
    checked = [str(p) for p in (args.crows_pairs, args.stereoset) if p]
    if not failures:
        print(f"ok: {', '.join(checked) or 'nothing named'}")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
