"""The core is a library of its own: importing it pulls in no GUI package."""

import subprocess
import sys


def test_core_imports_no_gui_library():
    code = (
        "import sys, positional_core\n"
        "gui = sorted({m.split('.')[0] for m in sys.modules}"
        " & {'panel', 'holoviews', 'bokeh', 'param'})\n"
        "print(','.join(gui))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
