# simstudy: every target sets up its own virtual environment on first use.
#   make study1            Berrar study 1 at the quick profile (PROFILE=smoke|quick|paper, JOBS=N)
#   make test              the test suite (make test-fast: its quick tier; make test-slow: the slow checks)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SIMSTUDY := $(VENV)/bin/simstudy
PROFILE ?= quick
JOBS ?= 2
RESULTS ?= results
STAMP := $(VENV)/.installed
FIG := $(PY) figures

.PHONY: setup docs lint wheel test test-fast test-slow fault-injection reproduce study1 study2 study3 study4 berrar figures table1-berrar table1-bouckaert table1 figure2 factors bf-tables table2 report reproduction proving-ground-page clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,fast]'
	touch $(STAMP)

setup: $(STAMP)

# The suite on TEST_WORKERS processes (pytest-xdist), each test file kept on one of them so that a
# file's shared fixtures are built once; TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= 2
XDIST = $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)
test: $(STAMP)
	$(PY) -m pytest -q $(XDIST)

# The fast tier (about a minute on 2 cores): every layer's tests less those named in tests/full_tier.txt,
# which take a second or more each (scripts/test_tiers.py rewrites that list from a timed run).
test-fast: $(STAMP)
	$(PY) -m pytest -q $(XDIST) -m 'not slow and not full_tier'

# Lint and format check (ruff) and types of the statistics, pipeline and engine layers (mypy), both
# configured in pyproject.toml; `pre-commit install` runs ruff on each commit.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

# The wheel built and installed in a fresh environment, then used from outside the checkout: the
# studies/ -> simstudy.studies mapping (a folder per paper) and the package data must survive packaging.
# setuptools builds in build/, where files of modules since moved would otherwise stay and be packed.
wheel: $(STAMP)
	rm -rf build/wheel-check build/lib build/bdist.* && mkdir -p build/wheel-check
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir build/wheel-check .
	$(PYTHON) -m venv build/wheel-check/venv
	build/wheel-check/venv/bin/pip install --quiet build/wheel-check/simstudy-*.whl
	cd build/wheel-check && venv/bin/simstudy list >/dev/null \
	  && venv/bin/simstudy run demo --profile smoke --quiet --out run \
	  && venv/bin/simstudy compare demo --profile smoke --out run >/dev/null \
	  && venv/bin/simstudy run berrar3 --profile smoke --quiet --out run-berrar3 \
	  && venv/bin/python -c "import simstudy.pipeline.sources as s, simstudy.apps.proving.scenarios as p; s.berrar_cv_source(11); p.scenario('bouckaert1').data(0); import importlib.util as u; assert u.find_spec('pgmpy') is None" \
	  && echo "wheel: installed in a fresh environment; list, run and compare work outside the checkout, networks read without pgmpy"

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

# Fault injection at a small size (about 6 minutes): real runs killed, raced, edited, damaged, linked, hostile
# plug-ins, the user's own modules edited as cp -p leaves them (bytecode on), a dask cluster of dask scheduler and
# dask worker commands; fails when any trial gives a wrong answer (scripts/fault_injection.py, FAULT_RUNS trials per case).
FAULT_RUNS ?= 2
fault-injection: $(STAMP)
	$(PY) scripts/fault_injection.py --small --runs $(FAULT_RUNS)

# The documentation site (docs/_build/html/index.html), warnings as errors; the docs extra is
# installed into the same virtual environment on first use.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) -m sphinx -E -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

# Berrar's four studies: simulate (resumable), compare with the paper, draw the figures.
define berrar_study
	$(SIMSTUDY) run berrar$(1) --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/berrar$(1)/$(PROFILE)
	$(SIMSTUDY) compare berrar$(1) --profile $(PROFILE) --out $(RESULTS)/berrar$(1)/$(PROFILE)
endef

study1: $(STAMP)
	$(call berrar_study,1)
	$(PY) figures/figure9.py --profile $(PROFILE) --results $(RESULTS)
	$(PY) figures/figure10.py --profile $(PROFILE) --results $(RESULTS)

study2: $(STAMP)
	$(call berrar_study,2)
	$(PY) figures/figure11.py --profile $(PROFILE) --results $(RESULTS)
	$(PY) figures/figure12.py --profile $(PROFILE) --results $(RESULTS)

study3: $(STAMP)
	$(call berrar_study,3)
	$(PY) figures/figure13.py --profile $(PROFILE) --results $(RESULTS)

study4: $(STAMP)
	$(call berrar_study,4)
	$(PY) figures/figure14.py --profile $(PROFILE) --results $(RESULTS)

# Table 1 of Berrar from whichever of the four studies are stored at PROFILE.
table1-berrar: $(STAMP)
	$(PY) figures/table1.py --profile $(PROFILE) --results $(RESULTS)

