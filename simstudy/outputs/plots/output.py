"""Drawing a study's declared figures and saving them safely.

A figure is drawn in-process on a Matplotlib ``Figure`` with the Agg canvas
(no ``pyplot`` state, no display) and every file is written atomically: a
reader sees the old file or the new one, never half of one.  Next to each
drawn figure a small JSON sidecar records the key of what it shows (the run's
configuration hash and chunk checksums, the figure and the profile) and the
SHA-256 of each file written, so a figure is redrawn when the stored results
change and an empty, damaged or foreign file is never taken as current.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from simstudy.errors import InputError

__all__ = [
    "FIGSIZE",
    "DPI",
    "FORMATS",
    "new_figure",
    "save_figure",
    "run_fingerprint",
    "figure_key",
    "figure_is_current",
    "draw_study_figure",
    "render_study_figure",
    "figure_description",
]

#: Changed whenever the drawing code changes how figures look, so stored figures are drawn again.
FIGURE_STYLE = 4
FIGSIZE = (7, 4.5)
DPI = 150
FORMATS = ("png", "pdf")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def new_figure(figsize=FIGSIZE, *, layout: str | None = "constrained"):
    """A Matplotlib Figure on the Agg canvas, independent of ``pyplot`` and of the configured backend.

    Parameters
    ----------
    figsize : (float, float)
        Width and height in inches.
    layout : {"constrained", None}
        Matplotlib's layout engine: constrained layout (the default) makes room
        for titles, axis labels, tick labels and legends placed outside the
        axes, so that no text overlaps another or passes the figure's edge.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, directory, name: str, *, formats=FORMATS, dpi: int = DPI) -> list[Path]:
    """Save ``fig`` as ``directory/name.png`` and ``.pdf``, each written atomically.

    Each format is rendered in memory, then written to a temporary file in
    ``directory``, flushed, synced and renamed over the target.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    directory : path-like
        Created when missing.
    name : str
        File stem.
    formats : sequence of str
        File formats (extensions) to write.
    dpi : int
        Resolution of raster formats.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of ``formats``.
    """
    from simstudy.outputs.published import write_atomic

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=dpi, bbox_inches="tight")
        data = buf.getvalue()
        if not data:
            raise InputError(f"figure {name!r}: Matplotlib produced an empty {ext} file")
        paths.append(write_atomic(directory / f"{name}.{ext}", data))
    return paths


