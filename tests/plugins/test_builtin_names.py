"""The names a registry knows without importing its built-ins (for the spec grammar, and to
refuse a plugin that takes one) are the built-in specs' names."""

from wefe_same.likelihood import benchmarks
from wefe_same.likelihood.evaluate import BUILTIN_BENCHMARKS
from wefe_same.models.debias import registry
from wefe_same.models.debias.methods import BUILTIN_METHODS


def test_the_debiasing_methods_names_are_the_built_in_specs():
    assert registry.BUILTIN_NAMES == tuple(m.name for m in BUILTIN_METHODS)


def test_the_likelihood_benchmarks_names_are_the_built_in_specs():
    assert benchmarks.BUILTIN_NAMES == tuple(b.name for b in BUILTIN_BENCHMARKS)


def test_the_file_formats_names_and_extensions_are_the_built_in_specs():
    from wefe_same.models.readers.formats import BUILTIN_FORMATS
    from wefe_same.models.specs import EXTENSIONS, FORMATS

    assert FORMATS == tuple(f.name for f in BUILTIN_FORMATS if f.scheme)
    assert EXTENSIONS == {e: f.name for f in BUILTIN_FORMATS for e in f.extensions}
