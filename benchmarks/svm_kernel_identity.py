"""Is the SVM fitted on the kernel matrix libsvm's own radial-kernel model?  Counted over many fits.

Reproduce with::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/svm_kernel_identity.py [--seed 2026] [--reps 60]

Draws data sets of Berrar's designs (study 2's sources with a = 290, 540 and 1290,
every third of the 44, and the learning-set source of studies 3 and 4 with 900
cases and d = 4, 6, ..., 30), ``--reps`` times each, plus a test set of the same
size.  On each it fits ``E1071SVC`` (the kernel matrix with its near-midpoint
entries computed again, libsvm called on it) and scikit-learn's radial-kernel
``SVC``, and also libsvm on the matrix from the product alone.  It prints how many
models differ from ``SVC``'s in any bit, with and without the recomputed entries,
and how many test predictions differ from libsvm's own.  About 3 minutes for 60 reps.
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--reps", type=int, default=60)
    args = parser.parse_args(argv)

    from sklearn.svm import SVC

    from simstudy.pipeline.learners.rdefaults import E1071SVC, _kernel_product
    from simstudy.pipeline.sources import berrar_benchmark_sources, berrar_cv_source

    rng = np.random.default_rng(args.seed)
    cases = [case for a in (290, 540, 1290) for case in berrar_benchmark_sources(44, a)[::3]]
    cases += [(900, berrar_cv_source(d)) for d in range(4, 31, 2)]
    fits = ours_differ = product_differs = predictions = differing = 0
    for _ in range(args.reps):
        for n, src in cases:
            X, y = src.sample(n, rng)
            Xt, _ = src.sample(n, rng)
            m = E1071SVC().fit(X, y)
            Xs = (X - m.center_) / m.scale_
            code = (y != y[0]).astype(int)
            ref = SVC(C=1.0, gamma=m.gamma_, cache_size=40).fit(Xs, code)
            raw = SVC(C=1.0, kernel="precomputed", cache_size=40).fit(_kernel_product(Xs, m.gamma_)[0], code)

            def same(a, ref=ref):
                return (
                    np.array_equal(a.support_, ref.support_)
                    and np.array_equal(a.dual_coef_, ref.dual_coef_)
                    and np.array_equal(a.intercept_, ref.intercept_)
                )

            fits += 1
            ours_differ += not same(m)
            product_differs += not same(raw)
            own = m.libsvm_classes_[ref.predict((Xt - m.center_) / m.scale_)]
            differing += int((m.predict(Xt) != own).sum())
            predictions += len(Xt)
    print(
        f"{fits} fits: models differing from SVC's, kernel matrix from the product alone: {product_differs}; "
        f"E1071SVC: {ours_differ}; test predictions differing from libsvm's own: {differing} of {predictions}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
