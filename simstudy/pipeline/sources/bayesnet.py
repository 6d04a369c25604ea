"""Discrete Bayesian networks as data sources: Bouckaert's synthetic sources.

Bouckaert (2004, Sec. 4; details in Bouckaert 2003) draws his synthetic data from
four randomly generated Bayesian networks over 10 binary attributes and a binary
class with prior 0.5.  Source 1 has mutually independent variables (no difference
between naive Bayes and C4.5, for the Type I error); on sources 2, 3 and 4 C4.5
beats naive Bayes by 2.77, 5.83 and 11.27 percentage points on average (trained on
300 instances, measured on 10,000-instance test sets), for the power.  The networks
themselves were not published; :func:`search_source` looks for networks with the
published gaps among random augmented naive Bayes networks
(:func:`random_augmented_nb`), and :func:`load_source` returns the ones stored with
the package (``networks/*.xml`` in XMLBIF, made by ``scripts/networks/make_sources.py``;
settings, seeds, learners and measured gaps in ``networks/sources.json``).  With
Weka's J48 and NaiveBayes their gaps are 0, 2.64, 5.88 and 11.30 points (exact
accuracies, 1000 training sets, standard errors 0.05-0.06).

Conventions
-----------
* A network's nodes are its attributes followed by the class, which is always the
  last node.  Every variable takes integer codes ``0 .. cardinality - 1``.
* The conditional probability table (CPT) of a node with parents
  ``(q_1, ..., q_m)`` has one row per parent configuration; the row of the
  configuration ``(s_1, ..., s_m)`` is ``sum_i s_i * prod_{l > i} card(q_l)``
  (the last parent varies fastest).  This is the column order of pgmpy's
  ``TabularCPD`` and the order of XMLBIF's ``<TABLE>``, so tables pass between
  them unchanged.
* ``sample`` is ancestral (forward) sampling in topological order with one uniform
  number per node and case, turned into a state by the inverse of the CPT row's
  cumulative distribution.

pgmpy is imported only by the functions that convert to or from it or read and
write files; sampling and exact enumeration need numpy only.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simstudy._validation import check_positive
from simstudy.errors import InputError

__all__ = [
    "BayesNetSource",
    "GapEstimate",
    "independent_source",
    "random_augmented_nb",
    "measure_gap",
    "SearchResult",
    "propose_augmented_nb",
    "search_source",
    "write_source",
    "read_source",
    "load_source",
    "stored_sources",
]

NETWORKS_DIR = Path(__file__).with_name("networks")
_MAX_ENUMERATED = 1 << 20  # attribute configurations: beyond this exact enumeration is refused


def _natural_key(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(name))]


def _topological_order(parents) -> np.ndarray | None:
    """Kahn's algorithm, lowest index first among ready nodes; ``None`` for a cycle."""
    m = len(parents)
    n_missing = [len(p) for p in parents]
    children: list[list[int]] = [[] for _ in range(m)]
    for j, ps in enumerate(parents):
        for q in ps:
            children[q].append(j)
    ready = sorted(j for j in range(m) if n_missing[j] == 0)
    order = []
    while ready:
        j = ready.pop(0)
        order.append(j)
        for c in children[j]:
            n_missing[c] -= 1
            if n_missing[c] == 0:
                ready.append(c)
        ready.sort()
    return np.array(order, dtype=np.intp) if len(order) == m else None


