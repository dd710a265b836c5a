"""Each option is declared once (wefe_same.options.groups and RankConfig); rank's signature, its
docstring, the groups' docstrings, the CLI's flags and the API page's signature are checked
against those declarations: names, order, defaults and annotations."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
import warnings
from pathlib import Path

import pandas as pd
import pytest

from wefe_same import api, cli
from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.cli import build_parser
from wefe_same.likelihood.sentences import Scoring
from wefe_same.models.encoders.settings import Device
from wefe_same.models.specs import LoadOptions, TemplateItems
from wefe_same.options.groups import GROUPS, default_of, flat_keywords, keyword_of, load_options
from wefe_same.options.legacy import regroup
from wefe_same.run.config import RankConfig
from wefe_same.scoring.chance import ChanceNull

ROOT = Path(__file__).resolve().parents[2]
SPECIAL = ("positional", "flat")  # rank's *positional (seed, metric_options by position) and **flat (old keywords)
HINTS = {"Scoring": Scoring, "Device": Device, "TemplateItems": TemplateItems, "LoadOptions": LoadOptions,
         "pd": pd, "LipstickSettings": LipstickSettings, "ChanceNull": ChanceNull}


def docstring_parameters(doc: str) -> list[str]:
    """The names of a numpydoc Parameters section, in order (``*positional`` as ``positional``)."""
    section = doc.split("Parameters\n    ----------\n", 1)[1].split("\n    Returns\n", 1)[0]
    names = []
    for line in section.splitlines():
        m = re.match(r"^    (\**)([a-z_]+)( :|$)", line)
        if m:
            names.extend(n.strip() for n in m.group(2).split(","))
    return names


def rank_parameters() -> list[inspect.Parameter]:
    return [p for p in inspect.signature(api.rank).parameters.values() if p.name not in SPECIAL]


def test_rank_takes_exactly_the_fields_of_rank_config_in_order_with_their_defaults():
    config_fields = [f for f in dataclasses.fields(RankConfig) if f.name != "_"]
    assert [p.name for p in rank_parameters()] == [f.name for f in config_fields]
    for param, f in zip(rank_parameters(), config_fields):
        if f.name in GROUPS:  # rank: None, the group's defaults; the config: the group built
            assert param.default is None and f.default_factory is GROUPS[f.name], f.name
        else:
            assert param.default == f.default, f.name
            assert param.annotation == f.type, f.name  # the same Literal and the same types
    kinds = {p.name: p.kind for p in inspect.signature(api.rank).parameters.values()}
    assert [n for n, k in kinds.items() if k is inspect.Parameter.POSITIONAL_OR_KEYWORD] == [
        "models", "queries", "metrics"]
    assert kinds["flat"] is inspect.Parameter.VAR_KEYWORD


@pytest.mark.parametrize("name", GROUPS)
def test_rank_annotates_each_group_with_the_group_and_its_shorthand(name):
    annotation = inspect.signature(api.rank).parameters[name].annotation
    group = GROUPS[name]
    assert annotation.split(" | ")[0] == group.__name__
    shorthand = getattr(group, "SHORTHAND", None)
    assert ("Mapping[str, Any]" in annotation) is (shorthand is None), annotation


def test_the_docstring_of_rank_documents_its_parameters_in_order():
    assert docstring_parameters(api.rank.__doc__) == [
        *[p.name for p in rank_parameters()][:5], "positional", *[p.name for p in rank_parameters()][5:], "flat"]


def shown_default(value) -> set[str]:
    """How a docstring may write a default: its repr in double quotes, an int with spaced thousands."""
    shown = {repr(value).replace("'", '"')}
    if isinstance(value, int) and not isinstance(value, bool):
        shown.add(f"{value:,}".replace(",", " "))
    return shown


@pytest.mark.parametrize("name", GROUPS)
def test_each_group_documents_its_fields_with_their_defaults(name):
    group = GROUPS[name]
    assert docstring_parameters(group.__doc__ + "\n    Returns\n") == [f.name for f in dataclasses.fields(group)]
    for f in dataclasses.fields(group):
        line = re.search(rf"^    {f.name} : (.*)$", group.__doc__, re.M).group(1)
        stated = re.search(r"default (.+)$", line)
        if stated:
            assert stated.group(1) in shown_default(default_of(f)), (f.name, stated.group(1))
        else:  # not stated: None ("optional")
            assert default_of(f) is None and "optional" in line, f.name


@pytest.mark.parametrize("name", GROUPS)
def test_each_group_field_is_annotated_and_its_literal_choices_are_the_clis(name):
    hints = typing.get_type_hints(GROUPS[name], localns=HINTS)
    actions = {a.dest: a for a in rank_parser()._actions}
    for f in dataclasses.fields(GROUPS[name]):
        hint = hints[f.name]
        if typing.get_origin(hint) is tuple and typing.get_origin(typing.get_args(hint)[0]) is typing.Literal:
            hint = typing.get_args(hint)[0]  # a tuple of choices (chance_nulls): each item one of them
        if typing.get_origin(hint) is typing.Literal and keyword_of(f) in actions:
            assert tuple(actions[keyword_of(f)].choices) == typing.get_args(hint), f.name


def rank_parser():
    import argparse

    return next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["rank"]


def test_the_clis_defaults_make_the_declared_defaults():
    """`wefe-same rank` with no flag builds every group (and every option of rank's own) as declared."""
    args = build_parser().parse_args(["rank"])
    vars(args).update(templates=list(args.templates), cache=None, progress=None)
    config = RankConfig.from_namespace(args, metric_options=None, lipstick=cli._lipstick(args))
    assert config == RankConfig(queries=list(args.queries))
    flags = {a.dest for a in rank_parser()._actions}
    missing = [k for k in flat_keywords() if k not in flags]
    assert missing == ["progress"], "options without a flag of their own"  # the CLI's bars follow the terminal


def test_flat_keywords_move_into_their_groups_with_one_future_warning():
    with pytest.warns(FutureWarning) as caught:
        moved = regroup("rank", {"halves": 3, "workers": 2, "analogy_vocab": 10}, {"bootstrap": 5})
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "rank(): give halves, workers, analogy_vocab in their groups, bootstrap=Bootstrap(halves=3), "
        "execution=Execution(workers=2), quality=Quality(analogy_vocab=10); the flat keywords are accepted "
        "in this version only")
    assert moved["bootstrap"] == GROUPS["bootstrap"](subqueries=5, halves=3)
    assert moved["execution"].workers == 2 and moved["quality"].analogy_vocab == 10
    with pytest.raises(TypeError, match="got 'halves' twice"):
        regroup("rank", {"halves": 3}, {"bootstrap": GROUPS["bootstrap"](halves=2)})
    with pytest.raises(TypeError, match="unexpected keyword argument 'haves'"):
        regroup("rank", {"haves": 3}, {})
    with pytest.raises(TypeError, match="load_model\\(\\) got an unexpected keyword argument 'halves'"):
        regroup("load_model", {"halves": 3}, {}, allowed=("encoding", "loading", "execution"))


