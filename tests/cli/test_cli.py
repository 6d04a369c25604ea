import subprocess
import sys

from simstudy.cli import main


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2


def test_unknown_command_is_a_one_line_error(capsys):
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simstudy: error:")


def test_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "simstudy.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "simstudy" in out.stdout
