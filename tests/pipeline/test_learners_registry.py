"""The learner registry, the common base class and factories for scikit-learn estimators."""

from __future__ import annotations

import importlib.metadata
import pickle
import sys
import textwrap

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.utils import get_tags

import simstudy.pipeline.learners as learners
from simstudy.pipeline.learners import (
    E1071SVC,
    IB1,
    J48,
    SMO,
    TAN,
    DecisionStump,
    E1071NaiveBayes,
    Learner,
    RandomForestR,
    WekaNaiveBayes,
    as_learner_factory,
    learner_class,
    learner_names,
    learner_spec,
    make_learner,
    register_learner,
    registry,
)

BUILTIN = {
    "weka.NaiveBayes": WekaNaiveBayes,
    "weka.J48": J48,
    "weka.IB1": IB1,
    "weka.DecisionStump": DecisionStump,
    "weka.TAN": TAN,
    "weka.SMO": SMO,
    "e1071.naiveBayes": E1071NaiveBayes,
    "e1071.svm": E1071SVC,
    "randomForest": RandomForestR,
}
ALIASES = {
    "NB": "weka.NaiveBayes",
    "C4.5": "weka.J48",
    "NN": "weka.IB1",
    "TAN": "weka.TAN",
    "stump": "weka.DecisionStump",
}
_WEKA = {"nominal": np.array([True, False, True]), "n_categories": [2, 0, 3], "n_classes": 3}
# a value other than the default for every constructor parameter of every built-in learner
NON_DEFAULT = {
    "weka.NaiveBayes": dict(_WEKA),
    "weka.J48": {"confidence": 0.1, "min_leaf": 3, "subtree_raising": False, "unpruned": True, **_WEKA},
    "weka.IB1": {"update_ranges_on_predict": False, **_WEKA},
    "weka.DecisionStump": dict(_WEKA),
    "weka.TAN": {"alpha": 1.0, **_WEKA},
    "weka.SMO": {"C": 2.0, "tol": 1e-4, "epsilon": 1e-10, "random_seed": 3, "backend": "sklearn", **_WEKA},
    "e1071.naiveBayes": {"threshold": 0.01, "eps": 1e-9},
    "e1071.svm": {
        "cost": 2.0,
        "gamma": 0.5,
        "scale": False,
        "tol": 1e-4,
        "shrinking": False,
        "cache_size": 10.0,
        "backend": "intelex",
    },
    "randomForest": {
        "n_estimators": 20,
        "mtry": 2,
        "nodesize": 3,
        "backend": "intelex",
        "n_jobs": 2,
        "random_state": np.random.default_rng(3),
    },
}


@pytest.fixture
def isolated(monkeypatch):
    """A registry whose changes are undone after the test, with no entry points read yet."""
    monkeypatch.setattr(registry, "_specs", dict(registry._specs))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    monkeypatch.setattr(registry, "_entry_points", None)
    return registry


def _fake_entry_points(monkeypatch, entries):
    """Make ``importlib.metadata.entry_points`` report ``entries`` {name: "module:attr"}; returns the call log."""
    calls = []

    def entry_points(**kwargs):
        calls.append(kwargs)
        group = kwargs.get("group")
        return [
            importlib.metadata.EntryPoint(name, value, group)
            for name, value in entries.items()
            if group == registry.ENTRY_POINT_GROUP
        ]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    return calls


def _data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1] + (rng.random(n) < 0.2)) % 2).astype(int)
    return X, y


# ------------------------------------------------------------------------ lookups


def test_builtin_names_aliases_and_classes():
    assert set(BUILTIN) <= set(learner_names())
    assert set(learner_names(aliases=True)) >= set(BUILTIN) | set(ALIASES)
    for name, cls in BUILTIN.items():
        spec = learner_spec(name)
        assert spec.name == name and spec.factory is cls and spec.cls is cls and spec.description
        assert learner_class(name) is cls
        assert type(make_learner(name)) is cls
    for alias, name in ALIASES.items():
        assert learner_spec(alias) is learner_spec(name)
        assert alias in learner_spec(name).aliases
        assert learner_class(alias) is BUILTIN[name]


def test_make_learner_passes_parameters():
    m = make_learner("C4.5", confidence=0.1, nominal=[True] * 4)
    assert isinstance(m, J48) and m.confidence == 0.1 and m.nominal == [True] * 4
    assert make_learner("weka.J48") is not make_learner("weka.J48")
    assert learner_spec("NB").make(nominal=[True]).nominal == [True]


