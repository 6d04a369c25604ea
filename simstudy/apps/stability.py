"""How stable a comparison's learners are: how often a case's predicted class changes with the training partition.

The corrected tests assume that the differences of two splits correlate by the
test share ``n_test / n``; the proving ground measures more for unstable
learners (1-nearest neighbour, unpruned trees) and finds the corrected tests
liberal there (``docs/reproduction/proving-ground/``, "Why tests are liberal").
To match a user's comparison to the nearest evidence, ``assess`` therefore
measures the same thing on the user's data as on every scenario of the
proving ground, never the learners' names:

*instability* of a learner
    over every pair of runs of a repeated design, the share of the cases held
    out in both whose predicted class differs between the two runs (each run
    trains on another partition of the same data); 0 for a learner whose
    predictions do not depend on the partition.

*instability of a comparison*
    the larger of its two learners' (a comparison is as unstable as its less
    stable learner).

:func:`nearest_group` then finds the proving-ground scenario whose two
learners' instabilities, measured with the same number of folds, lie nearest to
the comparison's (the less stable learner's and the more stable one's), and the
comparison takes that scenario's class of the shipped evidence
(:mod:`simstudy.apps.shipped_evidence`).  :func:`comparison_class` names a
scenario's class: the band of its less stable learner, except that a stable
learner against one that is not makes a class of its own
(:data:`STABLE_AGAINST_UNSTABLE`), since the correlation of its splits'
differences need not be the one two unstable learners give; placing by both
learners is what lets a comparison reach that class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "instability",
    "stored_instability",
    "stability_class",
    "comparison_class",
    "nearest_group",
    "STABLE_AGAINST_UNSTABLE",
]

#: The class of a comparison of a stable learner with one that is not.
STABLE_AGAINST_UNSTABLE = "stable against unstable"


def instability(pred) -> float:
    """The share of disagreeing predictions over every pair of runs, among the cases held out in both.

    Parameters
    ----------
    pred : array_like, shape (runs, n)
        Predicted class of every case in every run, -1 where it is not held
        out (as :func:`simstudy.pipeline.scores.fold_predictions` gives them).

    Returns
    -------
    float
        NaN with fewer than two runs or no case held out in two of them.
    """
    pred = np.atleast_2d(np.asarray(pred))
    held = pred >= 0
    differ = both = 0
    for r in range(pred.shape[0]):
        for s in range(r + 1, pred.shape[0]):
            shared = held[r] & held[s]
            both += int(shared.sum())
            differ += int((pred[r, shared] != pred[s, shared]).sum())
    return differ / both if both else float("nan")


def stored_instability(predictions: pd.DataFrame, names=("a", "b")) -> dict:
    """Each learner's instability from a stored ``predictions`` table, averaged over its replications.

    Parameters
    ----------
    predictions : DataFrame
        Rows of :meth:`simstudy.pipeline.comparison.Fits.predictions` with the
        engine's ``condition`` and ``replication`` columns (one design per condition).
    names : sequence of str
        The learners (``pred_<name>`` columns).

    Returns
    -------
    dict
        ``{name: instability}`` and ``"pair"``: the larger of them; ``"design"``:
        the condition measured (the one with the most runs; of those, the most
        folds) and ``"folds"``, its folds per run (1 for resampled splits).
    """
    shape = predictions.groupby("condition", observed=True)[["run", "fold"]].max()
    design = str(max(shape.index, key=lambda c: (int(shape.loc[c, "run"]), int(shape.loc[c, "fold"]))))
    rows = predictions[predictions["condition"] == design]
    out: dict = {"design": design, "folds": int(shape.loc[design, "fold"]) + 1}
    for name in names:
        values = []
        for _, g in rows.groupby("replication", sort=False, observed=True):
            n = int(g["case"].max()) + 1
            pred = np.full((int(g["run"].max()) + 1, n), -1, dtype=np.int64)
            pred[g["run"].to_numpy(int), g["case"].to_numpy(int)] = g[f"pred_{name}"].to_numpy()
            values.append(instability(pred))
        out[name] = float(np.nanmean(values)) if values and np.isfinite(values).any() else float("nan")
    out["pair"] = max(out[n] for n in names)
    return out


def stability_class(value: float, bands) -> str:
    """The class whose band ``[low, high)`` holds ``value`` (``bands``: ``{class: [low, high]}``; None: unbounded)."""
    for name, (low, high) in bands.items():
        if (low is None or value >= low) and (high is None or value < high):
            return name
    raise InputError(f"value: {value!r} lies in none of the bands {bands!r}")


def comparison_class(a: float, b: float, bands) -> str:
    """The class of a comparison whose learners' instabilities are ``a`` and ``b`` (``bands`` as for
    :func:`stability_class`; the stable band is the one without a lower bound): the less stable learner's band,
    or :data:`STABLE_AGAINST_UNSTABLE` when the more stable learner is in the stable band and the other is not."""
    stable = next(name for name, (low, _) in bands.items() if low is None)
    low, high = stability_class(min(a, b), bands), stability_class(max(a, b), bands)
    return STABLE_AGAINST_UNSTABLE if low == stable and high != stable else high


def measured_suffix(folds: int) -> str:
    """The suffix of a group's values measured as a design of ``folds`` folds per run trains: ``""`` (10-fold
    runs) for a design training on at least three quarters of the cases (``folds`` >= 4, or 1 for resampled
    90/10 splits), ``"_2fold"`` (2-fold runs, as the 5x2 cv) otherwise."""
    return "" if folds == 1 or folds >= 4 else "_2fold"


def _log(value) -> float:
    return float(np.log(max(float(value), 1e-6)))


def nearest_group(measured: dict, groups: dict) -> str:
    """The scenario group whose learners' instabilities lie nearest to the measured ones, on a log scale.

    The distance is Euclidean over the logarithms of the less stable
    learner's instability (``pair``) and the more stable learner's (the
    smaller of ``a`` and ``b``); ``measured`` without both learners' values
    is placed by ``pair`` alone.  The groups' values are taken as measured
    with the same kind of training part: ``a``, ``b``, ``pair`` (10-fold runs,
    which train on 90%) for a design that trains on at least three quarters
    of the cases (k-fold with k >= 4, resampled 90/10 splits: ``folds`` 1),
    ``a_2fold``, ``b_2fold``, ``pair_2fold`` (2-fold runs, as the 5x2 cv)
    otherwise.  Ties go to the first key in sorted order.
    """
    tail = measured_suffix(int(measured.get("folds", 10)))
    high = _log(measured["pair"])
    both = [measured.get(k) for k in ("a", "b")]
    low = _log(min(both)) if all(v is not None and np.isfinite(v) for v in both) else None

    def distance(key):
        group = groups[key]
        d = (_log(group["pair" + tail]) - high) ** 2
        if low is not None:
            d += (_log(min(group["a" + tail], group["b" + tail])) - low) ** 2
        return (d, key)

    return min(groups, key=distance)
