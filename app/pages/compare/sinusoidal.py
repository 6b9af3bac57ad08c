"""C2 · Sinusoidal codes: the slowest pair on its circle, the arc seen in training and beyond."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np

from positional_core.sinusoidal import clock_angles, sinusoidal_code

from ...chart import Frame, Mark
from ...look import OKABE_ITO, WARNING, text_color
from ...marks import circle, labels
from .shared import SMALL, SchemeChart

#: Points per arc (drawing only).
SAMPLES = 160
_X = hv.Dimension("code_x", label="sin(t·ω)")
_Y = hv.Dimension("code_y", label="cos(t·ω)")


def _arc(color: str, width: float) -> Mark:
    # A curve drawn in order of position: one line, cheaper to build than a path.
    return Mark(hv.Curve, (_X,), (_Y,), style={"color": color, "line_width": width, "tools": []})


def _arc_rows(p: Any, start: int, stop: int) -> dict[str, np.ndarray]:
    """The slowest pair's point (sin, cos) at SAMPLES positions from ``start`` to ``stop``."""
    positions = np.linspace(start, stop, SAMPLES)
    codes = np.array([sinusoidal_code(t, p.d, p.base)[-2:] for t in positions])
    angles = clock_angles(positions, p.d, p.base)[:, -1]
    return {"code_x": codes[:, 0], "code_y": codes[:, 1], "t": positions, "angle": angles}


class Sinusoidal(SchemeChart, key="sinusoidal"):
    depends = ("trained_len", "target_len", "d", "base")
    marks = {  # noqa: RUF012
        "circle": Mark(
            hv.Path,
            (_X, _Y),
            style={"color": OKABE_ITO["grey"], "line_width": 1, "alpha": 0.6, "tools": []},
        ),
        "seen": _arc(OKABE_ITO["blue"], 6),
        "beyond": _arc(WARNING, 3),
        # Invisible until hovered: the exact position and angle along both arcs.
        "dots": Mark(
            hv.Points,
            (_X, _Y),
            ("t", "angle"),
            style={
                "size": 6,
                "alpha": 0,
                "hover_alpha": 1,
                "color": text_color,
                "tools": ["hover"],
                "hover_tooltips": [("position t", "@t{0,0}"), ("angle t·ω (rad)", "@angle{0.000}")],
            },
        ),
        "ends": Mark(hv.Points, (_X, _Y), fields={"color": "tint"}, style={"size": 9, "tools": []}),
        "texts": labels((_X, _Y), text_color, "10pt", tools=[]),
    }
    # A fixed square frame keeps the circle round.
    options = {  # noqa: RUF012
        **SMALL,
        "responsive": False,
        "frame_width": 262,
        "frame_height": 262,
        "min_width": None,
        "xaxis": None,
        "yaxis": None,
    }

    def frame(self, p: Any) -> Frame:
        seen = _arc_rows(p, 0, p.trained_len - 1)
        beyond = _arc_rows(p, p.trained_len - 1, p.target_len - 1)
        ends_x = np.array([seen["code_x"][-1], beyond["code_x"][-1]])
        ends_y = np.array([seen["code_y"][-1], beyond["code_y"][-1]])
        return Frame(
            circle=circle(),
            seen={k: seen[k] for k in ("code_x", "code_y")},
            beyond={k: beyond[k] for k in ("code_x", "code_y")},
            dots={k: np.concatenate([seen[k], beyond[k]]) for k in seen},
            ends={
                "code_x": ends_x,
                "code_y": ends_y,
                "tint": np.array([OKABE_ITO["blue"], WARNING]),
            },
            # "t = 0" above the top; L and L′ just outside the circle, beside their ends.
            texts={
                "code_x": np.array([0.0, *(ends_x * 1.28)]),
                "code_y": np.array([1.18, *(ends_y * 1.28)]),
                "text": np.array(["t = 0", "L", "L′"]),
            },
            x=(-1.4, 1.4),
            y=(-1.4, 1.4),
        )
