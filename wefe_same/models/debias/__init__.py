"""Hard debiasing as model variants: Bolukbasi et al. 2016 (binary) and Manzini et al. 2019
(multiclass), each computed lazily for the words a run asks for.

Bolukbasi et al. (:class:`HardDebiasedSource`, the reference algorithm of debiaswe):
vectors are unit-normalised, the gender direction is the first principal component of
the centred definitional pairs, every word outside the gender-specific list loses its
component along that direction and is renormalised, and each equalise pair (in lower,
title and upper case) is moved to be symmetric about the direction.

Manzini et al. (:class:`MulticlassHardDebiasedSource`) is the same algorithm with n
classes and a k-dimensional bias subspace: the first k principal components of the
defining sets (one word per class, each set centred on its own mean); every word outside
the class-specific lists loses its projection on the subspace and is renormalised; each
equality set of n words keeps its mean's part off the subspace, ν, and each word gets
ν + √(1 − ‖ν‖²) (w_B − μ_B)/‖w_B − μ_B‖, its own offset from the set's mean inside the
subspace, so every word of the set is equally far from every neutralised word.
Bolukbasi's variant is its k = 1, n = 2 case (equal up to rounding when its definitional
and equalise words are gender-specific; here defining and equality words are never
neutralised).

Each step acts on one word or one set, so no whole matrix is rewritten, except by the
``vocabulary`` methods, which analogy benchmarks call.

Beyond hard debiasing, three gender methods that WEFE also offers: double-hard debias
(Wang et al. 2020, :mod:`.double_hard`), half-sibling regression (Yang & Feng 2020,
:mod:`.hsr`) and RAN-Debias (Kumar et al. 2020, :mod:`.ran`); :mod:`.methods` builds them
from spec strings with their lists and options, :mod:`.vocab` holds their whole-vocabulary
passes.

Modules: :mod:`.linalg` (the shared linear algebra), :mod:`.bolukbasi`, :mod:`.manzini`,
:mod:`.double_hard`, :mod:`.hsr`, :mod:`.ran`, :mod:`.methods`, :mod:`.vocab`.
"""

from wefe_same.models.debias.bolukbasi import HardDebiasedSource
from wefe_same.models.debias.double_hard import DoubleHardDebiasedSource
from wefe_same.models.debias.hsr import HSRDebiasedSource
from wefe_same.models.debias.linalg import (
    bias_subspace,
    casings,
    equalize,
    equalize_set,
    gender_direction,
    neutralize,
    neutralize_subspace,
)
from wefe_same.models.debias.manzini import MULTICLASS_VARIANTS, MulticlassHardDebiasedSource, manzini_debiased
from wefe_same.models.debias.ran import RANDebiasedSource

__all__ = [
    "MULTICLASS_VARIANTS",
    "DoubleHardDebiasedSource",
    "HSRDebiasedSource",
    "HardDebiasedSource",
    "MulticlassHardDebiasedSource",
    "RANDebiasedSource",
    "bias_subspace",
    "casings",
    "equalize",
    "equalize_set",
    "gender_direction",
    "manzini_debiased",
    "neutralize",
    "neutralize_subspace",
]
