"""What Python runs for the user's modules once simstudy is imported: the file's code, never stale bytecode.

Each case runs in a fresh interpreter, with a timestamp ``.pyc`` of an older text planted beside a module and
stamped with the file's size and modification time, which Python's own import would run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

PLANT = """
import importlib.util, marshal, os
old, new = "def tag():\\n    return 'v1'\\n", "def tag():\\n    return 'v2'\\n"  # the same length
with open("helper.py", "w") as f:
    f.write(new)
st = os.stat("helper.py")
code = compile(old, os.path.abspath("helper.py"), "exec", dont_inherit=True)
cached = importlib.util.cache_from_source(os.path.abspath("helper.py"))
os.makedirs(os.path.dirname(cached), exist_ok=True)
with open(cached, "wb") as f:
    f.write(importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
            + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little") + marshal.dumps(code))
"""


def _python(tmp_path, code: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", PLANT + textwrap.dedent(code)],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_module_imported_after_simstudy_runs_its_files_code(tmp_path):
    # a notebook's order: import simstudy, then the module a study will use, then run; the module must not run
    # the stale bytecode Python would pick (a limit of the loader to what a run has started would let it)
    out = _python(
        tmp_path,
        """
        import simstudy
        import helper
        from simstudy import _codeload

        print(helper.tag(), type(helper.__spec__.loader).__name__, _codeload.stale_modules())
        """,
    )
    assert out == ["v2", "HashedSourceLoader", "[]"]


def test_a_module_imported_before_simstudy_is_known_as_stale(tmp_path):
    out = _python(
        tmp_path,
        """
        import helper
        import simstudy
        from simstudy import _codeload

        print(helper.tag(), [name for name, _ in _codeload.stale_modules()])
        """,
    )
    assert out == ["v1", "['helper']"]
