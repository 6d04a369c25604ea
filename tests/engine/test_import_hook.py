"""``import simstudy`` leaves the user's imports to Python until simstudy runs something a fingerprint covers.

Each case runs in a fresh interpreter: the finder and its records live as long as the process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _python(tmp_path, code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_users_module_is_pythons_until_a_run_and_hashed_after(tmp_path):
    (tmp_path / "mine.py").write_text("X = 1\n")
    (tmp_path / "later.py").write_text("Y = 2\n")
    out = _python(
        tmp_path,
        """
        import hashlib, importlib.machinery, os
        import simstudy
        from simstudy import _codeload
        import mine

        print(type(mine.__spec__.loader).__name__)
        print(any(p.endswith("mine.py") for p in _codeload._LOADED))
        _codeload.activate()  # what a run, a study's loading or a code check does first
        digest = _codeload._LOADED[os.path.realpath("mine.py")].digest
        print(digest == hashlib.sha256(open("mine.py", "rb").read()).hexdigest())
        import later

        print(type(later.__spec__.loader).__name__)
        """,
    )
    assert out.split() == ["SourceFileLoader", "False", "True", "HashedSourceLoader"]


def test_stale_bytecode_imported_before_a_run_is_known_as_stale(tmp_path):
    """Python runs the old code of a .pyc stamped for the edited file; the first run of simstudy sees it."""
    old, new = "def tag():\n    return 'v1'\n", "def tag():\n    return 'v2'\n"  # same length
    path = tmp_path / "helper.py"
    path.write_text(new)
    out = _python(
        tmp_path,
        f"""
        import importlib.util, marshal, os
        st = os.stat("helper.py")
        code = compile({old!r}, os.path.abspath("helper.py"), "exec", dont_inherit=True)
        cached = importlib.util.cache_from_source(os.path.abspath("helper.py"))
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        with open(cached, "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                    + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                    + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little") + marshal.dumps(code))
        import simstudy
        from simstudy import _codeload
        import helper

        print(helper.tag())
        print([name for name, _ in _codeload.stale_modules()])
        """,
    )
    assert out.split() == ["v1", "['helper']"]
