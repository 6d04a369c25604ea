"""``simstudy replication-probability --model M ...``: Berrar's replication probability of one result.

A calculator over :mod:`simstudy.statistics.replication`::

    simstudy replication-probability --model t --statistic 2.262 --df 9       (or --p 0.00281 --df 9)
    simstudy replication-probability --model binomial --wins 29 --n 44
    simstudy replication-probability --model bayes --wins 29 --n 44
    simstudy replication-probability --model wilcoxon --statistic 1.96 --s-star 1   (or --p 0.05)

prints the inputs, the initial experiment's p-value, the effect the estimate
uses, the point estimate and its prediction interval; ``--json`` prints the same
as one JSON object.  ``--alpha`` is the two-sided significance level (0.05) and
``--level`` the coverage of the prediction interval (0.95).

Each model takes its own options: ``t`` needs ``--df`` and one of
``--statistic``/``--p``; ``binomial`` and ``bayes`` need ``--wins`` and ``--n``;
``wilcoxon`` needs one of ``--statistic``/``--p`` and takes ``--s-star``
(default 1, the null's spread).  A missing option, two alternatives given at
once, or an option the model does not use is a one-line error naming the
option (exit code 2), as is a number that is not finite (``inf``, ``nan``).

Not computable: the non-central t of ``--model t`` cannot be evaluated for a
very large statistic (``|T|`` above about 1e5, e.g. ``--statistic 1e6`` or
``--p 1e-300``).  The values it cannot give are then shown as ``not
computable`` in the text and as ``null`` in the JSON object, which gains a
``"not_computable"`` entry naming those fields and the reason; the exit code
is 0 because everything else (the p-value, the threshold, and the estimate
where it can be computed) is still reported.  The JSON output never contains
``NaN`` or ``Infinity``.  A p-value too small to convert to a statistic in
double precision (e.g. ``--p 1e-320``) is a one-line error naming ``--p``.
"""

from __future__ import annotations

import json
import math

from simstudy.errors import InputError

# argument names of simstudy.statistics.replication -> the options that carry them
_OPTIONS = {
    "wins": "--wins",
    "n": "--n",
    "z": "--statistic",
    "t": "--statistic",
    "statistic": "--statistic",
    "s_star": "--s-star",
    "p": "--p",
    "df": "--df",
    "alpha": "--alpha",
    "level": "--level",
}

_TITLES = {
    "binomial": "binomial model (Berrar, Lemma 1)",
    "bayes": "Bayesian model, uniform prior (Berrar, Lemma 2)",
    "wilcoxon": "Wilcoxon model (Berrar, Proposition 1)",
    "t": "non-central t model, k-fold cross-validation (Berrar, Proposition 2)",
}

# options each model uses (besides --alpha, --level, --json)
_USES = {
    "binomial": ("wins", "n"),
    "bayes": ("wins", "n"),
    "wilcoxon": ("statistic", "p", "s_star"),
    "t": ("statistic", "p", "df"),
}