def test_unknown_name_is_named_and_known_ones_listed(isolated, monkeypatch):
    _fake_entry_points(monkeypatch, {})
    with pytest.raises(ValueError, match=r"^name: unknown learner 'weka\.C45'.*weka\.J48.*") as err:
        make_learner("weka.C45")
    assert "\n" not in str(err.value) and "C4.5" in str(err.value)
    with pytest.raises(ValueError, match="^name"):
        learner_class("j48")  # names are case-sensitive
    with pytest.raises(ValueError, match="^name"):
        learner_spec(48)


def test_bad_parameters_name_the_learner():
    with pytest.raises(ValueError, match=r"^params: learner 'weka\.J48' has no parameter 'confidnce'"):
        make_learner("C4.5", confidnce=0.1)

    def factory(depth=1):
        if depth < 0:
            raise ValueError("depth: must be >= 0")
        return J48()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "_specs", dict(registry._specs))
        mp.setattr(registry, "_aliases", dict(registry._aliases))
        register_learner("test.factory", factory)
        with pytest.raises(ValueError, match=r"^params: learner 'test\.factory' refused \['width'\]"):
            make_learner("test.factory", width=2)
        with pytest.raises(ValueError, match=r"^params: learner 'test\.factory' refused.*depth: must be >= 0"):
            make_learner("test.factory", depth=-1)


# ------------------------------------------------------------------ registering


class _Majority(Learner):
    """Always the most frequent training class."""

    def __init__(self, tie="low"):
        self.tie = tie

    def fit(self, X, y):
        counts = np.bincount(np.asarray(y, dtype=int))
        self.classes_ = np.arange(counts.size)
        self.class_ = int(np.argmax(counts) if self.tie == "low" else counts.size - 1 - np.argmax(counts[::-1]))
        return self

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], self.class_)


def test_register_a_learner_with_aliases(isolated):
    spec = register_learner("test.Majority", _Majority, aliases=("ZeroR", "majority"))
    assert spec.description == "Always the most frequent training class."  # from the docstring
    assert learner_class("ZeroR") is _Majority and "test.Majority" in learner_names()
    assert "majority" in learner_names(aliases=True) and "majority" not in learner_names()
    assert make_learner("majority", tie="high").tie == "high"
    # the same registration again changes nothing; another object under a taken name is refused
    assert register_learner("test.Majority", _Majority, aliases=("ZeroR", "majority")) is spec
    with pytest.raises(ValueError, match="^name: 'ZeroR' is already registered"):
        register_learner("test.Other", J48, aliases=("ZeroR",))
    with pytest.raises(ValueError, match="^name: 'weka.J48' is already registered"):
        register_learner("weka.J48", _Majority)
    with pytest.raises(ValueError, match="^name: 'C4.5' is already registered"):
        register_learner("C4.5", _Majority)
    # replace=True takes a name (here an alias of another learner) over
    register_learner("ZeroR", J48, replace=True)
    assert learner_class("ZeroR") is J48 and learner_spec("test.Majority").aliases == ("majority",)


def test_register_refuses_bad_arguments(isolated):
    for name in ("", "  x", None, 3):
        with pytest.raises(ValueError, match="^name"):
            register_learner(name, J48)
    with pytest.raises(ValueError, match="^aliases"):
        register_learner("test.x", J48, aliases=("",))
    with pytest.raises(ValueError, match="^aliases"):
        register_learner("test.x", J48, aliases=("test.x",))
    with pytest.raises(ValueError, match="^cls_or_factory"):
        register_learner("test.x", 3)
    with pytest.raises(ValueError, match=r"^cls_or_factory: .*dict is not a scikit-learn classifier"):
        register_learner("test.x", dict)
    with pytest.raises(ValueError, match="^description"):
        register_learner("test.x", J48, description=3)
    assert "test.x" not in learner_names()


