"""One exception family: one class per kind, all in errors.py (InvalidParameterError in
validation.py), and the kinds that mean "a value the user gave is wrong" are ValueErrors."""

import ast
from pathlib import Path

import pytest

from wefe_same import errors
from wefe_same.errors import (
    CacheError,
    ExecutorError,
    ExportError,
    ExternalError,
    LikelihoodError,
    MetricError,
    ModelError,
    NoLanguageModelHead,
    OutputError,
    QualityError,
    QueryError,
    WefeSameError,
)
from wefe_same.metrics import get_metric
from wefe_same.query import Template, WordSet, load_queries
from wefe_same.validation import InvalidParameterError

PACKAGE = Path(__file__).resolve().parents[1] / "wefe_same"
#: Where public exception classes may be defined.
HOMES = {PACKAGE / "errors.py", PACKAGE / "validation.py"}
BAD_ARGUMENT = (InvalidParameterError, QueryError, MetricError, QualityError, ExternalError, ExportError,
                LikelihoodError)
#: Failures of the world outside the arguments: files, folders, executors.
NOT_ARGUMENTS = (ModelError, OutputError, CacheError, ExecutorError, NoLanguageModelHead)


def test_every_public_exception_class_lives_in_errors_or_validation():
    elsewhere = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ClassDef) and not node.name.startswith("_")
                    and any(isinstance(b, ast.Name) and b.id.endswith(("Error", "Exception")) for b in node.bases)
                    and path not in HOMES):
                elsewhere.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert elsewhere == []


def test_every_error_class_is_one_kind_of_the_family():
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, Exception) and not issubclass(c, Warning)]
    assert set(classes) == {WefeSameError, *BAD_ARGUMENT[1:], *NOT_ARGUMENTS}
    assert all(issubclass(c, WefeSameError) for c in (*BAD_ARGUMENT, *NOT_ARGUMENTS))


@pytest.mark.parametrize("kind", BAD_ARGUMENT)
def test_a_bad_argument_is_a_value_error(kind):
    assert issubclass(kind, ValueError)


@pytest.mark.parametrize("kind", NOT_ARGUMENTS)
def test_a_failure_outside_the_arguments_is_not_a_value_error(kind):
    assert not issubclass(kind, ValueError)


@pytest.mark.parametrize("call", [
    lambda: WordSet("women", "she"),
    lambda: Template(0, 1),
    lambda: get_metric("WAET"),
    lambda: load_queries("no-such-query-set"),
])
def test_bad_arguments_raise_value_errors_of_the_family(call):
    with pytest.raises(ValueError) as caught:
        call()
    assert isinstance(caught.value, WefeSameError)