def test_load_model_takes_the_same_groups_and_builds_the_runs_load_options(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("he 1 0\nshe 0 1\n")
    groups = {"loading": GROUPS["loading"](unicode_errors="replace"), "encoding": GROUPS["encoding"](),
              "execution": GROUPS["execution"](cache=False)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = api.load_model(f"glove:{path}", **groups)
    assert sorted(model.lookup(["he", "it"])) == ["he"]
    config = RankConfig(models=[f"glove:{path}"], **groups)
    assert config.load_options() == load_options(**groups, seed=0)
    with pytest.warns(FutureWarning, match=r"loading=Loading\(unicode_errors='replace'\)"):
        api.load_model(f"glove:{path}", unicode_errors="replace")


def test_the_api_pages_signature_is_ranks():
    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    shown = re.search(r"```python signature\n(.*?)```", page, re.S).group(1)
    assert shown == signature_text(), "docs/reference/api.md: paste tests/options/test_declarations.signature_text()"


def signature_text() -> str:
    """rank's signature as the API page shows it: one option a line."""
    lines = []
    for p in inspect.signature(api.rank).parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            lines.append("    *,")
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            lines.append(f"    **{p.name},")
        else:
            lines.append(f"    {p.name}: {p.annotation} = {p.default!r},")
    return "rank(\n" + "\n".join(lines) + "\n) -> RankResult\n"
