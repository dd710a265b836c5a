"""Every option of ``rank``, ``load_model`` and ``export_vectors``, declared once.

- :mod:`~wefe_same.options.choices`: the string choices (``Literal`` types and their tuples);
- :mod:`~wefe_same.options.groups`: the option groups (``Bootstrap``, ``Quality``,
  ``External``, ``Likelihood``, ``Encoding``, ``Loading``, ``Execution``), frozen and
  checked when built, each with the shorthand a call may give instead;
- :mod:`~wefe_same.options.legacy`: the flat keywords of earlier versions (``halves=20``),
  accepted for one version with one ``FutureWarning`` naming the group.
"""
