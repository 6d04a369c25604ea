"""The three kinds of failure are types of their own, and the command line tells them apart."""

import pytest

from simstudy.cli import main
from simstudy.engine.store import ConfigMismatch, StoreError
from simstudy.errors import EXIT_INPUT, EXIT_INTERNAL, InputError, StoredDataError


def test_stored_data_errors_are_not_value_errors():
    # code that catches a ValueError to try another value must not swallow a refused run directory
    for kind in (StoreError, ConfigMismatch):
        assert issubclass(kind, StoredDataError) and not issubclass(kind, ValueError)
    assert issubclass(InputError, ValueError)


def test_bad_input_is_one_line_with_exit_2(capsys):
    assert main(["run", "no_such_study", "--profile", "smoke"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.startswith("simstudy: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("raised", [ValueError("a bug"), KeyError("key"), ZeroDivisionError("x")])
def test_an_error_nobody_raised_on_purpose_is_an_internal_failure(monkeypatch, capsys, raised):
    import simstudy.cli.commands.engine as engine

    def broken(args):
        raise raised

    monkeypatch.setattr(engine, "cmd_list", broken)
    assert main(["list"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and f"simstudy: internal error: {type(raised).__name__}" in err
    assert "not of the command's input" in err and "please report" in err.lower()


def test_option_names_a_python_argument_or_a_command_line_option():
    from simstudy.errors import command_line, option

    assert (option("jobs"), option("profile", "quick"), option("fresh", True)) == (
        "jobs",
        "profile='quick'",
        "fresh=True",
    )
    with command_line():
        assert option("max_evaluations") == "--max-evaluations"
        assert option("profile", "quick") == "--profile quick" and option("fresh", True) == "--fresh"
        assert option("tests", flag="test") == "--test"
    assert option("jobs") == "jobs"  # the block is over


def _message_text(node) -> str:
    """The literal text of a message argument, its f-string fields as ``{}``."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp):
        return _message_text(node.left) + _message_text(node.right)
    return ""


def test_no_library_message_names_a_command_line_option():
    """A Python caller never reads about a flag they did not pass: messages name arguments through ``option``.

    A whole command in backticks (``simstudy run X --profile quick``) is a command to type, and stays.
    """
    import ast
    import re
    from pathlib import Path

    import simstudy

    root = Path(simstudy.__file__).parent
    flag = re.compile(r"(?<![\w`-])--[a-z][a-z-]+")
    found = []
    for path in sorted(root.rglob("*.py")):
        if "cli" in path.relative_to(root).parts:
            continue  # the command line names its own options
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if not (name.endswith(("Error", "Refused", "Mismatch", "Locked", "Failed")) or name == "warn"):
                continue
            for arg in node.args:
                text = re.sub(r"`[^`]*`", "", _message_text(arg))
                if flag.search(text):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {text[:90]}")
    assert not found, "\n".join(found)


def test_the_run_a_missing_result_needs_is_named_in_the_callers_form(tmp_path):
    """No stored run: a Python caller is told the call that stores one, the command line the command."""
    from simstudy.engine.runs import load_run
    from simstudy.errors import InputError, command_line

    out = tmp_path / "none"
    with pytest.raises(InputError) as python:
        load_run("demo", "smoke", out=out, verify_plan=False)
    assert f"run `run_study('demo', profile='smoke', out={str(out)!r})` first" in str(python.value)
    with command_line(), pytest.raises(InputError) as cli:
        load_run("demo", out=out, verify_plan=False)  # no profile given: the default's
    assert f"run `simstudy run demo --profile quick --out {out}` first" in str(cli.value)
