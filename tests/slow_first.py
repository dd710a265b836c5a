"""The suite's slowest tests start first (issue 29, item 6).

pytest-xdist's ``--dist worksteal`` hands each worker a contiguous share of the collection
in collection order, and an idle worker steals from the end of the other's queue. A test of
30 s collected last (the notebooks, ``test_option_space.py``: alphabetically near the end)
then starts when everything else is done and keeps one core busy while the other idles. Moved
to the front, the long tests run while the short ones are still queued, and the short ones
fill the end on both cores.

:data:`SLOW_FIRST` is measured (``python -m pytest -q --durations=60``, setup included), not
guessed; ``tests/layout/test_slow_first.py`` checks that each entry still names a module or
test. An entry is a module (all its tests move, in their own order, so its module-scoped
fixtures are built once per worker as before) or one test function (its parametrized cases
move together). Order within the list: longest first.
"""

from __future__ import annotations

#: Node-id prefixes, longest first (seconds: one worker's share at the measurement).
SLOW_FIRST: tuple[str, ...] = (
    "tests/docs/test_notebooks.py::test_notebook_runs",  # 02: 59, 01: 50, 03: 14
    "tests/entry/test_cli.py::test_default_run_on_the_builtin_models",  # 59
    "tests/output/test_paper_figures.py::",  # the 40-model run, built once: 53
    "tests/layout/test_tooling.py::test_mypy_is_clean_on_the_package",  # 51 with a cold cache
    "tests/docs/test_docs_examples.py::test_bert_and_gpt2_example_ranks_both_models_together",  # 33
    "tests/test_long_messages.py::",  # 28 + 15 + 10 + 10
    "tests/run/test_cached_rerun.py::",  # 26
    "tests/run/test_isolated_encoders.py::",  # 24 + 13
    "tests/output/test_report.py::",  # its fixtures: 24 + 14
    "tests/output/test_report_html.py::test_report_renders_in_headless_chromium_without_a_script_error",  # 22
    "tests/models/test_model_kinds.py::test_the_command_line_ranks_a_plugin_model_with_two_workers",  # 21
    "tests/entry/test_cli.py::test_rank_writes_the_whole_folder",  # 17
    "tests/models/test_encoders.py::test_mpnet_from_its_split_packages_equals_sentence_transformers",  # 17
    "tests/models/test_debias_authors.py::",  # 16 + 14
    "tests/models/test_spec_grammar.py::test_a_variant_with_options_ranks_from_the_cli_and_a_models_file",  # 16
    "tests/output/test_lean_defaults.py::",  # 16 + its fixture 15
    "tests/output/test_output_safety.py::",  # 16
    "tests/test_voice.py::",  # 15
    "tests/pinned/test_pinned_outputs.py::",  # its fixture: 15
    # measured again after the first list (a run at load 6-9: seconds about 2x the above)
    "tests/likelihood/test_scoring_sensitivity.py::",  # its fixture: 31, + 23
    "tests/models/test_spec_grammar.py::test_a_variant_with_options_ranks_in_rank",  # 31
    "tests/models/test_debias_methods.py::",  # 26 + 8 + 8, its module fixtures shared
    "tests/docs/test_readme.py::test_the_docs_build_strictly_and_offline",  # 26
    "tests/models/test_poolings.py::",  # 16, 15, 13, ...: its module fixture shared
    # 108 rows of 1 to 60 s each (the rows with --workers 2 and the tiny BERT the longest):
    # after the single long tests, so that a worker that ends them early steals rows.
    "tests/entry/test_option_space.py::",
)


def _names(entry: str, nodeid: str) -> bool:
    if entry.endswith("::"):  # a module: every test in it
        return nodeid.startswith(entry)
    return nodeid == entry or nodeid.startswith(entry + "[")  # a function: its parametrized cases


def slow_first_key(nodeid: str) -> int:
    """The position of ``nodeid``'s entry in :data:`SLOW_FIRST` (the length of it when none)."""
    return next((k for k, entry in enumerate(SLOW_FIRST) if _names(entry, nodeid)), len(SLOW_FIRST))