@dataclass(frozen=True)
class BayesNetSource:
    """A discrete Bayesian network whose last node is the class.

    Parameters
    ----------
    names : sequence of str
        Node names, the attributes first and the class last.
    cardinalities : sequence of int
        Number of states (>= 2) of each node, in the order of ``names``.
    parents : sequence of sequences of int
        ``parents[j]`` lists the indices (into ``names``) of node j's parents; the
        order fixes the row order of node j's table (last parent fastest).  The
        graph must be acyclic.
    tables : sequence of array_like
        ``tables[j]`` is node j's CPT with shape ``(n_configurations_j,
        cardinalities[j])`` (or the same numbers flattened row by row), where
        ``n_configurations_j`` is the product of the parents' cardinalities (1 for a
        root).  Entries must be non-negative and each row must sum to 1 within
        1e-6.  Tables are kept as given (so a round trip through pgmpy or a file
        is exact); in sampling, the last state with positive probability takes
        whatever rounding leaves of the row.

    Notes
    -----
    All fields are stored as tuples, so the source is hashable and its ``repr`` is
    a stable identity (for seeds and result columns).  Derived arrays used by the
    sampler are computed once in ``__post_init__``.
    """

    names: tuple
    cardinalities: tuple
    parents: tuple
    tables: tuple
    _order: np.ndarray = field(init=False, repr=False, compare=False)
    _strides: tuple = field(init=False, repr=False, compare=False)
    _thresholds: tuple = field(init=False, repr=False, compare=False)
    _cpts: tuple = field(init=False, repr=False, compare=False)
    _joint: tuple | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self):
        names = tuple(str(n) for n in self.names)
        m = len(names)
        if m < 2:
            raise InputError(f"names: need at least one attribute and the class, got {m} node(s)")
        if len(set(names)) != m:
            raise InputError("names: node names must be unique")
        try:
            cards = tuple(int(c) for c in self.cardinalities)
        except (TypeError, ValueError) as exc:
            raise InputError("cardinalities: expected integers") from exc
        if len(cards) != m or min(cards) < 2 or any(c != c0 for c, c0 in zip(cards, self.cardinalities)):
            raise InputError(f"cardinalities: expected {m} integers >= 2, got {self.cardinalities!r}")
        if len(self.parents) != m:
            raise InputError(f"parents: expected {m} parent lists, got {len(self.parents)}")
        parents = []
        for j, ps in enumerate(self.parents):
            ps = tuple(int(q) for q in ps)
            if len(set(ps)) != len(ps) or any(q < 0 or q >= m or q == j for q in ps):
                raise InputError(f"parents: node {names[j]!r} has invalid parents {ps!r}")
            parents.append(ps)
        parents = tuple(parents)
        order = _topological_order(parents)
        if order is None:
            raise InputError("parents: the graph has a directed cycle")
        if len(self.tables) != m:
            raise InputError(f"tables: expected {m} tables, got {len(self.tables)}")
        tables, cpts, thresholds, strides = [], [], [], []
        for j in range(m):
            pc = [cards[q] for q in parents[j]]
            n_cfg = math.prod(pc)
            t = np.array(self.tables[j], dtype=float)  # a copy: it is frozen below
            if t.size != n_cfg * cards[j]:
                raise InputError(
                    f"tables: node {names[j]!r} needs {n_cfg} x {cards[j]} probabilities, got shape {t.shape}"
                )
            t = t.reshape(n_cfg, cards[j])
            if not np.all(np.isfinite(t)) or np.any(t < 0):
                raise InputError(f"tables: node {names[j]!r} has negative or non-finite probabilities")
            if np.any(np.abs(t.sum(axis=1) - 1.0) > 1e-6):
                raise InputError(f"tables: the rows of node {names[j]!r} must sum to 1")
            t.setflags(write=False)
            cpts.append(t)
            tables.append(tuple(t.ravel().tolist()))
            # State s is drawn when c_{s-1} <= u < c_s; a threshold with no mass above
            # it is pushed past 1 so that rounding can never select an impossible
            # trailing state.
            cum = np.cumsum(t, axis=1)[:, :-1]
            mass_above = np.cumsum(t[:, ::-1], axis=1)[:, ::-1][:, 1:]
            thr = np.where(mass_above > 0, cum, 2.0)
            thresholds.append(np.ascontiguousarray(thr[:, 0]) if cards[j] == 2 else thr)
            s = np.ones(len(pc), dtype=np.int64)
            for i in range(len(pc) - 2, -1, -1):
                s[i] = s[i + 1] * pc[i + 1]
            strides.append(s)
        set_ = object.__setattr__
        set_(self, "names", names)
        set_(self, "cardinalities", cards)
        set_(self, "parents", parents)
        set_(self, "tables", tuple(tables))
        set_(self, "_order", order)
        set_(self, "_strides", tuple(strides))
        set_(self, "_thresholds", tuple(thresholds))
        set_(self, "_cpts", tuple(cpts))

    # -- description -------------------------------------------------------------

    @property
    def n_attributes(self) -> int:
        """Number of attributes (every variable but the class)."""
        return len(self.names) - 1

    @property
    def n_classes(self) -> int:
        """Number of values of the class variable."""
        return self.cardinalities[-1]

    @property
    def attribute_names(self) -> tuple:
        """Names of the attributes, in column order."""
        return self.names[:-1]

    @property
    def class_name(self) -> str:
        """Name of the class variable (the last variable)."""
        return self.names[-1]

    def cpt(self, node) -> np.ndarray:
        """Node's CPT (read-only) with shape ``(n_configurations, cardinality)``; ``node`` is a name or index."""
        j = self.names.index(node) if isinstance(node, str) else int(node)
        return self._cpts[j]

    @property
    def n_arcs(self) -> int:
        """Number of arcs of the network (parents summed over variables)."""
        return sum(len(p) for p in self.parents)

    # -- sampling ------------------------------------------------------------------

    def _config_index(self, cols: np.ndarray, j: int):
        """Row of node j's CPT for each case; ``cols[q]`` holds node q's codes (node-major)."""
        ps = self.parents[j]
        if not ps:
            return 0
        idx = cols[ps[-1]].astype(np.intp)
        for q, s in zip(ps[:-1], self._strides[j][:-1]):
            idx += cols[q] * s
        return idx

    def sample(self, n_cases: int, rng, *, n_sets: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Draw cases by ancestral sampling.

        Parameters
        ----------
        n_cases : int
            Cases per data set.
        rng : anything :func:`numpy.random.default_rng` accepts
            The only source of randomness.
        n_sets : int, optional
            Draw this many independent data sets at once (a leading axis).

        Returns
        -------
        X : ndarray of int64, shape (n_cases, n_attributes) or (n_sets, n_cases, n_attributes)
            Attribute codes.
        y : ndarray of int64, shape (n_cases,) or (n_sets, n_cases)
            Class codes.

        Notes
        -----
        One uniform number per node and case is drawn up front (a block of shape
        ``(n_nodes, ..., n_cases)``), so the data depend only on ``rng`` and the
        network, not on the order in which nodes are visited.
        """
        check_positive(n_cases, "n_cases", integer=True)
        shape: tuple[int, ...] = (n_cases,)
        if n_sets is not None:
            check_positive(n_sets, "n_sets", integer=True)
            shape = (n_sets, n_cases)
        rng = np.random.default_rng(rng)
        m = len(self.names)
        # Node-major blocks keep every per-node operation on contiguous memory, and
        # one-byte codes keep the blocks small; the result is widened once at the end.
        u = rng.random((m,) + shape)
        codes = np.empty((m,) + shape, dtype=np.int8 if max(self.cardinalities) <= 127 else np.int64)
        for j in self._order:
            thr = np.take(self._thresholds[j], self._config_index(codes, j), axis=0)
            if self.cardinalities[j] == 2:
                codes[j] = u[j] >= thr
            else:
                codes[j] = (u[j][..., None] >= thr).sum(axis=-1)
        return np.moveaxis(codes[:-1], 0, -1).astype(np.int64, order="C"), codes[-1].astype(np.int64)

    # -- exact quantities ----------------------------------------------------------

    def log_probability(self, X, y) -> np.ndarray:
        """Natural log of the joint probability P(x, y) of each case (``-inf`` where it is 0).

        ``X`` has shape (..., n_attributes) and ``y`` the matching shape (...).
        """
        X = np.asarray(X)
        y = np.asarray(y)
        if X.shape[-1:] != (self.n_attributes,) or X.shape[:-1] != y.shape:
            raise InputError(f"X: expected shape (..., {self.n_attributes}) matching y, got {X.shape} and {y.shape}")
        codes = np.concatenate([X, y[..., None]], axis=-1).astype(np.int64)
        if np.any(codes < 0) or np.any(codes >= np.array(self.cardinalities)):
            raise InputError("X: codes must lie in 0 .. cardinality - 1 (y likewise)")
        cols = np.moveaxis(codes, -1, 0)
        out = np.zeros(y.shape)
        with np.errstate(divide="ignore"):
            for j in range(len(self.names)):
                out += np.log(self._cpts[j][self._config_index(cols, j), cols[j]])
        return out

    def joint_distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """Every attribute configuration with its joint probability for each class.

        Returns
        -------
        X : ndarray of int64, shape (n_configurations, n_attributes)
            All attribute configurations in lexicographic order (last attribute fastest).
        p : ndarray, shape (n_configurations, n_classes)
            ``p[i, c] = P(x_i, y = c)``; the whole array sums to 1.

        Raises
        ------
        ValueError
            If there are more than 2**20 attribute configurations.

        Notes
        -----
        Computed once per source and kept (read-only), since scoring every fitted
        model of a study by :meth:`expected_accuracy` needs it again and again.
        """
        if self._joint is not None:
            return self._joint
        cards = self.cardinalities[:-1]
        n = math.prod(cards)
        if n > _MAX_ENUMERATED:
            raise InputError(f"cardinalities: {n} attribute configurations are too many to enumerate")
        X = np.stack(np.unravel_index(np.arange(n), cards), axis=-1).astype(np.int64)
        k = self.n_classes
        Xk = np.broadcast_to(X[:, None, :], (n, k, X.shape[1]))
        yk = np.broadcast_to(np.arange(k), (n, k))
        p = np.exp(self.log_probability(Xk, yk))
        X.setflags(write=False)
        p.setflags(write=False)
        object.__setattr__(self, "_joint", (X, p))
        return X, p

    def expected_accuracy(self, predict) -> float:
        """Accuracy on the whole distribution (an infinite test set) of a classifier.

        ``predict`` is a fitted classifier (anything with ``predict``) or a function
        mapping an (n, n_attributes) array of codes to n class codes.
        """
        X, p = self.joint_distribution()
        f = getattr(predict, "predict", predict)
        pred = np.asarray(f(X)).astype(np.int64)
        return float(p[np.arange(len(X)), pred].sum())

    def bayes_accuracy(self) -> float:
        """Accuracy of the Bayes-optimal classifier, the ceiling for every learner."""
        return float(self.joint_distribution()[1].max(axis=1).sum())

    # -- pgmpy -----------------------------------------------------------------------

    def to_pgmpy(self):
        """The network as a pgmpy ``DiscreteBayesianNetwork`` with one ``TabularCPD`` per node.

        State names are the integer codes, so pgmpy's samplers return the same codes
        as :meth:`sample`.
        """
        Network, TabularCPD = _pgmpy_classes()
        model = Network()
        model.add_nodes_from(self.names)
        model.add_edges_from((self.names[q], self.names[j]) for j, ps in enumerate(self.parents) for q in ps)
        cpds = []
        for j, name in enumerate(self.names):
            ev = [self.names[q] for q in self.parents[j]]
            states = {v: list(range(self.cardinalities[self.names.index(v)])) for v in [name, *ev]}
            cpds.append(
                TabularCPD(
                    name,
                    self.cardinalities[j],
                    self._cpts[j].T,
                    evidence=ev or None,
                    evidence_card=[self.cardinalities[q] for q in self.parents[j]] or None,
                    state_names=states,
                )
            )
        model.add_cpds(*cpds)
        model.check_model()
        return model

    @classmethod
    def from_pgmpy(cls, model, class_variable: str = "class", attributes=None) -> "BayesNetSource":
        """Build a source from a pgmpy discrete Bayesian network with tabular CPDs.

        Parameters
        ----------
        model : pgmpy DiscreteBayesianNetwork (or BayesianNetwork)
        class_variable : str
            The node that is the class.
        attributes : sequence of str, optional
            Attribute order; by default all other nodes in natural order of their
            names ("a2" before "a10").

        Notes
        -----
        A variable's code is the position of its state in the CPD's ``state_names``.
        """
        names = _node_order([str(v) for v in model.nodes()], class_variable, attributes)
        pos = {n: i for i, n in enumerate(names)}
        cards, parents, tables = [], [], []
        for name in names:
            cpd = model.get_cpds(name)
            if cpd is None:
                raise InputError(f"model: node {name!r} has no CPD")
            ev = [str(v) for v in cpd.variables[1:]]
            cards.append(int(cpd.variable_card))
            parents.append(tuple(pos[v] for v in ev))
            tables.append(np.asarray(cpd.get_values(), dtype=float).T)
        return cls(tuple(names), tuple(cards), tuple(parents), tuple(tables))


def _node_order(nodes: list, class_variable: str, attributes) -> list:
    """The source's variable order: the attributes (``attributes``, or by default every node but the class in
    natural order of their names, "a2" before "a10"), then the class."""
    if class_variable not in nodes:
        raise InputError(f"class_variable: {class_variable!r} is not a node of the model")
    if attributes is None:
        attributes = sorted((v for v in nodes if v != class_variable), key=_natural_key)
    else:
        attributes = [str(a) for a in attributes]
        if sorted(attributes) != sorted(v for v in nodes if v != class_variable):
            raise InputError("attributes: must list every node except the class exactly once")
    return [*attributes, class_variable]


def _pgmpy(what: str):
    """``import pgmpy`` for ``what``, or one line naming the extra that installs it."""
    try:
        import pgmpy
    except ImportError:
        raise InputError(f"{what} needs pgmpy: pip install 'simstudy[bif]'") from None
    return pgmpy


def _pgmpy_classes():
    _pgmpy("a pgmpy network (to_pgmpy)")
    from pgmpy.factors.discrete import TabularCPD

    try:
        from pgmpy.models import DiscreteBayesianNetwork as Network
    except ImportError:  # older pgmpy releases call it BayesianNetwork
        from pgmpy.models import BayesianNetwork as Network
    return Network, TabularCPD


# -- random networks ---------------------------------------------------------------------


def _class_table(n_classes, class_prior) -> np.ndarray:
    if n_classes not in (2, 3, 4):
        raise InputError(f"n_classes: must be 2, 3 or 4, got {n_classes!r}")
    if class_prior is None:
        return np.full((1, n_classes), 1.0 / n_classes)
    if np.ndim(class_prior) == 0:
        if n_classes != 2:
            raise InputError("class_prior: a single number is P(class = 1) and needs n_classes = 2")
        p = float(class_prior)
        if not 0.0 < p < 1.0:
            raise InputError(f"class_prior: must lie strictly between 0 and 1, got {class_prior!r}")
        return np.array([[1.0 - p, p]])
    probs = np.asarray(class_prior, dtype=float)
    if probs.shape != (n_classes,) or np.any(probs <= 0) or abs(probs.sum() - 1.0) > 1e-9:
        raise InputError(f"class_prior: expected {n_classes} positive probabilities summing to 1, got {class_prior!r}")
    return probs[None, :]


def _attribute_names(n_attributes):
    check_positive(n_attributes, "n_attributes", integer=True)
    width = len(str(n_attributes))
    return tuple(f"a{i:0{width}d}" for i in range(1, n_attributes + 1))


def independent_source(n_attributes: int = 10, class_prior=None, rng=None, *, n_classes: int = 2) -> BayesNetSource:
    """Bouckaert's source 1: attributes and class mutually independent.

    Parameters
    ----------
    n_attributes : int
        Number of binary attributes (10 in Bouckaert 2004).
    class_prior : float or sequence of float, optional
        A number is P(class = 1) (two classes only); a sequence gives every class's
        probability.  Default: uniform, i.e. 0.5 for two classes as in the paper.
    rng : anything :func:`numpy.random.default_rng` accepts
        Draws each attribute's P(a = 1) uniformly from (0, 1).
    n_classes : int
        2 (default), 3 or 4.

    Notes
    -----
    No attribute carries information about the class, so every learner has the
    same expected accuracy (the largest class prior): the source for Type I error.
    """
    names = _attribute_names(n_attributes)
    cls_table = _class_table(n_classes, class_prior)
    rng = np.random.default_rng(rng)
    p1 = rng.random(n_attributes)
    tables = [np.array([[1.0 - p, p]]) for p in p1] + [cls_table]
    cards = (2,) * n_attributes + (n_classes,)
    return BayesNetSource(names + ("class",), cards, ((),) * (n_attributes + 1), tuple(tables))


def random_augmented_nb(
    n_attributes: int = 10,
    n_extra_arcs: int = 5,
    rng=None,
    *,
    n_classes: int = 2,
    class_prior=None,
    max_parents: int = 2,
    concentration: float = 1.0,
    class_strength: float = 1.0,
) -> BayesNetSource:
    """Naive Bayes structure plus random arcs between attributes, with random CPTs.

    The class is the parent of every attribute; ``n_extra_arcs`` distinct arcs
    between attributes are added along a random ordering of the attributes (so
    the graph stays acyclic), each attribute receiving at most ``max_parents``
    attribute parents.  An attribute's CPT row for attribute-parent configuration
    u and class c is ``(1 - class_strength) * r_u + class_strength * r_uc``, where
    ``r_u`` and every ``r_uc`` are independent draws from a symmetric
    Dirichlet(``concentration``) distribution (uniform on (0, 1) for P(a = 1) when
    ``concentration`` is 1); the class is a root with the given prior.

    Parameters
    ----------
    n_attributes : int
        Number of binary attributes.
    n_extra_arcs : int
        Arcs between attributes; at most what ``max_parents`` and the ordering allow.
    rng : anything :func:`numpy.random.default_rng` accepts
    n_classes : int
        2 (default), 3 or 4.
    class_prior : float or sequence of float, optional
        As in :func:`independent_source`; default uniform (0.5 for two classes).
    max_parents : int
        Largest number of attribute parents of one attribute.
    concentration : float
        Dirichlet parameter of the CPT rows: below 1 gives near-deterministic rows
        and so stronger attribute interactions, which naive Bayes cannot represent.
    class_strength : float
        In [0, 1]: how much of each row depends on the class.  1 (every row drawn
        independently) makes the class nearly determined by 10 attributes (Bayes
        accuracies mostly above 0.95); smaller values give the moderate accuracies
        of a realistic learning problem, 0 makes attributes and class independent.

    Notes
    -----
    Bouckaert (2004, Sec. 4) says only that his sources are random Bayesian
    networks over 10 binary attributes and the class; this family is our choice.
    Dependencies between attributes given the class are what naive Bayes cannot
    represent and a tree can, so more arcs and smaller ``concentration`` tend to
    give larger C4.5 - naive Bayes gaps.
    """
    names = _attribute_names(n_attributes)
    cls_table = _class_table(n_classes, class_prior)
    check_positive(n_extra_arcs, "n_extra_arcs", integer=True, allow_zero=True)
    check_positive(max_parents, "max_parents", integer=True, allow_zero=True)
    check_positive(concentration, "concentration")
    ok = isinstance(class_strength, numbers.Real) and not isinstance(class_strength, bool)
    if not ok or not 0.0 <= class_strength <= 1.0:
        raise InputError(f"class_strength: must lie in [0, 1], got {class_strength!r}")
    capacity = sum(min(i, max_parents) for i in range(n_attributes))
    if n_extra_arcs > capacity:
        raise InputError(
            f"n_extra_arcs: at most {capacity} arcs fit among {n_attributes} attributes with max_parents={max_parents}"
        )
    rng = np.random.default_rng(rng)
    perm = rng.permutation(n_attributes)
    # Candidate arcs go from an earlier to a later attribute of the random ordering.
    cand = [(perm[i], perm[j]) for j in range(n_attributes) for i in range(j)]
    chosen: dict[int, list[int]] = {j: [] for j in range(n_attributes)}
    n_added = 0
    for idx in rng.permutation(len(cand)):
        if n_added == n_extra_arcs:
            break
        q, j = cand[idx]
        if len(chosen[j]) < max_parents:
            chosen[j].append(int(q))
            n_added += 1
    c = n_attributes
    parents, tables = [], []
    for j in range(n_attributes):
        ps = tuple(sorted(chosen[j])) + (c,)
        n_cfg = 2 ** (len(ps) - 1)
        shared = rng.dirichlet([concentration, concentration], size=(n_cfg, 1))
        own = rng.dirichlet([concentration, concentration], size=(n_cfg, n_classes))
        # rows ordered by (attribute parents..., class), the class fastest
        tables.append(((1.0 - class_strength) * shared + class_strength * own).reshape(-1, 2))
        parents.append(ps)
    parents.append(())
    tables.append(cls_table)
    cards = (2,) * n_attributes + (n_classes,)
    return BayesNetSource(names + ("class",), cards, tuple(parents), tuple(tables))


# -- accuracy gaps and the search for sources 2-4 ----------------------------------------


@dataclass(frozen=True)
class GapEstimate:
    """Mean accuracy difference of two learners on one source.

    Attributes
    ----------
    gap : float
        Mean over training sets of ``accuracy_a - accuracy_b``, in percentage points.
    se : float
        Monte Carlo standard error of ``gap`` (sample standard deviation of the
        per-set differences over sqrt(n_train_sets); 0 for a single set).
    accuracy_a, accuracy_b : float
        Mean accuracies (fractions).
    n_train_sets, n_train : int
        Number of training sets and their size.
    n_test : int or None
        Size of the fresh test set drawn for each training set; ``None`` means the
        exact accuracy on the whole distribution (:meth:`BayesNetSource.expected_accuracy`).
    """

    gap: float
    se: float
    accuracy_a: float
    accuracy_b: float
    n_train_sets: int
    n_train: int
    n_test: int | None


def _fresh(learner):
    """A new unfitted copy of an estimator instance, or the result of calling a factory (or class)."""
    if hasattr(learner, "fit") and not isinstance(learner, type):
        from sklearn.base import clone

        return clone(learner)
    return learner()


def measure_gap(
    source: BayesNetSource,
    learner_a,
    learner_b,
    rng,
    *,
    n_train: int = 300,
    n_train_sets: int = 100,
    n_test: int | None = 10_000,
) -> GapEstimate:
    """How much ``learner_a`` beats ``learner_b`` on ``source`` (Bouckaert 2004, Sec. 4).

    Each learner is fitted on ``n_train_sets`` independent training sets of
    ``n_train`` cases and scored on a fresh test set of ``n_test`` cases (10,000 in
    the paper) or, with ``n_test=None``, exactly by enumerating every attribute
    configuration, which has no test-set noise and is cheaper for 10 binary
    attributes.

    ``learner_a`` and ``learner_b`` are scikit-learn style estimators (cloned before
    each fit) or zero-argument callables returning a fresh one; they get the
    attribute codes as a 2-d integer array.
    """
    check_positive(n_train, "n_train", integer=True)
    check_positive(n_train_sets, "n_train_sets", integer=True)
    if n_test is not None:
        check_positive(n_test, "n_test", integer=True)
    rng = np.random.default_rng(rng)
    Xtr, ytr = source.sample(n_train, rng, n_sets=n_train_sets)
    acc = np.empty((n_train_sets, 2))
    for s in range(n_train_sets):
        if n_test is not None:
            Xte, yte = source.sample(n_test, rng)
        for i, learner in enumerate((learner_a, learner_b)):
            model = _fresh(learner).fit(Xtr[s], ytr[s])
            if n_test is None:
                acc[s, i] = source.expected_accuracy(model)
            else:
                acc[s, i] = np.mean(np.asarray(model.predict(Xte)) == yte)
    d = 100.0 * (acc[:, 0] - acc[:, 1])
    se = float(d.std(ddof=1) / np.sqrt(n_train_sets)) if n_train_sets > 1 else 0.0
    mean_acc = acc.mean(axis=0)
    return GapEstimate(float(d.mean()), se, float(mean_acc[0]), float(mean_acc[1]), n_train_sets, n_train, n_test)


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`search_source`.

    Attributes
    ----------
    source : BayesNetSource
        The candidate whose confirmed gap is closest to the target.
    estimate : GapEstimate
        Its gap measured with ``n_confirm_sets`` training sets.
    target_gap : float
    params : dict
        What the proposal function reported about the candidate (generator settings).
    n_tried : int
        Candidates screened.
    found : bool
        Whether ``|estimate.gap - target_gap| <= tolerance``.
    """

    source: BayesNetSource
    estimate: GapEstimate
    target_gap: float
    params: dict
    n_tried: int
    found: bool


