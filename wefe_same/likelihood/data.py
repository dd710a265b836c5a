"""The two datasets, read from files the user names.

- CrowS-Pairs (Nangia et al. 2020, CC BY-SA 4.0): the authors' CSV
  (``crows_pairs_anonymized.csv``: ``sent_more``, ``sent_less``, ``stereo_antistereo``,
  ``bias_type``; the unnamed first column is the pair's id).
- StereoSet (Nadeem et al. 2021, CC BY-SA 4.0): the authors' JSON (``dev.json`` /
  ``test.json``: ``data.intrasentence``, each example with ``id``, ``bias_type``,
  ``target``, ``context`` holding ``BLANK``, and three sentences whose ``gold_label`` is
  ``stereotype``, ``anti-stereotype`` and ``unrelated``). Annotator labels are not read.

Neither is shipped with the library. With ``allow_download`` a missing file is fetched
once from the authors' repository at a pinned commit and kept in the cache only when its
checksum matches (:data:`DOWNLOADS`: CrowS-Pairs' SHA-256; for StereoSet's ``dev.json``
the git blob id that the repository itself records, a SHA-1 of the file's bytes).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from wefe_same.errors import LikelihoodError
from wefe_same.validation import read_regular_file

#: Largest dataset file read (the official StereoSet dev.json is about 4 MB).
DATASET_MAX_BYTES = 64 << 20
CROWS_COLUMNS = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
DIRECTIONS = ("stereo", "antistereo")
GOLD_LABELS = ("stereotype", "anti-stereotype", "unrelated")

#: name → (pinned URL at the authors' repository, "KIND:HEX" checksum of the file, file name in
#: the cache); KIND is ``sha256`` or ``git-blob`` (git's object id of the file: SHA-1 of
#: ``b"blob <size>\\0"`` and the bytes, as ``git hash-object`` prints it).
DOWNLOADS: dict[str, tuple[str, str, str]] = {
    "crows-pairs": (
        "https://raw.githubusercontent.com/nyu-mll/crows-pairs/8aaac11c485473159ec9328a65253a5be9a479dc/"
        "data/crows_pairs_anonymized.csv",
        "sha256:dfb36986ce0502abbaf7055b9176da3d08d48e07df1251991b5dfbcbceab9d0c", "crows_pairs_anonymized.csv"),
    "stereoset": (
        "https://raw.githubusercontent.com/moinnadeem/StereoSet/ead7d086a64a192a1eca88e0dd2fd163de375218/"
        "data/dev.json",
        "git-blob:637b1e3d284a3c629b74a4659c583b8eca9bd13e", "stereoset_dev.json"),
}


def checksum(kind: str, data: bytes) -> str:
    """The ``KIND:HEX`` checksum of ``data`` (:data:`DOWNLOADS`).

    >>> checksum("git-blob", b"hello\\n")  # as `git hash-object` prints it
    'git-blob:ce013625030ba8dba906f756967f9e9ca394464a'
    """
    if kind == "git-blob":
        digest = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False)
    else:
        digest = hashlib.sha256(data)
    return f"{kind}:{digest.hexdigest()}"


def read_crows_pairs(path: str | Path) -> pd.DataFrame:
    """The pairs of a CrowS-Pairs CSV: columns ``item_id``, ``sent_more``, ``sent_less``,
    ``direction``, ``bias_type`` (one row per pair, in file order)."""
    raw = read_regular_file(path, what="CrowS-Pairs file", error=LikelihoodError, max_bytes=DATASET_MAX_BYTES)
    try:
        reader = csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline=""))
        header = reader.fieldnames or []
        missing = [c for c in CROWS_COLUMNS if c not in header]
        if missing:
            raise LikelihoodError(f"{path}: CrowS-Pairs file lacks the column(s) {', '.join(missing)}")
        rows = []
        for n, row in enumerate(reader):
            line = reader.line_num
            if any(row.get(c) is None for c in CROWS_COLUMNS):
                raise LikelihoodError(f"{path}: line {line} has fewer cells than the header")
            if row["stereo_antistereo"] not in DIRECTIONS:
                raise LikelihoodError(f"{path}: line {line}: stereo_antistereo is {row['stereo_antistereo']!r}, "
                                      "not 'stereo' or 'antistereo'")
            if not row["sent_more"].strip() or not row["sent_less"].strip():
                raise LikelihoodError(f"{path}: line {line} has an empty sentence")
            item = (row.get(header[0]) or "").strip() if header[0] not in CROWS_COLUMNS else ""
            rows.append((item or str(n), row["sent_more"], row["sent_less"], row["stereo_antistereo"],
                         row["bias_type"].strip()))
    except UnicodeDecodeError as err:
        raise LikelihoodError(f"{path}: CrowS-Pairs file is not UTF-8 ({err.reason} at byte {err.start})") from None
    except csv.Error as err:
        raise LikelihoodError(f"{path}: malformed CSV: {err}") from None
    if not rows:
        raise LikelihoodError(f"{path}: CrowS-Pairs file has no pairs")
    return pd.DataFrame(rows, columns=["item_id", "sent_more", "sent_less", "direction", "bias_type"])


def _field(example: Any, key: str, where: str) -> str:
    value = example.get(key) if isinstance(example, dict) else None
    if not isinstance(value, str) or not value:
        raise LikelihoodError(f"{where} has no {key!r} string")
    return value


def read_stereoset(path: str | Path) -> pd.DataFrame:
    """The intrasentence examples of a StereoSet JSON file: columns ``item_id``,
    ``bias_type``, ``target``, ``context`` and, for each gold label, the sentence and its id
    (``stereotype``, ``stereotype_id``, ``anti-stereotype``, …), in file order."""
    raw = read_regular_file(path, what="StereoSet file", error=LikelihoodError, max_bytes=DATASET_MAX_BYTES)
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise LikelihoodError(f"{path}: StereoSet file is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise LikelihoodError(f"{path}: StereoSet file is not JSON: {err.msg} at line {err.lineno}") from None
    examples = doc.get("data", {}).get("intrasentence") if isinstance(doc, dict) and isinstance(
        doc.get("data"), dict) else None
    if not isinstance(examples, list) or not examples:
        raise LikelihoodError(f"{path}: StereoSet file has no data.intrasentence examples")
    rows = []
    for k, ex in enumerate(examples):
        where = f"{path}: intrasentence example {k + 1}"
        row = {key: _field(ex, key, where) for key in ("id", "bias_type", "target", "context")}
        if "BLANK" not in row["context"]:
            raise LikelihoodError(f"{where} ({row['id']}): context has no BLANK")
        sentences = ex.get("sentences")
        got: dict[str, tuple[str, str]] = {}
        for s in sentences if isinstance(sentences, list) else []:
            label = s.get("gold_label") if isinstance(s, dict) else None
            if label in GOLD_LABELS:
                if label in got:
                    raise LikelihoodError(f"{where} ({row['id']}): two {label} sentences")
                got[label] = (_field(s, "sentence", where), _field(s, "id", where))
        missing = [g for g in GOLD_LABELS if g not in got]
        if missing:
            raise LikelihoodError(f"{where} ({row['id']}): no {', '.join(missing)} sentence")
        out = {"item_id": row["id"], "bias_type": row["bias_type"], "target": row["target"], "context": row["context"]}
        for label in GOLD_LABELS:
            out[label], out[label + "_id"] = got[label]
        rows.append(out)
    return pd.DataFrame(rows)


def download(name: str, cache: Path, source: tuple[str, str, str] | None = None) -> Path:
    """The cached copy of ``name``, fetched once if absent and kept only when its checksum
    matches the pinned one; ``source``: (url, "KIND:HEX", file name), default the built-in
    benchmark's (:data:`DOWNLOADS`)."""
    source = source or DOWNLOADS.get(name)
    if source is None:
        raise LikelihoodError(f"{name}: no pinned download; name a file ({name}=FILE)")
    url, pinned, file_name = source
    kind = pinned.partition(":")[0]
    target = cache / file_name
    if target.is_file() and checksum(kind, target.read_bytes()) == pinned:
        return target
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read(DATASET_MAX_BYTES + 1)
    except OSError as err:
        raise LikelihoodError(f"{name}: cannot download {url}: {err}") from None
    if checksum(kind, data) != pinned:
        raise LikelihoodError(f"{name}: the file downloaded from {url} does not have the pinned checksum {pinned}; "
                              "nothing was kept")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target