# ------------------------------------------------------------------ entry points


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    """An importable third-party module with one learner class."""
    name = "simstudy_test_plugin_learners"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent("""
        import numpy as np
        from simstudy.pipeline.learners import Learner

        class Ones(Learner):
            '''Predicts class 1.'''

            def __init__(self, weight=1.0):
                self.weight = weight

            def fit(self, X, y):
                self.classes_ = np.array([0, 1])
                return self

            def predict(self, X):
                return np.ones(np.asarray(X).shape[0], dtype=int)
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    yield name
    sys.modules.pop(name, None)


def test_entry_points_are_read_lazily_and_loaded_on_demand(isolated, monkeypatch, plugin_module):
    calls = _fake_entry_points(monkeypatch, {"lab.Ones": f"{plugin_module}:Ones", "weka.J48": "nowhere:Nothing"})
    assert type(make_learner("weka.J48")) is J48  # built-in names never read the entry points
    assert calls == []
    m = make_learner("lab.Ones", weight=2.0)
    assert type(m).__name__ == "Ones" and m.weight == 2.0 and isinstance(m, Learner)
    assert learner_spec("lab.Ones").description == "Predicts class 1."
    assert "lab.Ones" in learner_names()
    make_learner("lab.Ones")
    learner_names()
    assert len(calls) == 1  # read once
    assert learner_class("weka.J48") is J48  # a built-in name wins over an entry point


def test_entry_points_listed_without_being_imported(isolated, monkeypatch, plugin_module):
    _fake_entry_points(monkeypatch, {"lab.Ones": f"{plugin_module}:Ones"})
    assert "lab.Ones" in learner_names()
    assert plugin_module not in sys.modules
    with pytest.raises(ValueError, match="^name: unknown learner 'lab.Twos'.*lab.Ones"):
        make_learner("lab.Twos")


@pytest.mark.parametrize(
    "value, reason",
    [
        ("simstudy_no_such_module_x:Learner", "ModuleNotFoundError"),
        ("sklearn.tree:NoSuchTree", "AttributeError"),
        ("math:pi", "does not name a learner"),
        ("builtins:dict", "does not name a learner"),
    ],
)
def test_broken_entry_point_gives_one_line_naming_it(isolated, monkeypatch, value, reason):
    _fake_entry_points(monkeypatch, {"lab.Broken": value, "lab.Fine": "sklearn.tree:DecisionTreeClassifier"})
    with pytest.raises(ValueError, match=r"^name: entry point 'lab\.Broken'") as err:
        make_learner("lab.Broken")
    assert value in str(err.value) and reason in str(err.value) and "\n" not in str(err.value)
    # the others still work
    assert type(make_learner("lab.Fine", max_depth=2)).__name__ == "DecisionTreeClassifier"


def test_entry_point_naming_an_estimator_instance_gives_clones(isolated, monkeypatch, tmp_path):
    (tmp_path / "simstudy_test_plugin_instance.py").write_text(
        "from sklearn.tree import DecisionTreeClassifier\nSHALLOW = DecisionTreeClassifier(max_depth=1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_entry_points(monkeypatch, {"lab.Shallow": "simstudy_test_plugin_instance:SHALLOW"})
    a, b = make_learner("lab.Shallow"), make_learner("lab.Shallow")
    assert a is not b and a.max_depth == 1
    sys.modules.pop("simstudy_test_plugin_instance", None)


# --------------------------------------------------------- the base class, all learners


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_learner_round_trips_its_parameters(name):
    cls = learner_class(name)
    assert issubclass(cls, Learner) and is_classifier(cls())
    defaults = cls().get_params()
    changed = NON_DEFAULT[name]
    assert set(changed) == set(defaults)  # the table covers every constructor parameter
    m = make_learner(name, **changed)
    params = m.get_params()
    assert params.keys() == defaults.keys() and all(params[k] is changed[k] for k in changed)
    c = clone(m)
    assert c is not m and type(c) is cls
    cp = c.get_params()
    for k, v in changed.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(cp[k], v)
        elif not isinstance(v, np.random.Generator):
            assert cp[k] == v and type(cp[k]) is type(v)
    back = cls().set_params(**params)
    assert all(back.get_params()[k] is v for k, v in params.items())
    assert cls(**defaults).get_params() == defaults
    with pytest.raises(ValueError):
        cls().set_params(no_such_parameter=1)
    tags = get_tags(m)
    assert tags.estimator_type == "classifier" and tags.target_tags.required
    assert tags.input_tags.allow_nan is name.startswith("weka.")
    assert pickle.loads(pickle.dumps(cls())).get_params().keys() == defaults.keys()


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_learner_fits_predicts_and_scores(name):
    X, y = _data(1)
    m = make_learner(name, **({"nominal": [True] * 4} if name.startswith("weka.") else {}))
    if name == "randomForest":
        m.set_params(n_estimators=10, random_state=0)
    fitted = m.fit(X, y)
    assert fitted is m
    pred = m.predict(X)
    assert m.score(X, y) == pytest.approx(np.mean(pred == y))
    w = np.arange(y.size, dtype=float)
    assert m.score(X, y, sample_weight=w) == pytest.approx(np.average(pred == y, weights=w))
    with pytest.raises(ValueError, match="^y"):
        m.score(X, y[:-1])


def test_base_fold_predictions_default_is_none():
    X, y = _data(2)
    ids = np.tile(np.arange(y.size) % 5, (2, 1))
    assert Learner().fold_predictions(X, y, ids) is None
    assert _Majority().fold_predictions(X, y, ids) is None
    for name in ("e1071.naiveBayes", "e1071.svm", "randomForest"):
        assert make_learner(name).fold_predictions(X, y, ids) is None
    # the learners with a shortcut override it; numeric data fall back to None
    nominal = [True] * 4
    for name in ("weka.J48", "weka.NaiveBayes", "weka.IB1", "weka.TAN", "weka.DecisionStump", "weka.SMO"):
        assert type(make_learner(name)).fold_predictions is not Learner.fold_predictions
        assert make_learner(name, nominal=nominal).fold_predictions(X, y, ids).shape == ids.shape
        assert make_learner(name).fold_predictions(X + 0.5, y, ids) is None


def test_scores_fold_by_fold_where_the_base_default_applies():
    from simstudy.pipeline.scores import fold_predictions

    X, y = _data(3, n=40)
    ids = np.tile(np.arange(y.size) % 4, (2, 1))
    pred = fold_predictions(X, y, ids, lambda: DecisionStump(nominal=[True] * 4))
    for r in range(2):
        for f in range(4):
            test = ids[r] == f
            expected = DecisionStump(nominal=[True] * 4).fit(X[~test], y[~test]).predict(X[test])
            np.testing.assert_array_equal(pred[r, test], expected)


# ------------------------------------------------------------ as_learner_factory


class _Threshold(ClassifierMixin, BaseEstimator):
    """A user's own scikit-learn classifier: class 1 where the first column exceeds ``cut``."""

    def __init__(self, cut=0.5):
        self.cut = cut

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] > self.cut).astype(int)