def propose_augmented_nb(rng, *, n_attributes: int = 10, n_classes: int = 2, class_prior=None):
    """Default proposal of :func:`search_source`: a :func:`random_augmented_nb` network.

    The settings are drawn at random: 4 .. 17 extra arcs, at most two attribute
    parents each, CPT concentration from (0.1, 0.2, 0.3, 0.5, 1) and class strength
    from (0.2, 0.3, 0.5, 0.7), which give Bayes accuracies of about 0.6 .. 0.95 and
    C4.5 - naive Bayes gaps of about -4 .. +10 points on 10 attributes.  Returns
    ``(source, params)``; ``params`` holds the settings and the seed that rebuild the
    network.
    """
    rng = np.random.default_rng(rng)
    params = {
        "generator": "random_augmented_nb",
        "n_attributes": n_attributes,
        "n_extra_arcs": int(rng.integers(4, 18)),
        "max_parents": 2,
        "concentration": float(rng.choice([0.1, 0.2, 0.3, 0.5, 1.0])),
        "class_strength": float(rng.choice([0.2, 0.3, 0.5, 0.7])),
        "n_classes": n_classes,
        "class_prior": class_prior,
        "seed": int(rng.integers(2**63)),
    }
    kw = {k: v for k, v in params.items() if k not in ("generator", "seed")}
    return random_augmented_nb(rng=params["seed"], **kw), params


