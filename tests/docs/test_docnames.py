"""The checker of the documents' Python blocks finds what a move or a rename breaks, without running the block."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docnames  # noqa: E402


def messages(code: str) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in docnames.check(code, "page.rst:1")]


def test_a_block_that_is_right_has_no_problem():
    code = (
        "import numpy as np\n"
        "from simstudy import results\n"
        "from simstudy.statistics.significance import paired_t_test\n"
        "rows = results.load('demo', 'smoke')\n"
        "r = paired_t_test(np.zeros((3, 10)))\n"
        "r.anything_at_all\n"  # an instance's attributes are left to the run
    )
    assert messages(code) == []


def test_a_renamed_import_fails_with_python_s_own_error():
    ((line, message),) = messages("x = 1\nfrom simstudy import resultz\n")
    assert line == 2
    assert message.startswith("ImportError: cannot import name 'resultz' from 'simstudy'")


def test_a_moved_module_fails():
    ((line, message),) = messages("import simstudy.nowhere.runs\n")
    assert (line, message.split(":")[0]) == (1, "ModuleNotFoundError")


def test_a_renamed_attribute_of_an_imported_module_fails():
    ((line, message),) = messages("from simstudy import results\n\nresults.lode('demo', 'smoke')\n")
    assert line == 3
    assert "has no attribute 'lode'" in message


def test_a_renamed_keyword_of_a_simstudy_call_fails():
    code = "from simstudy.statistics.significance import paired_t_test\npaired_t_test([1.0, 2.0], axs=-1)\n"
    ((line, message),) = messages(code)
    assert line == 2
    assert "axs" in message


def test_a_name_the_block_rebinds_is_not_followed():
    assert messages("import numpy as np\nnp = {'a': 1}\nnp.a\n") == []


def test_a_syntax_error_is_reported_with_its_line():
    ((line, message),) = messages("x = 1\ndef f(:\n")
    assert line == 2
    assert message.startswith("SyntaxError")
