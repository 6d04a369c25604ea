"""Every code block of README.md, examples/README.md and docs/ is checked, so a moved or renamed name fails here.

Two halves:

* Fast (in ``make test``): every Python block, skipped or not, compiles, its imports run as written,
  the attributes it reads from what it imports exist and its calls of simstudy functions fit their
  signatures (``docnames.py``); every ``simstudy`` command line parses with the command's own
  parser and names a study that exists; every ``python FILE`` names a file that compiles; every
  ``make TARGET`` names a target (``make -n``).
* Slow (``-m slow``): every document runs, in a working directory of its own, its blocks in the
  order of the text, so that a block that stores a run serves a later block that reads it.  The
  directory holds what the documents assume a reader has: the repository's ``examples/``,
  ``figures/``, ``scripts/`` and ``benchmarks/`` (linked), and the small files the documents name as
  placeholders (``mydata.csv``, ``data.csv``, ``my_models.py``).

  - Python blocks run in one Python session per document (``pysession.py``), each where the earlier
    ones left it, as a reader pasting them one after the other would.
  - Shell blocks (``sh``) run line by line: ``simstudy ...`` with this environment's command,
    ``python ...`` with this interpreter, ``make TARGET`` with the repository's Makefile and this
    environment, its results in the working directory.  Each must exit with 0 (``simstudy solve``
    also with 3, "not reached", or 4, "unresolved": its documented answers on a budget too small
    for the target).
  - Console blocks (``console``) run their ``$`` lines; where the block shows output, the output
    must be the one shown.
  - A study runs at the smoke profile: ``--profile quick`` and ``--profile paper`` become
    ``--profile smoke``, a study command without ``--profile`` gets it, and ``make`` gets
    ``PROFILE=smoke JOBS=1``.  An assessment on your own data gets ``--repeats 2`` where it gives
    none.  Other substitutions are listed in ``SUBSTITUTIONS``, each with its reason; a
    substitution that no longer matches any block fails.

A block that cannot run here (a dask cluster, R, hours of compute) is skipped by a marker in the
document's source, on the line before it: ``<!-- skip-test: REASON -->`` (Markdown) or ``..
skip-test: REASON`` (reStructuredText).  The few shell lines never run (installing, the suite
itself) are in ``NOT_RUN_LINES``.  The run ends with the counts of blocks run and skipped, and
``python tests/docs/test_code_blocks.py`` lists every block, how it runs, and every block or line
that is skipped with its reason.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shlex
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docblocks  # noqa: E402
import docnames  # noqa: E402
from docblocks import ROOT, Block  # noqa: E402

BIN = Path(os.path.abspath(sys.executable)).parent  # the environment, its links not followed
SESSION = Path(__file__).resolve().with_name("pysession.py")

# Shell lines that are not run, with the reason (matched against the line as documented).
NOT_RUN_LINES: tuple[tuple[str, str], ...] = (
    (r"^(\S*/)?pip3? install\b", "installs into an environment: the tests run in the one `make setup` made"),
    (r"^python3? -m venv\b", "creates an environment: the tests run in the one `make setup` made"),
    (r"^(\.|source) \S*activate\b", "activates an environment: the tests run in the one `make setup` made"),
    (r"^make (test|setup|clean)\b", "the test suite itself, or the environment it runs in"),
)

# Text substituted in a document's blocks before they run: (document, documented, run, reason).
SUBSTITUTIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "docs/howto/solve.rst",
        'solve("berrar1", "start_size", ("F", 0.95), jobs=2)',
        'solve("berrar1", "start_size", ("F", 0.95), jobs=2, profile="smoke")',
        "at the smoke profile, as the command line before it (the Python call's default is quick)",
    ),
    (
        "docs/howto/studies.rst",
        "--profile quick --target-mcse 0.01 --step 200",
        "--profile smoke --target-mcse 0.01 --step 200 --out results/power_study/smoke-adaptive",
        "at the smoke profile the adaptive run would meet the fixed run the block stores first at that profile",
    ),
)

# Commands run in a document's directory before its first block: runs a page reads as stored.
PREPARE: dict[str, tuple[str, ...]] = {
    "README.md": (
        "simstudy run berrar3 --profile smoke",
        "simstudy run bouckaert1 --profile smoke",
        "simstudy run bouckaert_frank --profile smoke",
        "simstudy run examples/my_study.py --profile smoke",
    ),
    "docs/howto/results.rst": ("simstudy run demo --profile smoke",),
    "docs/studies/proving_ground.rst": (
        "simstudy run berrar1 --profile smoke",
        "simstudy run berrar2 --profile smoke",
        "simstudy run berrar3 --profile smoke",
    ),
}

# Small files the documents name as placeholders for the reader's own: mydata.csv and data.csv (a
# header line, numeric columns, the class last in a column named outcome); my_models.py as the
# practitioners' page shows it (README.md names it without showing it).
_ROWS = 60
FIXTURE_LINKS = ("examples", "figures", "scripts", "benchmarks")


def _csv() -> str:
    import numpy as np

    rng = np.random.default_rng(20240501)
    y = np.repeat([0, 1], _ROWS // 2)
    X = rng.normal(size=(_ROWS, 4)) + 0.8 * y[:, None] * np.array([1.0, 0.5, 0.0, -0.5])
    lines = ["x1,x2,x3,x4,outcome"]
    lines += [",".join(f"{v:.4f}" for v in row) + f",{'yes' if c else 'no'}" for row, c in zip(X, y)]
    return "\n".join(lines) + "\n"


def _my_models() -> str:
    page = next(b for b in docblocks.blocks(ROOT / "docs/howto/practitioners.rst") if _file_block(b))
    return page.code


def _file_block(block: Block) -> str | None:
    """The file a Python block shows, when its first line is a comment naming it (``# my_models.py``)."""
    first = block.code.lstrip().splitlines()[0] if block.code.strip() else ""
    match = re.fullmatch(r"#\s*([\w./-]+\.py)\s*", first)
    return match[1] if match else None


def prepare(workdir: Path) -> None:
    for name in FIXTURE_LINKS:
        (workdir / name).symlink_to(ROOT / name, target_is_directory=True)
    (workdir / "mydata.csv").write_text(_csv())
    (workdir / "data.csv").write_text(_csv())
    (workdir / "my_models.py").write_text(_substituted("docs/howto/practitioners.rst", _my_models()))


def _substituted(document: str, code: str) -> str:
    for doc, documented, run, _ in SUBSTITUTIONS:
        if doc == document:
            code = code.replace(documented, run)
    return code


# --- shell lines -------------------------------------------------------------------------------

# Commands of simstudy that run or read a study at a profile.
_STUDY_COMMANDS = {"run", "status", "summarize", "compare", "replay", "bench", "report", "proving-ground", "solve"}
_ALLOWED_EXIT = {"solve": {0, 3, 4}}


def not_run_reason(line: str) -> str | None:
    for pattern, reason in NOT_RUN_LINES:
        if re.search(pattern, line):
            return reason
    return None


def command_lines(code: str) -> list[tuple[int, str]]:
    """A shell block's commands: (line offset in the block, command), continuation lines joined."""
    out, pending, start = [], "", 0
    for i, line in enumerate(code.splitlines()):
        if not pending:
            start = i
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        if text and not text.startswith("#"):
            out.append((start, text))
    return out


MAKE_VARIABLES = ("PROFILE=smoke", "JOBS=1")  # appended: the last assignment of a variable wins


def as_run(command: str, workdir: Path | None = None) -> list[str]:
    """The argument list that runs a documented command here, at the smoke profile.

    ``make`` runs the repository's Makefile with this environment (never set up again: ``-o`` its
    stamp) and its results under ``workdir`` (the repository's ``results/`` without one: only for
    ``make -n``).
    """
    args = shlex.split(command, comments=True)
    while args and args[0] in {"nice", "time"}:
        args = args[1:]
    if any(a in {"|", "||", "&&", ";", ">", ">>", "<", "&"} for a in args):
        raise ValueError(f"the docs test runs one command per line, no pipes or redirections: {command}")
    if not args:
        raise ValueError(f"no command in {command!r}")
    if args[0] == "simstudy":
        args = [str(BIN / "simstudy"), *args[1:]]
        sub = args[1] if len(args) > 1 else ""
        if sub in _STUDY_COMMANDS:
            if "--profile" in args:
                i = args.index("--profile")
                if args[i + 1] in {"quick", "paper"}:
                    args[i + 1] = "smoke"
            elif "--out" not in args:
                args += ["--profile", "smoke"]
        if sub == "assess" and "--repeats" not in args:
            args += ["--repeats", "2"]
        if "--jobs" in args:
            args[args.index("--jobs") + 1] = "1"
    elif args[0] in {"python", "python3"}:
        args = [sys.executable, *args[1:]]
    elif args[0] == "make":
        venv = BIN.parent
        results = (workdir / "results") if workdir is not None else ROOT / "results"
        args = [
            "make",
            "--no-print-directory",
            "-C",
            str(ROOT),
            "-o",
            str(venv / ".installed"),
            *args[1:],
            *MAKE_VARIABLES,
            f"VENV={venv}",
            f"RESULTS={results}",
        ]
    else:
        raise ValueError(f"the docs test does not know how to run {args[0]!r} ({command}): mark the block skip-test")
    return args


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- one document ------------------------------------------------------------------------------


@dataclass
class Page:
    """One document being run: its directory, its Python session and what has happened so far."""

    document: str
    workdir: Path
    env: dict
    session: subprocess.Popen | None = None
    requests: object = None
    replies: object = None
    timings: list[tuple[str, float, float]] = field(default_factory=list)  # (what, wall s, CPU s of children)

    def python(self, block: Block, code: str) -> None:
        if self.session is None:
            self._start()
        start = time.perf_counter()
        self.requests.write(json.dumps({"name": block.where, "code": code}) + "\n")
        self.requests.flush()
        line = self.replies.readline()
        if line:
            self.timings.append((f"{block.where}: Python block", time.perf_counter() - start, json.loads(line)["cpu"]))
        if not line:
            raise AssertionError(f"{block.where}: the Python session ended\n{self._session_output()}")
        reply = json.loads(line)
        if not reply["ok"]:
            raise AssertionError(f"{block.where}: the Python block fails\n{reply['error']}\n{self._session_output()}")

    def _start(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.out = open(self.workdir / ".pysession.log", "w")  # noqa: SIM115 - kept open with the session
        self.session = subprocess.Popen(
            [sys.executable, str(SESSION), str(req_r), str(rep_w)],
            cwd=self.workdir,
            env=self.env,
            pass_fds=(req_r, rep_w),
            stdin=subprocess.DEVNULL,
            stdout=self.out,
            stderr=subprocess.STDOUT,
        )
        os.close(req_r)
        os.close(rep_w)
        self.requests = os.fdopen(req_w, "w", encoding="utf-8")
        self.replies = os.fdopen(rep_r, "r", encoding="utf-8")

    def _session_output(self) -> str:
        self.out.flush()
        text = (self.workdir / ".pysession.log").read_text(errors="replace")
        return "session output (last lines):\n" + "\n".join(text.splitlines()[-30:])

    def close(self) -> None:
        if self.session is not None:
            self.requests.close()
            try:
                self.session.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.session.kill()
                self.session.wait()
            self.replies.close()
            self.out.close()

    def command(self, where: str, command: str) -> subprocess.CompletedProcess:
        args = as_run(command, self.workdir)
        start, cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run(
            args, cwd=self.workdir, env=self.env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL
        )
        shown = shlex.join(["simstudy" if a == str(BIN / "simstudy") else a for a in args])
        self.timings.append((f"{where}: {shown}", time.perf_counter() - start, _children_cpu() - cpu))
        allowed = _ALLOWED_EXIT.get(args[1] if len(args) > 1 and args[0].endswith("simstudy") else "", {0})
        if done.returncode not in allowed:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
            raise AssertionError(f"{where}: `{command}` exits with {done.returncode}\nran: {shlex.join(args)}\n{tail}")
        return done

    def shell(self, block: Block, code: str) -> None:
        for offset, command in command_lines(code):
            if not_run_reason(command) is None:
                self.command(f"{block.document}:{block.line + offset}", command)

    def console(self, block: Block, code: str) -> None:
        for where, command, expected in console_steps(block, code):
            if not_run_reason(command) is not None:
                continue
            done = self.command(where, command)
            if expected:
                got = [line.rstrip() for line in done.stdout.rstrip().splitlines()]
                want = [line.rstrip() for line in expected]
                assert got == want, (
                    f"{where}: `{command}` prints\n" + "\n".join(got) + "\nwhere the page shows\n" + ("\n".join(want))
                )


def console_steps(block: Block, code: str) -> list[tuple[str, str, list[str]]]:
    """A console block's ``$`` commands (continuations joined), each with the output lines shown after it."""
    steps: list[tuple[str, str, list[str]]] = []
    lines = code.rstrip().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            start = i
            command = line[2:]
            while command.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command.rstrip()[:-1] + " " + lines[i].strip()
            steps.append((f"{block.document}:{block.line + start}", command.strip(), []))
        elif steps:
            steps[-1][2].append(line)
        elif line.strip():
            raise ValueError(f"{block.where}: a console block starts with a `$ ` command line")
        i += 1
    return steps


def run_document(document: str, workdir: Path, timings: list | None = None) -> Page:
    env = dict(os.environ, MPLBACKEND="Agg", PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("PYTHONPATH", None)
    page = Page(document, workdir, env, timings=timings if timings is not None else [])
    prepare(workdir)
    try:
        for command in PREPARE.get(document, ()):
            page.command(f"{document} (prepared)", command)
        for block in docblocks.blocks(ROOT / document):
            if block.skipped is not None or block.runs_as in {"shown", "include"}:
                continue
            code = _substituted(document, block.python if block.runs_as == "python" else block.code)
            if block.runs_as == "python":
                name = _file_block(block)
                if name:
                    (workdir / name).unlink(missing_ok=True)
                    (workdir / name).write_text(code)
                else:
                    page.python(block, code)
            elif block.runs_as == "shell":
                page.shell(block, code)
            else:
                page.console(block, code)
    finally:
        page.close()
    return page


def _runnable_documents() -> list[str]:
    out = []
    for path in docblocks.documents():
        found = docblocks.blocks(path)
        if any(b.skipped is None and b.runs_as in {"python", "shell", "console"} for b in found):
            out.append(path.relative_to(ROOT).as_posix())
    return out


# --- fast: the names every block uses ----------------------------------------------------------


def _python_blocks() -> list[Block]:
    """Every block of Python a reader is shown, skipped or not, included files too."""
    return [
        b
        for p in docblocks.documents()
        for b in docblocks.blocks(p)
        if b.runs_as == "python" or (b.runs_as == "include" and b.language in docblocks.PYTHON)
    ]


# Modules that blocks import from files an earlier block of their page writes (``# my_models.py``).
LOCAL_MODULES = frozenset(
    Path(name).stem for b in _python_blocks() if b.runs_as == "python" and (name := _file_block(b))
)


@pytest.mark.parametrize("block", _python_blocks(), ids=lambda b: b.where)
def test_the_names_a_python_block_uses_exist(block):
    """Compiled, its imports run as written, its attributes of modules and classes and its simstudy calls checked."""
    problems = docnames.check(block.python, block.include or block.where, LOCAL_MODULES)
    first = block.line if block.include is None else 1
    where = block.document if block.include is None else block.include
    assert not problems, "\n".join(
        f"{where}:{first + p.line - 1}: {p.message}\n    {block.python.splitlines()[p.line - 1].strip()}"
        for p in problems
    )


def _command_lines() -> list[tuple[str, str]]:
    """Every shell or console command of a block that is not skipped and a line that runs: (where, command)."""
    out = []
    for path in docblocks.documents():
        for block in docblocks.blocks(path):
            if block.skipped is not None or block.runs_as not in {"shell", "console"}:
                continue
            if block.runs_as == "shell":
                steps = [(f"{block.document}:{block.line + o}", c) for o, c in command_lines(block.code)]
            else:
                steps = [(w, c) for w, c, _ in console_steps(block, block.code)]
            out.extend((w, c) for w, c in steps if not_run_reason(c) is None)
    return out


def _is_path(study: str) -> bool:
    return study.endswith(".py") or "/" in study


@pytest.mark.parametrize(("where", "command"), _command_lines(), ids=[w for w, _ in _command_lines()])
def test_a_command_line_is_understood(where, command):
    """A ``simstudy`` line parses and names a study that exists; ``python FILE`` compiles; ``make T`` is a target."""
    from simstudy.cli import UsageError, build_parser
    from simstudy.engine.study import get_study

    documented = shlex.split(command, comments=True)
    while documented and documented[0] in {"nice", "time"}:
        documented = documented[1:]
    args = as_run(command)  # raises for a command the slow test could not run
    if documented[0] == "simstudy":
        for line in (documented[1:], args[1:]):  # as documented, and as the slow test runs it
            try:
                parsed = build_parser().parse_args(line)
            except UsageError as exc:
                pytest.fail(f"{where}: `{command}`: {exc}")
            except SystemExit as exc:  # --help, --version
                assert exc.code == 0, f"{where}: `{command}` exits with {exc.code}"
                return
            study = getattr(parsed, "study", None)
            for name in study if isinstance(study, list) else [study]:
                if isinstance(name, str) and _is_path(name):
                    assert (ROOT / name).is_file(), f"{where}: `{command}`: no file {name}"
                elif isinstance(name, str) and parsed.command != "assess":
                    try:
                        get_study(name)
                    except ValueError as exc:
                        pytest.fail(f"{where}: `{command}`: {exc}")
    elif documented[0] in {"python", "python3"}:
        script = next((a for a in documented[1:] if not a.startswith("-")), None)
        if documented[1] == "-m":
            import importlib.util

            assert importlib.util.find_spec(documented[2]), f"{where}: `{command}`: no module {documented[2]}"
        elif script is not None:
            compile((ROOT / script).read_text(encoding="utf-8"), script, "exec")
    elif documented[0] == "make":
        done = subprocess.run([*args[:1], "-n", *args[1:]], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{where}: `{command}`: {done.stderr.strip()}"


# --- slow: every document runs -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("document", _runnable_documents())
def test_the_blocks_of_a_document_run(document, tmp_path):
    timings: list = []
    try:
        run_document(document, tmp_path, timings)
    finally:
        for what, wall, cpu in timings:  # shown with -rA, or -s
            print(f"{wall:7.1f} s wall {cpu:7.1f} s CPU  {what}")


# --- nothing skipped silently ------------------------------------------------------------------

# Languages a block may be written in that this test cannot run: such a block needs a skip-test marker.
FOREIGN = {"r", "java", "julia", "matlab"}


def inventory() -> list[tuple[str, str, str]]:
    """Every block skipped and every shell line not run: (where, what, reason)."""
    rows = []
    for path in docblocks.documents():
        for block in docblocks.blocks(path):
            if block.skipped is not None:
                rows.append((block.where, f"{block.language} block", f"skip-test: {block.skipped}"))
            elif block.runs_as in {"shell", "console"}:
                commands = (
                    command_lines(block.code)
                    if block.runs_as == "shell"
                    else [(int(w.rsplit(":", 1)[1]) - block.line, c) for w, c, _ in console_steps(block, block.code)]
                )
                for offset, command in commands:
                    reason = not_run_reason(command)
                    if reason:
                        rows.append((f"{block.document}:{block.line + offset}", command, f"line not run: {reason}"))
    return rows


def counts() -> dict[str, int]:
    """How many blocks the slow test runs, how many are skipped by a marker, how many are only shown."""
    out = {"run": 0, "skipped": 0, "shown": 0, "python checked": len(_python_blocks())}
    for path in docblocks.documents():
        for block in docblocks.blocks(path):
            if block.skipped is not None:
                out["skipped"] += 1
            elif block.runs_as in {"python", "shell", "console"}:
                out["run"] += 1
            else:
                out["shown"] += 1
    out["lines not run"] = sum(1 for _, _, reason in inventory() if reason.startswith("line not run"))
    return out


def test_every_block_says_how_it_runs():
    """A block without a language that holds commands or Python would escape the test: it must say ``text``."""
    unlabelled = [b.where for p in docblocks.documents() for b in docblocks.blocks(p) if docblocks.looks_like_code(b)]
    assert not unlabelled, f"blocks that look like code but name no language (say `text` if shown only): {unlabelled}"
    foreign = [
        b.where
        for p in docblocks.documents()
        for b in docblocks.blocks(p)
        if b.language in FOREIGN and b.skipped is None
    ]
    assert not foreign, f"blocks in a language this test cannot run, without a skip-test marker: {foreign}"


def test_every_block_skipped_says_why():
    rows = inventory()
    assert all(reason.split(":", 1)[1].strip() for _, _, reason in rows)
    documents = {p.relative_to(ROOT).as_posix() for p in docblocks.documents()}
    assert set(_runnable_documents()) <= documents
    found = counts()
    print(
        f"docs code blocks: {found['run']} run by the slow test, {found['skipped']} skipped by a marker, "
        f"{found['shown']} shown only; {found['python checked']} Python blocks checked here; "
        f"{found['lines not run']} shell lines never run"
    )


def test_every_substitution_is_used():
    """A substitution whose text left the page would silently stop shrinking what the page runs."""
    for document, documented, _, reason in SUBSTITUTIONS:
        codes = [b.code for b in docblocks.blocks(ROOT / document)]
        if document == "docs/howto/practitioners.rst":
            codes.append(_my_models())
        assert any(documented in c for c in codes), f"{document}: no block holds {documented!r} ({reason})"
        assert reason


def main() -> None:
    """Print every block with how it runs, and every block or line skipped with its reason."""
    for path in docblocks.documents():
        for block in docblocks.blocks(path):
            how = "skipped" if block.skipped else block.runs_as
            print(f"{block.where:40} {block.language or '(none)':8} {how}")
    print("\nSkipped:")
    for where, what, reason in inventory():
        print(f"  {where}: {what}\n      {reason}")
    print("\nSubstituted:")
    for document, documented, run, reason in SUBSTITUTIONS:
        print(f"  {document}: {documented!r} -> {run!r}\n      {reason}")
    print(
        textwrap.dedent("""
        Always: --profile quick|paper -> --profile smoke (a study command without --profile gets it);
        simstudy assess without --repeats -> --repeats 2; make TARGET -> make TARGET PROFILE=smoke JOBS=1.""")
    )
    print("\n" + ", ".join(f"{k}: {v}" for k, v in counts().items()))


if __name__ == "__main__":
    main()
