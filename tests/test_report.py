"""simstudy report: one page from stored smoke runs, no broken links, rendered by headless Chromium where installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from simstudy.cli import main
from simstudy.engine import run_study


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    run_study("berrar3", "smoke", out=root / "berrar3" / "smoke", progress=False)
    run_study("bouckaert_frank", "smoke", out=root / "bouckaert_frank" / "smoke", progress=False)
    out = root / "report"
    assert main(["report", "--profile", "smoke", "--results", str(root), "--out", str(out)]) == 0
    return out


def test_sections_and_verdicts(report):
    text = (report / "report.md").read_text()
    assert "Berrar study 3" in text and "published numbers lie inside" in text
    assert "Bouckaert and Frank" in text and "Nothing published to compare" in text
    assert "Not run at this profile" in text and "berrar1" in text
    assert "Berrar, Table 1" in text


def test_no_broken_images_or_links(report):
    page = (report / "report.html").read_text()
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert srcs, "the study 3 figure is embedded"
    for src in srcs:
        assert (report / src).is_file() and (report / src).stat().st_size > 1000
    for href in re.findall(r'<a href="([^"]+)"', page):
        assert href.startswith("#") and f'id="{href[1:]}"' in page


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_renders_in_headless_chromium(report, tmp_path):
    shot = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless", "--disable-gpu", "--no-sandbox", f"--screenshot={shot}",
                    "--window-size=1280,1600", (report / "report.html").resolve().as_uri()],
                   capture_output=True, timeout=120, check=True)
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    non_white = (img[..., :3].mean(axis=-1) < 0.95).mean()
    assert non_white > 0.05, f"screenshot nearly blank ({non_white:.1%} non-white pixels)"