def test_custom_estimator_through_as_learner_factory():
    from simstudy.pipeline.scores import cv_accuracies

    est = _Threshold(cut=0.5)
    make = as_learner_factory(est)
    a, b = make(), make()
    assert a is not b and a is not est and a.get_params() == {"cut": 0.5}
    est.set_params(cut=2.0)  # later changes to the instance do not leak into the factory
    assert make().cut == 0.5
    assert pickle.loads(pickle.dumps(make))().cut == 0.5
    X, y = _data(4, n=50)
    ids = np.tile(np.arange(y.size) % 5, (3, 1))
    acc = cv_accuracies(X, y, ids, [make, as_learner_factory(_Threshold, cut=0.5)])
    expected = np.mean((X[:, 0] > 0.5).astype(int) == y)
    assert acc.shape == (3, 5, 2) and np.mean(acc) == pytest.approx(expected)


def test_as_learner_factory_forms_and_errors():
    from sklearn.tree import DecisionTreeClassifier

    make = as_learner_factory(DecisionTreeClassifier, max_depth=2)
    assert make().max_depth == 2 and make() is not make()
    make = as_learner_factory("C4.5", confidence=0.1)
    assert isinstance(make(), J48) and make().confidence == 0.1 and make() is not make()
    assert pickle.loads(pickle.dumps(make))().confidence == 0.1
    assert as_learner_factory(J48(nominal=[True]))().nominal == [True]

    def factory():
        return J48()

    assert as_learner_factory(factory) is factory
    with pytest.raises(ValueError, match="^name: unknown learner 'C5.0'"):
        as_learner_factory("C5.0")
    with pytest.raises(ValueError, match="^params: learner 'weka.J48'"):
        as_learner_factory("C4.5", depth=3)
    with pytest.raises(ValueError, match="^params"):
        as_learner_factory(DecisionTreeClassifier, depth=3)
    with pytest.raises(ValueError, match="^params"):
        as_learner_factory(J48(), confidence=0.1)
    with pytest.raises(ValueError, match="^params"):
        as_learner_factory(factory, confidence=0.1)
    with pytest.raises(ValueError, match="^obj"):
        as_learner_factory(3)
    with pytest.raises(ValueError, match="^obj"):
        as_learner_factory(dict)


def test_public_import_paths():
    from simstudy.pipeline.learners.j48 import J48 as J48b
    from simstudy.pipeline.learners.j48 import add_errs
    from simstudy.pipeline.learners.weka import WekaNaiveBayes as NBb

    assert J48b is J48 and NBb is WekaNaiveBayes and callable(add_errs)
    for name in (
        "J48",
        "WekaNaiveBayes",
        "IB1",
        "DecisionStump",
        "TAN",
        "SMO",
        "E1071NaiveBayes",
        "E1071SVC",
        "RandomForestR",
        "naive_bayes_predict_batch",
        "Learner",
        "register_learner",
        "make_learner",
        "learner_names",
        "learner_class",
        "as_learner_factory",
    ):
        assert hasattr(learners, name) and name in learners.__all__
