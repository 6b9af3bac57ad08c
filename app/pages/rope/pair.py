"""R1 · One pair on a circle: q turned by m·θ, k by n·θ; the score and its identity.

The contents q and k are set by sliders or by dragging their tips (the
``tips`` mark): :meth:`Pair.dragged` turns the tips' coordinates into the
four content controls, and the chart layer leaves the tips to the mouse
until the drag ends. The buttons under the figure and their score log are in
:mod:`.score_log`.
"""

from __future__ import annotations

import math
from typing import Any

import holoviews as hv
import numpy as np

from positional_core.rope import apply_rope, pair_to_polar, rope_score_terms, rotation_angles

from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, plot_opts, text_color
from ...marks import circle, layer
from ...numbers import fixed, integer, subscript
from .score_log import contents, score_log_extras, terms

__all__ = ["CONTROLS", "NAME_GAP", "Pair", "spread_names"]

#: The controls of R1 (one pair), in the sidebar's order.
CONTROLS = ("m", "n", "theta", "q_angle", "q_len", "k_angle", "k_len")
_TINT = (OKABE_ITO["vermillion"], OKABE_ITO["blue"])
_GREY = OKABE_ITO["grey"]
# Room past the longest arrows (1.5) for their names, written 0.2 beyond the tip.
_LIMITS = (-2.0, 2.0)
# Names no other figure uses: Panel links the axes of plots that share a dimension.
_C1 = hv.Dimension("c1", label="pair component 1")
_C2 = hv.Dimension("c2", label="pair component 2")
_SEGMENT = (_C1, _C2, "c1_end", "c2_end")
#: Least distance between the anchors of two arrows' names, in the frame's units
#: (4 across, 95 px each at full size): the widest name, "R₄₀₉₆q" in 12 pt bold,
#: is about 0.5 wide and 0.17 tall, so names this far apart never overlap.
NAME_GAP = 0.52


def _mark(kind: type, kdims: tuple, vdims: tuple = (), **options: Any) -> Mark:
    """A layer of R1, without zoom or pan tools (a drag moves a tip)."""
    return layer(kind, kdims, vdims, default_tools=[], **options)


def _segments(**style: Any) -> Mark:
    return _mark(hv.Segments, _SEGMENT, fields={"color": "tint"}, **style)


