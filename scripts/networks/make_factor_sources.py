"""Build the sources of Bouckaert's "further experiments" (class prior, class cardinality).

Bouckaert (2004, Sec. 4) varies the class probability of binary data (0.1 .. 0.5)
and the class cardinality (2, 3, 4) but publishes neither the networks nor how he
made them.  Our choices, written to ``factor_sources.json`` beside the networks:

* class prior p in (0.1, 0.2, 0.3, 0.4): each stored source ``bouckaert1`` ..
  ``bouckaert4`` with the class node's table replaced by P(class = 1) = p, every
  other table unchanged (the class-conditional distributions of the attributes
  are kept; only their mixture weights move).  Names ``bouckaertI_priorP``.
  Prior 0.5 is the stored source itself.  Changing the prior changes the
  C4.5 - naive Bayes gap, so each network's gap is measured again.
* class cardinality k in (3, 4): ``independent_kK``, an independent source with a
  uniform k-valued class, and ``augmented_kK``, a random augmented naive Bayes
  network with bouckaert3's generator settings (10 extra arcs, at most 2 attribute
  parents, concentration 0.3, class strength 0.665) and a k-valued uniform class,
  chosen by a short random search over seeds (``search_source``: at most
  ``--candidates`` networks screened on 20 training sets) for a gap near
  bouckaert3's measured 5.88 points, so the three cardinalities have dependent
  sources of a similar difficulty for the pair.  For k = 2 the study uses
  bouckaert1 and bouckaert3 themselves.

Every new network's gap (C4.5 = Weka's J48, naive Bayes = Weka's NaiveBayes, both
with nominal attributes, as in the studies) is measured exactly over the whole
distribution on ``--final-sets`` training sets of 300 cases.  On an independent
source with a uniform class every classifier has expected accuracy 1/k, so any
pair of learners has a true null; with a non-uniform prior the learners'
accuracies depend on how often they predict the minority class (``true_null``
records which is which).

Run from the repository root::

    python simstudy/pipeline/sources/networks/make_factor_sources.py [--final-sets 1000]

Every seed is fixed, so the run is reproducible for a given version of the learners.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict

import numpy as np

from simstudy.pipeline.sources.bayesnet import (
    NETWORKS_DIR,
    BayesNetSource,
    independent_source,
    load_source,
    measure_gap,
    random_augmented_nb,
    search_source,
    stored_sources,
    write_source,
)

HERE = NETWORKS_DIR  # the package's networks folder
OUT_JSON = HERE / "factor_sources.json"
SEED = 20040607
PRIORS = (0.1, 0.2, 0.3, 0.4)
BASES = ("bouckaert1", "bouckaert2", "bouckaert3", "bouckaert4")
CARDINALITIES = (3, 4)
TEMPLATE = "bouckaert3"  # generator settings and target gap of the dependent k-class sources


def with_prior(source: BayesNetSource, p: float) -> BayesNetSource:
    """``source`` with its (root) class node's table replaced by [1 - p, p]."""
    c = len(source.names) - 1
    if source.parents[c]:
        raise ValueError("the class node must be a root")
    tables = list(source.tables)
    tables[c] = (1.0 - p, p)
    return BayesNetSource(source.names, source.cardinalities, source.parents, tuple(tables))


def factories(n_attributes: int = 10):
    from simstudy.pipeline.learners.j48 import J48
    from simstudy.pipeline.learners.weka import WekaNaiveBayes

    mask = np.ones(n_attributes, dtype=bool)
    return (lambda: J48(nominal=mask)), (lambda: WekaNaiveBayes(nominal=mask))


