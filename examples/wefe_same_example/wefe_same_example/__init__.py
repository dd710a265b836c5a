"""An example plugin package for wefe_same (see ``pyproject.toml``'s entry points)."""