def search_source(
    target_gap: float,
    learner_a,
    learner_b,
    rng,
    *,
    propose=propose_augmented_nb,
    n_candidates: int = 200,
    tolerance: float = 0.25,
    n_screen_sets: int = 20,
    n_confirm_sets: int = 200,
    n_train: int = 300,
    n_test: int | None = None,
) -> SearchResult:
    """Random search for a network on which ``learner_a`` beats ``learner_b`` by ``target_gap`` points.

    Bouckaert (2004, Sec. 4) chose sources on which C4.5 beats naive Bayes by 2.77,
    5.83 and 11.27 percentage points (300 training cases); the networks were not
    published, so we draw candidate networks with ``propose(rng) -> (source,
    params)``, screen each with ``n_screen_sets`` training sets, and confirm a
    candidate whose screened gap is within ``2 * tolerance`` with
    ``n_confirm_sets`` sets (both by :func:`measure_gap`).  The search stops at the
    first confirmed gap within ``tolerance``; otherwise it returns the confirmed
    candidate closest to the target (or the closest screened one, confirmed).

    Parameters
    ----------
    target_gap : float
        Percentage points, ``accuracy_a - accuracy_b``.
    learner_a, learner_b
        Estimators or factories, as in :func:`measure_gap`.
    rng : anything :func:`numpy.random.default_rng` accepts
    propose : callable
        Candidate generator; the default is :func:`propose_augmented_nb`.
    n_candidates : int
        Largest number of candidates screened.
    tolerance : float
        Accepted distance from the target, in percentage points.
    n_screen_sets, n_confirm_sets, n_train, n_test
        Passed to :func:`measure_gap` (``n_test=None``: exact accuracies).
    """
    check_positive(n_candidates, "n_candidates", integer=True)
    check_positive(tolerance, "tolerance")
    rng = np.random.default_rng(rng)
    kw: dict[str, Any] = {"n_train": n_train, "n_test": n_test}
    best = None  # (distance, source, estimate, params) of the best confirmed candidate
    screened_best = None
    for tried in range(1, n_candidates + 1):
        source, params = propose(rng)
        est = measure_gap(source, learner_a, learner_b, rng, n_train_sets=n_screen_sets, **kw)
        dist = abs(est.gap - target_gap)
        if screened_best is None or dist < screened_best[0]:
            screened_best = (dist, source, params)
        if dist > 2 * tolerance:
            continue
        est = measure_gap(source, learner_a, learner_b, rng, n_train_sets=n_confirm_sets, **kw)
        dist = abs(est.gap - target_gap)
        if best is None or dist < best[0]:
            best = (dist, source, est, params)
        if dist <= tolerance:
            break
    if best is None:
        assert screened_best is not None  # n_candidates >= 1: the first candidate is always screened
        _, source, params = screened_best
        est = measure_gap(source, learner_a, learner_b, rng, n_train_sets=n_confirm_sets, **kw)
        best = (abs(est.gap - target_gap), source, est, params)
    dist, source, est, params = best
    return SearchResult(source, est, float(target_gap), params, tried, bool(dist <= tolerance))


