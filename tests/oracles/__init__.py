"""Other implementations the tests compare the package with, in one place.

One module per method and source, named ``METHOD_SOURCE.py``: ``debias_authors``,
``lipstick_authors``, ``likelihood_authors`` (the authors' code rebuilt, each module's
docstring naming the repository, commit and file it follows; none is copied),
``logistic_sklearn`` (scikit-learn as the oracle of the logistic solvers) and
``double_hard_wefe`` (wefe 0.4.1 run as a user runs it; a script that prints its
measurements). The tests import them as ``oracles.NAME``; the scripts run as
``python tests/oracles/NAME.py``. Oracles of published numbers and hand-built
embeddings live beside their tests (tests/metrics/test_metric_values.py).
"""