class Pair(Chart):
    title = "R1 · One pair on a circle: turn q by m·θ and k by n·θ"
    caption = (
        "Dashed: the contents q and k of one pair of dimensions (drag their round "
        "tips). Solid: the same arrows after RoPE turned q by m·θ and k by n·θ. "
        "The score is the dot product of the solid arrows, so only the angle "
        "between them counts (dotted arc). <b>Shift both by +1</b> turns both "
        "arrows by θ: the angle between them, and the score, stay. <b>Swap m "
        "and n</b> turns them the other way: the sine term changes sign."
    )
    formula = (
        r"$$\langle R_m q, R_n k\rangle = q^\top R_{n-m}\,k,\qquad "
        r"R_p = \begin{pmatrix}\cos p\theta & -\sin p\theta\\ "
        r"\sin p\theta & \cos p\theta\end{pmatrix}$$"
    )
    depends = CONTROLS
    readout_depends = depends
    marks = {  # noqa: RUF012
        "circle": _mark(hv.Path, (_C1, _C2), color=_GREY, line_width=1),
        "axes": _mark(hv.Segments, _SEGMENT, color=_GREY, line_width=0.8, alpha=0.6),
        "contents": _segments(line_width=2, line_dash="dashed", alpha=0.6),
        "rotated": _segments(line_width=4),
        "arc": _mark(hv.Path, (_C1, _C2), color=text_color, line_width=1.5, line_dash="dotted"),
        "heads": _mark(
            hv.Points,
            (_C1, _C2),
            ("rotated", "position", "turned", "heading"),
            # Bokeh's angle in radians, as the column holds it.
            fields={"color": "tint", "angle": "heading"},
            marker="triangle",
            size=15,
            tools=["hover"],
            hover_tooltips=[
                ("rotated", "@rotated"),
                ("components", "(@c1{0.000}, @c2{0.000})"),
                ("position", "@position"),
                ("turned by", "@turned{0.000} rad"),
            ],
        ),
        "tips": _mark(
            hv.Points,
            (_C1, _C2),
            ("vector", "direction", "length"),
            fields={"fill_color": "tip_color"},
            drag="Drag the tips of q and k",
            size=17,
            line_color="#FFFFFF",
            line_width=2,
            # No hover: Bokeh puts a tooltip on the side of its point towards the
            # frame's centre, over the arrows, and after a drag the pointer rests on
            # the tip. Its numbers are the content sliders'.
        ),
        # Over the tips: on a phone the frame is small enough for a name to touch its tip.
        "names": _mark(
            hv.Labels,
            (_C1, _C2),
            ("text",),
            text_color=text_color,
            text_font_size="12pt",
            text_font_style="bold",
        ),
    }
    options = plot_opts(
        active_tools=["point_draw"],
        responsive=False,
        frame_width=380,
        frame_height=380,
        min_width=None,
        default_tools=["save", "reset"],
        show_legend=False,
    )
    question = (
        "Keep the contents q, k and the frequency θ of R1, and put the query at "
        "position 105 and the key at 102. What is the score, and which other "
        "positions give exactly the same?"
    )
    answer_depends = ("q_angle", "q_len", "k_angle", "k_len", "theta")

    def frame(self, p: Any) -> Frame:
        q, k = contents(p)
        rq = apply_rope(q, p.m, inv_freq=[p.theta])
        rk = apply_rope(k, p.n, inv_freq=[p.theta])
        q_dir, k_dir = pair_to_polar(rq)[0], pair_to_polar(rk)[0]
        # The angle between the rotated arrows (it alone sets the score), as an arc.
        between = (k_dir - q_dir + 180.0) % 360.0 - 180.0
        arc = np.radians(np.linspace(q_dir, q_dir + between, 40))
        spots = spread_names(
            [_beyond(q, 0.16), _beyond(k, 0.16), _beyond(rq, 0.2), _beyond(rk, 0.2)]
        )
        low, high = _LIMITS
        return Frame(
            circle=circle(),
            # The two axes through the origin, from edge to edge.
            axes={"c1": [low, 0.0], "c2": [0.0, low], "c1_end": [high, 0.0], "c2_end": [0.0, high]},
            contents=_from_origin(q, k),
            rotated=_from_origin(rq, rk),
            arc={"xs": [0.32 * np.cos(arc)], "ys": [0.32 * np.sin(arc)]},
            heads={
                "c1": [rq[0], rk[0]],
                "c2": [rq[1], rk[1]],
                "rotated": ["Rmq", "Rnk"],
                "position": [p.m, p.n],
                "turned": rotation_angles([p.m, p.n], [p.theta])[:, 0],
                # Bokeh's triangle points up; turn it along the arrow.
                "heading": np.radians([q_dir, k_dir]) - math.pi / 2,
                "tint": _TINT,
            },
            names={
                "c1": spots[:, 0],
                "c2": spots[:, 1],
                "text": ["q", "k", f"R{subscript(p.m)}q", f"R{subscript(p.n)}k"],
            },
            tips={
                "c1": [q[0], k[0]],
                "c2": [q[1], k[1]],
                "vector": ["q", "k"],
                "direction": [p.q_angle, p.k_angle],
                "length": [p.q_len, p.k_len],
                "tip_color": _TINT,
            },
            x=_LIMITS,
            y=_LIMITS,
        )

    def dragged(self, p: Any, mark: str, data: Any) -> dict[str, Any]:
        """The contents whose tips are at the dragged points: whole degrees, lengths to
        0.01 within their bounds; {} for an unreadable message (a tip deleted)."""
        try:
            xs, ys = list(data["c1"]), list(data["c2"])
            if len(xs) != 2 or len(ys) != 2:
                return {}
            polar = [pair_to_polar([float(x), float(y)]) for x, y in zip(xs, ys, strict=True)]
        except (KeyError, TypeError, ValueError):
            return {}
        values: dict[str, float] = {}
        for prefix, (angle, length) in zip(("q", "k"), polar, strict=True):
            low, high = p.param[f"{prefix}_len"].bounds
            values[f"{prefix}_angle"] = 180.0 if round(angle) == -180 else float(round(angle))
            values[f"{prefix}_len"] = min(max(round(length, 2), low), high)
        return values

    def readout(self, p: Any) -> str:
        m_turn, n_turn = rotation_angles([p.m, p.n], [p.theta])[:, 0]
        return (
            '<div class="rope-score" style="font-size:1.15em">'
            f"<b>score ⟨R<sub>m</sub>q, R<sub>n</sub>k⟩ = {fixed(terms(p).score)}</b></div>"
            f"<div>query at m = {p.m:,}, key at n = {p.n:,}: offset n − m = "
            f"{integer(p.n - p.m)}; the two arrows turned by m·θ = {fixed(m_turn)} "
            f"and n·θ = {fixed(n_turn)} rad. Drag the round tips of q and k, "
            "or use the sliders.</div>"
        )

    def extras(self, p: Any) -> list[Any]:
        """The buttons, their note, the score log, and the identity with today's numbers."""
        return score_log_extras(p, CONTROLS)

    def answer(self, p: Any) -> str:
        q, k = contents(p)
        far, near, start = (
            fixed(rope_score_terms(q, k, m, n, p.theta).score)
            for m, n in ((105, 102), (5, 2), (3, 0))
        )
        return (
            f"<b>{far}</b>, with the contents and θ = {fixed(p.theta, 2)} of R1. "
            f"Positions 5 and 2 give {near}, and 3 and 0 give {start}: the "
            "same, because only the offset n − m = −3 enters the score. Set m = 105, "
            "n = 102 in R1 to see it drawn."
        )