# -- files ----------------------------------------------------------------------------------


def write_source(source: BayesNetSource, path) -> None:
    """Write the network to ``path`` in XMLBIF 0.3 (pgmpy's ``XMLBIFWriter``; ``pip install 'simstudy[bif]'``)."""
    _pgmpy("write_source")
    from pgmpy.readwrite import XMLBIFWriter

    XMLBIFWriter(source.to_pgmpy()).write(str(path))


def read_source(path, class_variable: str = "class", attributes=None) -> BayesNetSource:
    """Read an XMLBIF (``.xml``/``.xmlbif``) network, or a BIF (``.bif``) one with pgmpy's reader.

    States are coded by their position in the file's outcome list; see
    :meth:`BayesNetSource.from_pgmpy` for ``class_variable`` and ``attributes``.

    Raises
    ------
    ValueError
        Whose message starts with the path, for a file that is not a valid
        network: an XMLBIF file is checked before pgmpy reads it (see
        :func:`_check_xmlbif`: well-formed XML, a ``<NETWORK>``, unique
        variables, known parents, tables of the right size holding
        probabilities), and whatever pgmpy or :class:`BayesNetSource` still
        refuses is reported with the path in front.
    """
    path = Path(path)
    if path.suffix.lower() != ".bif":
        # XMLBIF: read here, as checked (the studies' networks need no other package)
        network = _check_xmlbif(path)
        try:
            return _from_xmlbif(network, class_variable, attributes)
        except ValueError as exc:
            raise InputError(f"{path}: {exc}") from None
    try:
        _pgmpy(f"{path}: reading the BIF format (XMLBIF needs nothing)")
        from pgmpy.readwrite import BIFReader

        model = BIFReader(str(path)).get_model()
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) or str(exc).startswith(f"{path}: "):
            raise
        raise InputError(f"{path}: {exc}") from None
    except Exception as exc:  # pgmpy's own KeyError, AttributeError, ... on a file it cannot read
        raise InputError(f"{path}: cannot be read as a Bayesian network ({type(exc).__name__}: {exc})") from None
    try:
        return BayesNetSource.from_pgmpy(model, class_variable, attributes)
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None


