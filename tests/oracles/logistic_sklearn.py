"""scikit-learn's L2 logistic regression as the oracle of the batched and pool solvers."""

import warnings


def sklearn_fit(X, y):
    """(coefficients, intercept) of scikit-learn's ``LogisticRegression`` (C = 1) solved to
    tol 1e-12. Imported here, not at module level: it cost every xdist worker's collection
    ~0.5 s, for the few tests that use it."""
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000)
        clf.fit(X, y)
    return clf.coef_[0], clf.intercept_[0]