def _from_origin(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    return {
        "c1": [0.0, 0.0],
        "c2": [0.0, 0.0],
        "c1_end": [a[0], b[0]],
        "c2_end": [a[1], b[1]],
        "tint": _TINT,
    }


def spread_names(
    anchors: Any, gap: float = NAME_GAP, bound: float = _LIMITS[1] - NAME_GAP / 2
) -> np.ndarray:
    """The names' anchors ``(count, 2)``, moved so that no two are closer than ``gap``
    and none is farther than ``bound`` from either axis (half a name inside the frame).

    Two names that are too close slide apart across the line from the origin
    through their midpoint (along the circle they sit on), each by half of what
    is missing, keeping their order round the circle: each stays just past its
    arrow's tip, beside the other. Names far from the others do not move.

    >>> spread_names([(1.0, -0.05), (1.0, 0.05)]).round(2).tolist()
    [[1.0, -0.26], [1.0, 0.26]]
    """
    spots = np.clip(np.array(anchors, dtype=float), -bound, bound)
    for _ in range(100):
        moved = False
        for i in range(len(spots)):
            for j in range(i + 1, len(spots)):
                apart = spots[j] - spots[i]
                if np.hypot(*apart) >= gap:
                    continue
                middle = (spots[i] + spots[j]) / 2
                radius = float(np.hypot(*middle))
                out = middle / radius if radius > 1e-9 else np.array([0.0, 1.0])
                across = np.array([-out[1], out[0]])
                along, outward = float(apart @ across), float(apart @ out)
                # Slightly more than the least, so rounding leaves no pair short.
                wanted = math.sqrt(gap**2 - min(outward**2, gap**2)) * 1.000001
                shift = ((wanted if along >= 0 else -wanted) - along) / 2
                spots[i] = np.clip(spots[i] - shift * across, -bound, bound)
                spots[j] = np.clip(spots[j] + shift * across, -bound, bound)
                moved = True
        if not moved:
            break
    return spots


def _beyond(v: np.ndarray, pad: float) -> tuple[float, float]:
    """A point ``pad`` past the tip of ``v`` along it (where its name is written)."""
    r = float(np.hypot(*v)) or 1.0
    return float(v[0] * (r + pad) / r), float(v[1] * (r + pad) / r)