def class_probabilities(source: BayesNetSource) -> list:
    return [round(float(v), 12) for v in source.joint_distribution()[1].sum(axis=0)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--final-sets", type=int, default=1000, help="training sets of the exact gap measurement")
    ap.add_argument("--candidates", type=int, default=30, help="networks screened per k-class dependent source")
    ap.add_argument("--tolerance", type=float, default=0.5, help="accepted distance from the target gap, points")
    args = ap.parse_args(argv)
    tree, nb = factories()
    stored = stored_sources()
    template = stored[TEMPLATE]
    target = float(template["gap"])
    streams = iter(np.random.SeedSequence(SEED).spawn(64))
    out = {}

    def record(name, source, made, search=None, **extra):
        t0 = time.perf_counter()
        rng = np.random.default_rng(next(streams))
        est = measure_gap(source, tree, nb, rng, n_train_sets=args.final_sets, n_test=None)
        write_source(source, HERE / f"{name}.xml")
        prior = class_probabilities(source)
        independent = source.n_arcs == 0
        uniform = bool(np.allclose(prior, 1.0 / source.n_classes))
        out[name] = {
            "file": f"{name}.xml",
            **extra,
            "n_classes": source.n_classes,
            "class_prior": prior,
            "independent": independent,
            "true_null": independent and uniform,
            "gap": est.gap,
            "gap_se": est.se,
            "measured_exact": asdict(est),
            "bayes_accuracy": source.bayes_accuracy(),
            "majority_accuracy": max(prior),
            "n_arcs": source.n_arcs,
            "made_by": made,
            "search": search,
        }
        print(
            f"{name:24s} gap {est.gap:6.2f} +- {est.se:.2f}  acc C4.5 {est.accuracy_a:.3f} NB {est.accuracy_b:.3f}"
            f"  Bayes {source.bayes_accuracy():.3f}  {time.perf_counter() - t0:.0f} s",
            flush=True,
        )

    for base in BASES:
        src = load_source(base)
        for p in PRIORS:
            record(
                f"{base}_prior{p}",
                with_prior(src, p),
                {"generator": "class table replaced", "base": base, "class_prior": p},
                factor="prior",
                level=p,
                family=base,
            )

    for k in CARDINALITIES:
        rng = np.random.default_rng(next(streams))
        seed = int(rng.integers(2**63))
        record(
            f"independent_k{k}",
            independent_source(10, rng=seed, n_classes=k),
            {"generator": "independent_source", "n_attributes": 10, "n_classes": k, "seed": seed},
            factor="classes",
            level=k,
            family="independent",
        )
        settings = {key: v for key, v in template["made_by"].items() if key not in ("generator", "seed", "adjusted")}
        settings["n_classes"] = k

        def propose(r, settings=settings):
            s = int(r.integers(2**63))
            return random_augmented_nb(rng=s, **settings), {"generator": "random_augmented_nb", **settings, "seed": s}

        t0 = time.perf_counter()
        res = search_source(
            target,
            tree,
            nb,
            rng,
            propose=propose,
            n_candidates=args.candidates,
            tolerance=args.tolerance,
            n_screen_sets=20,
            n_confirm_sets=200,
        )
        print(
            f"  search for k = {k}: {res.n_tried} candidates, confirmed gap {res.estimate.gap:.2f}"
            f" ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        search = {
            "target_gap": target,
            "target_from": TEMPLATE,
            "n_tried": res.n_tried,
            "found": res.found,
            "tolerance": args.tolerance,
            "confirmed_gap": res.estimate.gap,
            "confirmed_se": res.estimate.se,
            "n_confirm_sets": 200,
        }
        record(f"augmented_k{k}", res.source, res.params, search, factor="classes", level=k, family="augmented")

    doc = {
        "description": (
            "Sources of Bouckaert (2004)'s further experiments: class prior (the stored sources bouckaert1-4 with "
            "P(class = 1) replaced) and class cardinality (3- and 4-valued classes: an independent source and a "
            "random augmented naive Bayes network with bouckaert3's settings). gap = mean over training sets of "
            "300 cases of exact accuracy(C4.5) - accuracy(naive Bayes), percentage points (Weka's J48 and "
            "NaiveBayes, nominal attributes). true_null: independent attributes and a uniform class, so every "
            "learner's expected accuracy is 1/k. Built by make_factor_sources.py."
        ),
        "seed": SEED,
        "learners": {
            "a": "simstudy.pipeline.learners.j48.J48(nominal=all)",
            "b": "simstudy.pipeline.learners.weka.WekaNaiveBayes(nominal=all)",
        },
        "sources": out,
    }
    with open(OUT_JSON, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")


if __name__ == "__main__":
    main()