def _check_xmlbif(path: Path) -> dict:
    """Check an XMLBIF file's structure; raise ``ValueError("<path>: ...")`` naming the variable at fault.
    Returns what it read: ``cards`` (variable -> number of outcomes, in the file's order), ``given`` (variable
    -> its parents) and ``tables`` (variable -> its probabilities, one row per parent configuration).

    Refused: XML that is not well-formed, no ``<NETWORK>``, a variable without
    a name, declared twice or with fewer than two (or repeated) outcomes, a
    definition for an undeclared variable or given an undeclared parent (or
    itself, or one parent twice), a variable defined twice or not at all, and
    a table that does not hold ``card x prod(parent cards)`` finite,
    non-negative numbers whose rows (one per parent configuration) sum to 1
    within 1e-6.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        line, column = exc.position
        raise InputError(f"{path}: not well-formed XML (line {line}, column {column})") from None
    network = root.find("NETWORK")
    if network is None:
        raise InputError(f"{path}: no <NETWORK> element (not an XMLBIF file)")
    cards, given_by, tables = {}, {}, {}
    for k, var in enumerate(network.findall("VARIABLE"), 1):
        name = (var.findtext("NAME") or "").strip()
        if not name:
            raise InputError(f"{path}: variable {k} has no <NAME>")
        if name in cards:
            raise InputError(f"{path}: variable {name!r} is declared twice")
        outcomes = [(o.text or "").strip() for o in var.findall("OUTCOME")]
        if len(outcomes) < 2:
            raise InputError(f"{path}: variable {name!r}: needs at least 2 <OUTCOME>s, has {len(outcomes)}")
        if len(set(outcomes)) != len(outcomes):
            raise InputError(f"{path}: variable {name!r}: an <OUTCOME> is listed twice")
        cards[name] = len(outcomes)
    if not cards:
        raise InputError(f"{path}: the network declares no <VARIABLE>")
    defined = set()
    for definition in network.findall("DEFINITION"):
        name = (definition.findtext("FOR") or "").strip()
        if name not in cards:
            raise InputError(f"{path}: <DEFINITION> for {name!r}, which is not a declared variable")
        if name in defined:
            raise InputError(f"{path}: variable {name!r} is defined twice")
        defined.add(name)
        given = [(g.text or "").strip() for g in definition.findall("GIVEN")]
        for g in given:
            if g not in cards:
                raise InputError(f"{path}: variable {name!r}: unknown parent {g!r}")
        if name in given or len(set(given)) != len(given):
            raise InputError(f"{path}: variable {name!r}: a parent is itself or listed twice")
        n_cfg = math.prod(cards[g] for g in given)
        text = definition.findtext("TABLE")
        try:
            values = np.array([float(v) for v in (text or "").split()])
        except ValueError:
            raise InputError(f"{path}: variable {name!r}: <TABLE> holds something that is not a number") from None
        expected = n_cfg * cards[name]
        if values.size != expected:
            raise InputError(
                f"{path}: variable {name!r}: <TABLE> has {values.size} probabilities, expected "
                f"{cards[name]} states x {n_cfg} parent configurations = {expected}"
            )
        if not np.isfinite(values).all() or (values < 0).any():
            raise InputError(f"{path}: variable {name!r}: <TABLE> has negative or non-finite probabilities")
        if np.any(np.abs(values.reshape(n_cfg, cards[name]).sum(axis=1) - 1.0) > 1e-6):
            raise InputError(f"{path}: variable {name!r}: the probabilities of a parent configuration do not sum to 1")
        given_by[name], tables[name] = tuple(given), values.reshape(n_cfg, cards[name])
    missing = [name for name in cards if name not in defined]
    if missing:
        raise InputError(f"{path}: variable {missing[0]!r} has no <DEFINITION>")
    return {"cards": cards, "given": given_by, "tables": tables}


def _from_xmlbif(network: dict, class_variable: str = "class", attributes=None) -> BayesNetSource:
    """A source from :func:`_check_xmlbif`'s parse, as :meth:`BayesNetSource.from_pgmpy` builds it from pgmpy's
    reading of the same file: a state's code is its position among the variable's outcomes, a table has one row
    per parent configuration (in the order of the ``<GIVEN>`` parents, the last varying fastest)."""
    names = _node_order(list(network["cards"]), class_variable, attributes)
    pos = {n: i for i, n in enumerate(names)}
    cards = tuple(network["cards"][n] for n in names)
    parents = tuple(tuple(pos[g] for g in network["given"][n]) for n in names)
    tables = tuple(network["tables"][n] for n in names)
    return BayesNetSource(tuple(names), cards, parents, tables)


def stored_sources() -> dict:
    """The metadata of the networks shipped in ``networks/`` (``sources.json``): for each
    name its file, how it was made and its measured gaps, with the learners used."""
    with open(NETWORKS_DIR / "sources.json", encoding="utf-8") as fh:
        return json.load(fh)["sources"]


def load_source(name: str) -> BayesNetSource:
    """One of the stored sources: "bouckaert1" (independent) .. "bouckaert4".

    See :func:`stored_sources` for how each was found and its measured gap; the
    original networks of Bouckaert (2004) were not published.
    """
    meta = stored_sources()
    if name not in meta:
        raise InputError(f"name: unknown source {name!r}; stored: {', '.join(sorted(meta))}")
    return read_source(NETWORKS_DIR / meta[name]["file"])