def run_fingerprint(run) -> str:
    """SHA-256 of what a stored run holds: its configuration hash and the checksums of its chunks.

    The chunks counted are those the run reads (a chunk damaged since it was
    written drops out of the summaries, and so changes the fingerprint too).

    Parameters
    ----------
    run : simstudy.engine.RunData

    Returns
    -------
    str
        Hexadecimal digest.
    """
    manifest = run.manifest
    chunks = {key: (entry or {}).get("files", {}) for key, entry in (manifest.get("chunks") or {}).items()}
    stored = run.progress()
    content = {
        "study": manifest.get("study"),
        "profile": manifest.get("profile"),
        "config_hash": manifest.get("config_hash"),
        "root_seed": manifest.get("root_seed"),
        "chunks": chunks,
        "stored": {str(r["condition"]): int(r["done"]) for r in stored.to_dict("records")} if len(stored) else {},
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


def _describe(draw) -> str:
    """A stable description of a draw function: its qualified name and bound keyword arguments."""
    import functools

    if isinstance(draw, functools.partial):
        return f"{_describe(draw.func)}({draw.args!r}, {sorted(draw.keywords.items())!r})"
    return f"{getattr(draw, '__module__', '')}.{getattr(draw, '__qualname__', repr(draw))}"


def figure_key(run, figure, *, study: str, profile: str) -> str:
    """The key of a drawn figure: the run's content, the figure's declaration and the library version.

    Parameters
    ----------
    run : simstudy.engine.RunData
    figure : simstudy.engine.study.Figure
    study, profile : str

    Returns
    -------
    str
        Hexadecimal SHA-256.
    """
    from simstudy import __version__

    content = {
        "run": run_fingerprint(run),
        "study": study,
        "profile": profile,
        "figure": figure.name,
        "title": figure.title,
        "draw": _describe(figure.draw),
        "simstudy": __version__,
        "style": FIGURE_STYLE,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _valid(path: Path) -> bool:
    try:
        if path.stat().st_size == 0:
            return False
        if path.suffix == ".png":
            with open(path, "rb") as f:
                return f.read(len(_PNG_SIGNATURE)) == _PNG_SIGNATURE
        return True
    except OSError:
        return False


def figure_is_current(directory, stem: str, key: str) -> bool:
    """True when ``directory/stem.json`` records ``key`` and every file it lists is there, non-empty and intact.

    Parameters
    ----------
    directory : path-like
    stem : str
        File stem of the figure.
    key : str
        What the figure must show (:func:`figure_key`).
    """
    directory = Path(directory)
    try:
        meta = json.loads((directory / f"{stem}.json").read_text())
        files = meta["files"]
        if meta.get("key") != key or not files:
            return False
        return all(_valid(directory / name) and _sha256(directory / name) == digest for name, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def figure_description(directory, stem: str) -> str | None:
    """The plain-text description of a drawn figure, recorded in its sidecar (None when there is none).

    Parameters
    ----------
    directory : path-like
    stem : str
        File stem of the figure.

    Returns
    -------
    str or None
        Title, axes with their ranges, legend entries (each reference line
        among them) and point labels, as :func:`simstudy.outputs.plots.core.describe_axes` wrote them.
    """
    try:
        text = json.loads((Path(directory) / f"{stem}.json").read_text()).get("description")
    except (OSError, ValueError, AttributeError):
        return None
    return text if isinstance(text, str) and text else None


def draw_study_figure(figure, tables, *, profile: str):
    """Draw one declared figure of a study on a new Figure (as :func:`render_study_figure` saves it).

    Parameters
    ----------
    figure : simstudy.engine.study.Figure
        One of ``study.publication.figures``.
    tables : dict of str to pandas.DataFrame
        The study's summary tables.
    profile : str
        The stored profile, passed to the draw function.

    Returns
    -------
    matplotlib.figure.Figure
        With one Axes, the one the draw function drew on.
    """
    fig = new_figure()
    figure.draw(tables, fig.add_subplot(), profile=profile)
    return fig


def render_study_figure(
    study,
    figure,
    tables,
    run,
    directory,
    stem: str | None = None,
    *,
    profile: str,
    force: bool = False,
    formats=FORMATS,
) -> Path:
    """Draw one declared figure of a study unless the files in ``directory`` already show this run.

    The sidecar ``stem.json`` is removed before drawing and written last, so
    an interrupted drawing never leaves files that claim to be current.

    Parameters
    ----------
    study : simstudy.engine.Study
    figure : simstudy.engine.study.Figure
        One of ``study.publication.figures``.
    tables : dict of str to pandas.DataFrame
        The study's summary tables, computed from ``run``.
    run : simstudy.engine.RunData
        The stored run the tables come from (its content keys the figure).
    directory : path-like
        Where ``stem.png``, ``stem.pdf`` and ``stem.json`` go (created when missing).
    stem : str, optional
        File stem (default ``figure.name``).
    profile : str
        The stored profile, passed to the draw function.
    force : bool
        Draw even when the stored files are current.
    formats : sequence of str
        File formats written.

    Returns
    -------
    pathlib.Path
        The PNG file (or the first format written).
    """
    from simstudy.outputs.published import write_atomic

    directory = Path(directory)
    stem = stem or figure.name
    key = figure_key(run, figure, study=study.name, profile=profile)
    first = directory / f"{stem}.{formats[0]}"
    if not force and figure_is_current(directory, stem, key):
        return first
    sidecar = directory / f"{stem}.json"
    directory.mkdir(parents=True, exist_ok=True)
    sidecar.unlink(missing_ok=True)
    from simstudy.outputs.plots.core import describe_axes

    fig = draw_study_figure(figure, tables, profile=profile)
    ax = fig.axes[0]
    paths = save_figure(fig, directory, stem, formats=formats)
    meta = {
        "key": key,
        "study": study.name,
        "figure": figure.name,
        "profile": profile,
        "run": run_fingerprint(run),
        "files": {p.name: _sha256(p) for p in paths},
        "description": describe_axes(ax),
    }
    write_atomic(sidecar, json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return first
