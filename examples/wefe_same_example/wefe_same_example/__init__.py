"""An example plugin for wefe_same: what an installed package adds through entry points.

``model_kind.py``: the ``hashvec:DIM`` model kind (group ``wefe_same.models``).
"""