berrar: study1 study2 study3 study4 table1-berrar figures

# Bouckaert 2004 Table 1: schemes x tests on the four Bayesian-network sources.
table1-bouckaert: $(STAMP)
	$(SIMSTUDY) run bouckaert1 --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/bouckaert1/$(PROFILE)
	$(SIMSTUDY) compare bouckaert1 --profile $(PROFILE) --out $(RESULTS)/bouckaert1/$(PROFILE)

# The names the Bouckaert issue uses: his Table 1, his Figure 2, and the factor tables (the
# significance-level experiment is recomputed from the stored p-values of Table 1's run; runs,
# class prior, class cardinality and learner pairs are the study bouckaert_factors).
table1: table1-bouckaert

figure2: $(STAMP)
	$(PY) figures/bouckaert_figure2.py --out $(RESULTS)/figures/analytic

factors: table1-bouckaert
	$(SIMSTUDY) summarize bouckaert1 --profile $(PROFILE) --out $(RESULTS)/bouckaert1/$(PROFILE) --csv
	$(SIMSTUDY) run bouckaert_factors --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/bouckaert_factors/$(PROFILE)
	$(SIMSTUDY) summarize bouckaert_factors --profile $(PROFILE) --out $(RESULTS)/bouckaert_factors/$(PROFILE) --csv

# Bouckaert 2004 Table 2: NB, C4.5 and NN on the shipped UCI data sets.
table2: $(STAMP)
	$(SIMSTUDY) run bouckaert2 --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/bouckaert2/$(PROFILE)
	$(SIMSTUDY) compare bouckaert2 --profile $(PROFILE) --out $(RESULTS)/bouckaert2/$(PROFILE)

# Bouckaert and Frank 2004: replicability of 5x2cv, resampled and cv t-tests, on the simulated
# sources and on the shipped UCI data sets.
bf-tables: $(STAMP)
	$(SIMSTUDY) run bouckaert_frank --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/bouckaert_frank/$(PROFILE)
	$(SIMSTUDY) summarize bouckaert_frank --profile $(PROFILE) --out $(RESULTS)/bouckaert_frank/$(PROFILE) --csv
	$(SIMSTUDY) run bouckaert_frank_uci --profile $(PROFILE) --jobs $(JOBS) --out $(RESULTS)/bouckaert_frank_uci/$(PROFILE)
	$(SIMSTUDY) summarize bouckaert_frank_uci --profile $(PROFILE) --out $(RESULTS)/bouckaert_frank_uci/$(PROFILE) --csv

# The analytic figures: Berrar's Figures 2 and 4, Bouckaert's Figure 2 (formulas + a small simulation).
figures: $(STAMP)
	$(PY) figures/figure2.py --out $(RESULTS)/figures/analytic
	$(PY) figures/figure4.py --out $(RESULTS)/figures/analytic
	$(PY) figures/bouckaert_figure2.py --out $(RESULTS)/figures/analytic

# One page (HTML + Markdown) with every study stored at PROFILE beside the published numbers.
report: $(STAMP)
	$(SIMSTUDY) report --profile $(PROFILE) --results $(RESULTS)

# Every built-in study at PROFILE (resumable, cheapest first, one progress display), then the whole
# reproduction page from those runs in $(RESULTS)/reproduction/$(PROFILE).
reproduce: $(STAMP)
	$(SIMSTUDY) reproduce --profile $(PROFILE) --jobs $(JOBS) --results $(RESULTS)

# The reproduction page kept in the repository (docs/reproduction/report.md): every study at the
# largest profile stored under RESULTS, with the date, commit and machine; a study stored larger on the
# page kept there than under RESULTS keeps its section, saying so.  Nothing is simulated but the first
# replication of each condition of a section made by other code, computed again to compare its rows.
# The README's tally follows the page, and the evidence assess ships names the proving-ground page it
# writes.
reproduction: $(STAMP)
	$(SIMSTUDY) report --profile largest --results $(RESULTS) --out docs/reproduction --carry-from docs/reproduction \
		--replay 1
	$(PY) scripts/readme_tally.py
	$(PY) scripts/make_shipped_evidence.py --stored-stability

# The proving ground at its paper profile (resumable; null scenarios grow until their size verdicts are decided),
# its report written to docs/reproduction/proving-ground (with the calibration of Berrar's estimates from
# the runs of his studies under RESULTS), and the evidence assess ships naming it.
proving-ground-page: $(STAMP)
	$(SIMSTUDY) proving-ground --profile paper --jobs $(JOBS) --out $(RESULTS)/proving_ground/paper \
		--results $(RESULTS) --report-dir docs/reproduction/proving-ground
	$(PY) scripts/make_shipped_evidence.py --stored-stability

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
