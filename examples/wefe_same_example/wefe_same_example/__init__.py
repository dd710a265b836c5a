"""An example plugin for wefe_same: what an installed package adds through entry points.

``metric.py``: the ``mean-gap`` metric (group ``wefe_same.metrics``);
``model_kind.py``: the ``hashvec:DIM`` model kind (group ``wefe_same.models``).
"""
