"""The docs test ends its report with how many code blocks of the documents it runs and skips."""

import sys
from pathlib import Path


def pytest_terminal_summary(terminalreporter):
    ran = [
        r
        for key in ("passed", "failed")
        for r in terminalreporter.stats.get(key, [])
        if getattr(r, "when", "call") == "call" and r.nodeid.startswith("tests/docs/test_code_blocks.py")
    ]
    if not ran:
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_code_blocks import counts, inventory

    found = counts()
    slow = any("test_the_blocks_of_a_document_run" in r.nodeid for r in ran)
    terminalreporter.section("docs code blocks")
    terminalreporter.line(
        f"{found['python checked']} Python blocks checked for their names; "
        f"{found['run']} blocks {'run' if slow else 'run by the slow test (-m slow)'}, "
        f"{found['skipped']} skipped by a skip-test marker, {found['shown']} shown only (text, output, "
        f"configuration); {found['lines not run']} shell lines never run"
    )
    for where, what, reason in inventory():
        terminalreporter.line(f"  {where}: {reason}  [{what.strip()}]")
