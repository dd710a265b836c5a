"""A file format as a plugin declares one (docs/extending.md, "Your own file format"), for
tests/plugins/test_format_plugin.py, registered there through the entry-point group
``wefe_same.formats``: ``toyvec:PATH`` (or a bare ``PATH.toyvec``) holds ``WORD: x,y,z``
lines, read on the first lookup."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models import ModelSource
from wefe_same.models.readers import check_model_file
from wefe_same.models.readers.formats import FileFormat


class ToyVectors(ModelSource):
    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path

    def lookup(self, words):
        wanted, out = set(words), {}
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            word, sep, values = line.partition(": ")
            if not sep:
                raise ModelError(f"{self.path}:{number}: a toyvec line is 'WORD: x,y,...'")
            if word in wanted:
                out[word] = np.array([float(v) for v in values.split(",")])
        return out

    def describe(self):
        return {"kind": "toyvec", "path": str(self.path)}


def open_toyvec(name: str, location: str, options) -> ModelSource:
    path = Path(location)
    check_model_file(name, path)
    return ToyVectors(name, path)


FORMAT = FileFormat("toyvec", open_toyvec, (".toyvec",), "WORD: x,y,... lines (a test's toy)")
#: Claims a built-in's extension: its entry point is refused with one warning.
CLAIMS_TXT = FileFormat("txtclaim", open_toyvec, (".txt",), "claims .txt")
