"""Property tests draw their examples from a fixed seed, so a CI run is reproducible."""

from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("simstudy", derandomize=True, deadline=None)
settings.load_profile("simstudy")


@pytest.fixture
def write_study_file():
    """``write(path, source, name="LINEAR")``: a study file whose STUDY is ``name`` of the test module ``source``.

    The module is loaded by its path, not as ``tests.<...>``: a ``tests`` package installed by another
    distribution (baycomp has one) would shadow ours.
    """

    def write(path, source, name: str = "LINEAR"):
        path.write_text(
            "import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('study_source', {str(source)!r})\n"
            "module = importlib.util.module_from_spec(spec)\n"
            "sys.modules[spec.name] = module\n"
            "spec.loader.exec_module(module)\n"
            f"STUDY = module.{name}\n"
        )

    return write


FULL_TIER = Path(__file__).with_name("full_tier.txt")


def pytest_collection_modifyitems(config, items):
    """Mark ``full_tier`` the tests that tests/full_tier.txt names (``make test-fast`` deselects them)."""
    names = {line.strip() for line in FULL_TIER.read_text().splitlines() if line.strip() and not line.startswith("#")}
    for item in items:
        if item.nodeid in names or item.nodeid.split("::")[0] in names:
            item.add_marker(pytest.mark.full_tier)
