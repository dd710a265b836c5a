"""A model's scores do not depend on the zoo it is ranked in (issue 21, item 2).

Each model's per-metric scores, p-values and overall aggregates must be the same (to
1e-9) whether it is ranked alone, with 3 others or with 39 others: the random streams
are keyed by (seed, metric, subquery), never by a model's position, and nothing of one
model leaks into another's scoring. Forty hand-built static models keep it fast; two
tiny random BERT encoders (built here, offline) run the encoder path too.
"""

from __future__ import annotations

import importlib.util
import string

import numpy as np
import pandas as pd
import pytest

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.models import ArraySource

MALE = ["he", "man", "boy", "father", "king"]
FEMALE = ["she", "woman", "girl", "mother", "queen"]
CAREER = ["doctor", "engineer", "lawyer", "pilot"]
CARE = ["nurse", "teacher", "nanny", "cook"]
NEUTRAL = ["table", "river", "cloud", "stone", "music", "paper"]
WORDS = MALE + FEMALE + CAREER + CARE + NEUTRAL
QUERIES = [
    Query([WordSet("male", MALE, aligned=True), WordSet("female", FEMALE, aligned=True)],
          [WordSet("career", CAREER), WordSet("care", CARE)], name="career"),
    Query([WordSet("male", MALE, aligned=True), WordSet("female", FEMALE, aligned=True)],
          [WordSet("neutral", NEUTRAL)], name="neutral"),
]


def static(i: int) -> ArraySource:
    dim = (6, 8, 12)[i % 3]  # sizes vary, as in a real zoo
    return ArraySource(f"static-{i:02d}", WORDS, np.random.default_rng(100 + i).normal(size=(len(WORDS), dim)))


def scores_of(result, model: str) -> dict[str, pd.Series]:
    out = {f"score:{m}": frame.loc[model] for m, frame in result.scores.items()}
    details = result.details[result.details["model"] == model].set_index(["metric", "subquery"])
    out["value"] = details["value"]
    out["p_value"] = details["p_value"]
    out["aggregates"] = result.aggregates.loc[model]
    return out


def assert_same(alone: dict[str, pd.Series], among: dict[str, pd.Series], label: str) -> None:
    assert alone.keys() == among.keys()
    for key in alone:
        a, b = alone[key], among[key].reindex(alone[key].index)
        np.testing.assert_allclose(b.to_numpy(float), a.to_numpy(float), rtol=0, atol=1e-9,
                                   err_msg=f"{label}: {key}")


def run(models) -> object:
    # Each run has a memo of its own (RNSB's classifiers, WEAT's splits): a model scored
    # alone does not read what the zoo's run computed.
    return rank(models, queries=QUERIES, seed=7, permutations=200, execution=Execution(cache=False, progress=False))


def check_zoo(models, probes) -> None:
    """Each probe alone, in the first 4 and in the whole zoo: the same scores."""
    four, whole = run(models[:4]), run(models)
    for i in probes:
        name = models[i].name
        alone = scores_of(run([models[i]]), name)
        if i < 4:
            assert_same(alone, scores_of(four, name), f"{name} with 3 others")
        assert_same(alone, scores_of(whole, name), f"{name} with {len(models) - 1} others")
    # every metric defined somewhere: the check is not vacuous
    assert all(frame.notna().any().any() for frame in whole.scores.values())


def test_static_model_scores_do_not_depend_on_the_zoo():
    check_zoo([static(i) for i in range(40)], probes=[0, 3, 17, 39])


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="needs the text extra")
def test_encoder_scores_do_not_depend_on_the_zoo(tmp_path):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    # A WordPiece vocabulary holding every word: each is one token, none is [UNK].
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *string.ascii_lowercase, *WORDS]
    tk = Tokenizer(models.WordPiece({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                        sep_token="[SEP]", model_max_length=16)
    encoders = []
    for i, hidden in enumerate((16, 32)):
        torch.manual_seed(i)
        model = BertModel(BertConfig(vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=hidden, max_position_embeddings=16))
        model.save_pretrained(tmp_path / f"enc{i}")
        tokenizer.save_pretrained(tmp_path / f"enc{i}")
        encoders.append(f"hf:{tmp_path / f'enc{i}'}")
    statics = [static(i) for i in range(6)]
    zoo = [statics[0], encoders[0], statics[1], encoders[1], *statics[2:]]
    four, whole = run(zoo[:4]), run(zoo)
    for spec, name in ((encoders[0], "enc0"), (encoders[1], "enc1")):
        alone = scores_of(run([spec]), name)
        assert_same(alone, scores_of(four, name), f"{name} with 3 others")
        assert_same(alone, scores_of(whole, name), f"{name} with {len(zoo) - 1} others")
