"""The lipstick classification test's predictions (``svm_predict``) are scikit-learn's
``SVC.predict`` labels, from one matrix product instead of libsvm's kernel-by-kernel loop.

Oracle: the fitted ``SVC`` itself (``predict`` and ``decision_function``), on overlapping
classes (test points near the boundary), both gammas of the option, integer and string
labels, unit rows as the test gives them, 50 and 300 dimensions.
"""

from __future__ import annotations

import numpy as np
import pytest

from wefe_same.analysis import lipstick
from wefe_same.analysis.lipstick import svm_decision, svm_predict


def problem(seed: int, dim: int, classes: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    shift = np.zeros(dim)
    shift[:dim // 8] = 0.8  # the classes overlap: the boundary runs through the test points
    x = np.vstack([rng.normal(size=(700, dim)) + shift, rng.normal(size=(700, dim)) - shift])
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.repeat(np.array(classes, dtype=object if isinstance(classes[0], str) else None), 700)
    order = rng.permutation(1400)  # 1,000 to train on (with 1/d, fewer leave one class), 400 to predict
    return x[order[:1000]], y[order[:1000]], x[order[1000:]]


@pytest.mark.parametrize("gamma", ["auto", "scale"])
@pytest.mark.parametrize("dim", [50, 300])
@pytest.mark.parametrize("classes", [[1, 0], ["m", "f"]], ids=["ints", "strings"])
def test_labels_equal_sklearns_predict(gamma, dim, classes):
    from sklearn.svm import SVC

    train_x, train_y, test_x = problem(dim, dim, classes)
    svc = SVC(kernel="rbf", C=1.0, gamma=gamma).fit(train_x, train_y)
    expected = svc.predict(test_x)
    assert len(set(expected)) == 2  # both classes are predicted: the boundary is crossed
    np.testing.assert_array_equal(svm_predict(svc, test_x), expected)


@pytest.mark.parametrize("gamma", ["auto", "scale"])
def test_decision_values_are_sklearns_to_rounding(gamma):
    """The decision values behind the labels are scikit-learn's ``decision_function``."""
    from sklearn.svm import SVC

    train_x, train_y, test_x = problem(1, 50, [1, 0])
    svc = SVC(kernel="rbf", C=1.0, gamma=gamma).fit(train_x, train_y)
    np.testing.assert_allclose(svm_decision(svc, test_x), svc.decision_function(test_x), rtol=0, atol=1e-12)


def test_rows_near_the_boundary_take_libsvms_label(monkeypatch):
    from sklearn.svm import SVC

    train_x, train_y, test_x = problem(2, 50, [1, 0])
    svc = SVC(kernel="rbf", C=1.0, gamma="auto").fit(train_x, train_y)
    asked = []
    real = SVC.predict

    def counted(self, x):
        asked.append(len(x))
        return real(self, x)

    monkeypatch.setattr(SVC, "predict", counted)
    monkeypatch.setattr(lipstick, "_NEAR_TIE", np.inf)  # every row counts as near the boundary
    labels = svm_predict(svc, test_x)
    assert asked == [len(test_x)]
    monkeypatch.undo()
    np.testing.assert_array_equal(labels, svc.predict(test_x))



def test_without_the_fits_gamma_it_is_sklearns_predict(monkeypatch):
    """γ is a private attribute of scikit-learn's fit: without it, the labels come from
    ``SVC.predict`` itself, never from a γ guessed here."""
    from sklearn.svm import SVC

    train_x, train_y, test_x = problem(3, 50, [1, 0])
    svc = SVC(kernel="rbf", C=1.0, gamma="auto").fit(train_x, train_y)
    expected = svc.predict(test_x)
    gamma = svc._gamma
    del svc._gamma  # as if scikit-learn kept it under another name, which its predict reads
    asked = []
    real = SVC.predict

    def predict(self, x):
        asked.append(len(x))
        self._gamma = gamma
        try:
            return real(self, x)
        finally:
            del self._gamma

    monkeypatch.setattr(SVC, "predict", predict)
    np.testing.assert_array_equal(svm_predict(svc, test_x), expected)
    assert asked == [len(test_x)]
