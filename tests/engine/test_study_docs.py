"""The "Write a study" page documents every field of a declaration, and its example study runs as shown."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from simstudy.cli import main
from simstudy.engine import Cost, Knob, Provides, Publication, Study, get_study

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "howto" / "studies.rst"
EXAMPLE = ROOT / "examples" / "power_study.py"


@pytest.mark.parametrize("cls", [Study, Publication, Cost, Provides, Knob], ids=lambda c: c.__name__)
def test_every_field_is_on_the_write_a_study_page(cls):
    text = PAGE.read_text()
    missing = [f.name for f in dataclasses.fields(cls) if not re.search(rf"\b{f.name}\b", text)]
    assert not missing, f"{cls.__name__} fields not on {PAGE.name}: {missing}"


def test_the_example_declares_every_field_of_study():
    source = EXAMPLE.read_text()
    assert all(f"    {f.name}=" in source for f in dataclasses.fields(Study))
    study = get_study(EXAMPLE)
    assert study.setup and study.validate and study.targets and study.knobs and study.settings
    assert study.publication.values and study.publication.figures and study.publication.interval_note


def test_the_example_runs_and_compares(tmp_path, capsys):
    out = tmp_path / "smoke"
    assert main(["run", str(EXAMPLE), "--profile", "smoke", "--out", str(out), "--quiet"]) == 0
    assert main(["compare", str(EXAMPLE), "--profile", "smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "power of the t-test, d = 0.5, n = 64 per group" in text and "Cohen (1988)" in text
    assert "Clopper-Pearson's 95% interval of the share of replications that reject" in text