def register(subparsers):
    p = subparsers.add_parser(
        "replication-probability",
        help="estimated replication probability of a significant result",
        description="Probability that an exact replication of an experiment is significant again in the "
        "same direction (A better), with a prediction interval, under Berrar's models.",
    )
    p.add_argument(
        "--model",
        required=True,
        choices=sorted(_TITLES),
        help="t: variance-corrected t of k-fold cv, non-central t; binomial: wins/N with "
        "Clopper-Pearson interval; bayes: uniform prior, highest-density interval; "
        "wilcoxon: signed-rank Z_w with bootstrapped s*",
    )
    p.add_argument("--statistic", help="observed statistic, positive when A is better: T (t) or Z_w (wilcoxon)")
    p.add_argument("--p", help="two-sided p-value instead of --statistic (t, wilcoxon; A taken to be better)")
    p.add_argument("--df", help="degrees of freedom, k - 1 for k folds (t)")
    p.add_argument("--wins", help="data sets on which A beat B, ties removed (binomial, bayes)")
    p.add_argument("--n", help="number of data sets compared (binomial, bayes)")
    p.add_argument(
        "--s-star",
        dest="s_star",
        help="bootstrapped standard deviation of Z_w (wilcoxon; default 1, the null's spread)",
    )
    p.add_argument(
        "--alpha", default="0.05", help="two-sided significance level (default 0.05; significant means p <= alpha)"
    )
    p.add_argument("--level", default="0.95", help="coverage of the prediction interval (default 0.95)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(func=run)


def _check_options(args):
    """Refuse options the model does not use, and report the first missing one."""
    kind = args.model
    for name in ("statistic", "p", "df", "wins", "n", "s_star"):
        if getattr(args, name) is not None and name not in _USES[kind]:
            raise InputError(f"{_OPTIONS[name]}: not used by --model {kind}")
    if kind in ("t", "wilcoxon"):
        if args.statistic is not None and args.p is not None:
            raise InputError("--statistic: give either --statistic or --p, not both")
        if args.statistic is None and args.p is None:
            raise InputError(f"--statistic: required with --model {kind} (or give --p)")
    needed = {"t": ("df",), "binomial": ("wins", "n"), "bayes": ("wins", "n"), "wilcoxon": ()}[kind]
    for name in needed:
        if getattr(args, name) is None:
            raise InputError(f"{_OPTIONS[name]}: required with --model {kind}")


def _number(args, name: str, *, integer: bool = False):
    raw = getattr(args, name)
    option = _OPTIONS[name]
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise InputError(f"{option}: expected a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise InputError(f"{option}: expected a finite number, got {raw!r}")
    if integer:
        if not value.is_integer():
            raise InputError(f"{option}: must be a whole number, got {raw!r}")
        return int(value)
    return value


def _estimate(args):
    """The model's result and the parsed inputs (as printed)."""
    from simstudy.statistics import replication as rp

    _check_options(args)
    kind = args.model
    kw = {"alpha": _number(args, "alpha"), "level": _number(args, "level")}
    if kind in ("binomial", "bayes"):
        inputs = {"wins": _number(args, "wins", integer=True), "n": _number(args, "n", integer=True)}
        model = rp.binomial_model if kind == "binomial" else rp.bayesian_model
        return model(inputs["wins"], inputs["n"], **kw), inputs
    if kind == "wilcoxon":
        inputs = {"s_star": 1.0 if args.s_star is None else _number(args, "s_star")}
        if args.p is not None:
            inputs["p"] = _number(args, "p")
            return rp.wilcoxon_model_from_p(inputs["p"], inputs["s_star"], **kw), inputs
        inputs["statistic"] = _number(args, "statistic")
        return rp.wilcoxon_model(inputs["statistic"], inputs["s_star"], **kw), inputs
    inputs = {"df": _number(args, "df")}
    if args.p is not None:
        inputs["p"] = _number(args, "p")
        return rp.t_model_from_p(inputs["p"], inputs["df"], **kw), inputs
    inputs["statistic"] = _number(args, "statistic")
    return rp.t_model(inputs["statistic"], inputs["df"], **kw), inputs


def _as_option_error(exc: ValueError) -> ValueError:
    """``wins: ...`` from the library becomes ``--wins: ...``."""
    message = str(exc)
    name, sep, rest = message.partition(":")
    if sep and name in _OPTIONS:
        return InputError(f"{_OPTIONS[name]}:{rest}")
    return exc


# fields of ReplicationEstimate that may be not computable, as the JSON object names them
_FIELDS = ("estimate", "low", "high", "parameter_low", "parameter_high", "pvalue", "parameter", "threshold")


def _not_computable(model, r) -> list:
    """Names of the fields of ``r`` that are NaN or infinite."""
    return [f for f in _FIELDS if not math.isfinite(float(getattr(r, f)))]


def _reason(model, r) -> str:
    if model == "t":
        return (
            f"the non-central t cannot be evaluated at non-centrality T = {r.parameter:g} "
            "(scipy's non-central t fails for |T| above about 1e5)"
        )
    return "the model's distribution cannot be evaluated at these inputs"


def _num(value):
    """A float for JSON: None where it is NaN or infinite."""
    value = float(value)
    return value if math.isfinite(value) else None


def _record(model, r, inputs) -> dict:
    inputs = dict(inputs, alpha=r.alpha, level=r.level)
    parameter = {"binomial": "theta_hat", "bayes": "theta_m", "wilcoxon": "z", "t": "t"}[model]
    limits = {"binomial": "clopper_pearson", "bayes": "hdi", "wilcoxon": "z_range", "t": "nct_quantiles"}[model]
    threshold = {
        "binomial": "min_significant_wins",
        "bayes": "min_significant_wins",
        "wilcoxon": "critical_z",
        "t": "critical_t",
    }[model]
    record = {
        "model": r.model,
        "inputs": inputs,
        "pvalue": _num(r.pvalue),
        parameter: _num(r.parameter),
        limits: [_num(r.parameter_low), _num(r.parameter_high)],
        threshold: int(r.threshold) if model in ("binomial", "bayes") else _num(r.threshold),
        "estimate": _num(r.estimate),
        "interval": [_num(r.low), _num(r.high)],
    }
    missing = _not_computable(model, r)
    if missing:
        names = {
            "low": "interval",
            "high": "interval",
            "parameter_low": limits,
            "parameter_high": limits,
            "parameter": parameter,
            "threshold": threshold,
        }
        record["not_computable"] = {"fields": sorted({names.get(f, f) for f in missing}), "reason": _reason(model, r)}
    return record


def _fmt(value, spec: str = ".4f") -> str:
    """``value`` formatted by ``spec``, or "not computable" when it is NaN or infinite."""
    value = float(value)
    return format(value, spec) if math.isfinite(value) else "not computable"


def _pair(a, b) -> str:
    if math.isfinite(float(a)) and math.isfinite(float(b)):
        return f"[{float(a):.4f}, {float(b):.4f}]"
    return "not computable"


def _stat(value) -> str:
    """A statistic: four decimals, or six significant digits when it is huge."""
    value = float(value)
    return _fmt(value, ".4f" if not math.isfinite(value) or abs(value) < 1e6 else ".6g")


def _text(model, r, inputs) -> str:
    pct = f"{100 * r.level:g}%"
    rows = []
    if model in ("binomial", "bayes"):
        s = int(r.threshold)
        rows.append(("wins of A", f"{inputs['wins']} of {inputs['n']}"))
        rows.append(("p-value", f"{_fmt(r.pvalue, '.4g')} (exact two-sided binomial, H0 theta = 1/2)"))
        if model == "binomial":
            rows.append(
                (
                    "theta",
                    f"{_fmt(r.parameter)} = wins/N; {pct} Clopper-Pearson {_pair(r.parameter_low, r.parameter_high)}",
                )
            )
        else:
            rows.append(
                (
                    "theta_m",
                    f"{_fmt(r.parameter)} = (wins+1)/(N+2); {pct} HDI {_pair(r.parameter_low, r.parameter_high)}",
                )
            )
        needed = f">= {s} wins" if s <= inputs["n"] else "no number of wins is significant"
        rows.append(("significant", f"{needed} (p <= {r.alpha:g})"))
    elif model == "wilcoxon":
        rows.append(("Z_w", _stat(r.parameter) + (f" (from p = {inputs['p']:g})" if "p" in inputs else "")))
        rows.append(("s*", f"{inputs['s_star']:g}"))
        rows.append(("p-value", f"{_fmt(r.pvalue, '.4g')} (two-sided, normal)"))
        rows.append(("Z_w range", f"{_pair(r.parameter_low, r.parameter_high)} (Z_w -/+ z_(1-c/2) s*)"))
        rows.append(("significant", f"Z >= {_fmt(r.threshold)} (alpha {r.alpha:g})"))
    else:
        rows.append(("T", _stat(r.parameter) + (f" (from p = {inputs['p']:g})" if "p" in inputs else "")))
        rows.append(("df", f"{inputs['df']:g}"))
        rows.append(("p-value", f"{_fmt(r.pvalue, '.4g')} (two-sided Student t)"))
        rows.append(("nct quantiles", f"{_pair(r.parameter_low, r.parameter_high)} (c/2 and 1-c/2, non-centrality T)"))
        rows.append(("significant", f"t >= {_fmt(r.threshold)} (alpha {r.alpha:g})"))
    rows.append(("replication probability", _fmt(r.estimate)))
    rows.append((f"{pct} prediction interval", _pair(r.low, r.high)))
    if _not_computable(model, r):
        rows.append(("not computable", _reason(model, r)))
    width = max(len(k) for k, _ in rows)
    return "\n".join([_TITLES[model]] + [f"  {k:<{width}}  {v}" for k, v in rows])


def run(args) -> int:
    try:
        r, inputs = _estimate(args)
    except ValueError as exc:
        raise _as_option_error(exc) from None
    print(
        json.dumps(_record(args.model, r, inputs), indent=2, allow_nan=False)
        if args.json
        else _text(args.model, r, inputs)
    )
    return 0
