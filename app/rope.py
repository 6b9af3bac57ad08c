"""Page "RoPE": rotating queries and keys makes scores depend on distance only (R1–R5).

Every number comes from :mod:`positional_core.rope` (and the band helpers of
:mod:`positional_core.extension`); this module only chooses what to draw.

R2–R5 are DynamicMaps over ``param.depends`` methods, as on the other
pages. R1 must follow the mouse while a tip is dragged, and rebuilding its
half-dozen HoloViews elements costs 100+ ms per move; so R1 is drawn once, and
on every change its Bokeh data sources are replaced in place (a few kB, a few
ms): :class:`SourceLinks` keeps them by role, registered by a plot hook.

R1 has two ways to set the contents q and k: sliders (angle, length) and
dragging their tips on the plot. Both write the same four parameters in one
``param.update``. The server moves the tips only when the contents changed
from anywhere *but* a drag (a slider, a link), and once more when a drag ends
(to snap a tip dragged past the length limit back onto its arrow): a tip under
the mouse is never moved by the server, and there is no feedback loop.

Bokeh's point-draw tool moves a tip in the browser on every mouse move but
tells the server only on release; a small ``CustomJS`` on the plot's ``pan``
event sends the dragged tip's data on every move (it copies the tip's
coordinates; it computes nothing).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.core.property.vectorization import field
from bokeh.models import CustomJS

from positional_core.extension import never_complete_turn
from positional_core.rope import (
    LAYOUTS,
    apply_rope,
    curve_spread,
    pair_from_polar,
    pair_indices,
    pair_to_polar,
    random_query_key,
    rope_decay_bound,
    rope_frequencies,
    rope_score_terms,
    rope_scores_by_start,
    rotation_angles,
    wavelengths,
)

from .choice import KEY, BrowserChoice
from .inplace import Drawn, Layer, memoized, padded
from .look import (
    OKABE_ITO,
    Figure,
    QuickCheck,
    formula_pane,
    hands_scale,
    ink_on,
    legend_outside,
    notice_pane,
    plot_background,
    plot_opts,
)
from .page import Page
from .sources import per_document, same_columns

__all__ = ["BASES", "FIXED_STARTS", "RopePage"]

#: Base choices on a 1-2-5 log grid from 100 to 10⁷; it includes the bases of
#: real models: 10,000 (RoFormer, Llama 2), 500,000 (Llama 3), 1,000,000 (Code
#: Llama, Qwen2), 5,000,000 (Yi).
BASES: tuple[int, ...] = (*(m * 10**e for e in range(2, 7) for m in (1, 2, 5)), 10_000_000)
#: The query positions of figure R2 (the user adds a fourth).
FIXED_STARTS: tuple[int, ...] = (0, 100, 1000)
#: Longest score log kept (newest first).
LOG_ROWS = 50
#: Pairs drawn in the pairing diagram (R4): enough to see both patterns.
DIAGRAM_DIM = 16

_Q_COLOR = OKABE_ITO["vermillion"]
_K_COLOR = OKABE_ITO["blue"]
# Line styles and colours for the starts (R2, R4): the curves coincide, so each
# style must stay visible when drawn on top of the others.
_START_STYLES = (
    {"line_dash": "solid", "line_width": 7, "alpha": 0.35, "color": OKABE_ITO["sky"]},
    {"line_dash": "dashed", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["orange"]},
    {"line_dash": "dotted", "line_width": 3, "alpha": 1.0, "color": OKABE_ITO["purple"]},
    {"line_dash": "dashdot", "line_width": 1.5, "alpha": 1.0, "color": OKABE_ITO["green"]},
)
_DELTA = hv.Dimension("delta", label="offset Δ = n − m (positions)")
# R1's axes. Names no other figure uses: Panel links the axes of plots in one
# layout that share a dimension name. The axes are fixed: with that range on
# the dimensions HoloViews takes it as given instead of computing every
# layer's data range, four times per build (R1: 230 → 170 ms in one process).
_R1_LIMITS = (-1.7, 1.7)
_C1 = hv.Dimension("c1", label="pair component 1", range=_R1_LIMITS)
_C2 = hv.Dimension("c2", label="pair component 2", range=_R1_LIMITS)
_SEG = [_C1, _C2, *(hv.Dimension(end, range=_R1_LIMITS) for end in ("c1_end", "c2_end"))]
#: R1's elements: no zoom or pan tools (a drag moves a tip), no legend.
_QUIET: dict[str, Any] = {"default_tools": [], "show_legend": False}
_SCORE = hv.Dimension("score", label="score ⟨Rₘq, Rₘ₊Δk⟩")
_POSITION = hv.Dimension("position", label="position p")
_ANGLE = hv.Dimension("angle", label="angle p·θᵢ mod 2π (rad)", range=(0, 2 * np.pi))
_PAIR = hv.Dimension("pair", label="pair i (0 = fastest)")
_TURN_TICKS = ("0", "π/2", "π", "3π/2", "2π")
_WAVELENGTH = hv.Dimension("wavelength", label="wavelength 2π/θᵢ (positions)")
# The mismatch figure's own names, so Panel does not link its axes to R2's.
_DELTA_MIX = hv.Dimension("delta_mix", label=_DELTA.label)
_SCORE_MIX = hv.Dimension("score_mix", label="score, layouts mixed")

# Sent by the browser on every mouse move of a drag: the point-draw tool has
# already moved the tip in `source.data`; this only syncs that data to the
# server (the tool itself syncs on release only).
_LIVE_DRAG = "rope-live-drag"
_LIVE_DRAG_JS = """
if (source.selected.indices.length > 0) {
  source.setv({data: source.data}, {check_eq: false});
}
"""


def _live_drag_hook(plot: Any, element: Any) -> None:
    """Make the point-draw tool report every mouse move of a drag (once per figure)."""
    figure, source = plot.state, plot.handles.get("source")
    if source is None:
        return
    existing = figure.js_event_callbacks.get("pan", [])
    if any(getattr(cb, "name", None) == _LIVE_DRAG for cb in existing):
        return
    figure.js_on_event(
        "pan", CustomJS(name=_LIVE_DRAG, args={"source": source}, code=_LIVE_DRAG_JS)
    )


class SourceLinks:
    """The Bokeh data sources drawing a figure's elements, by role, replaced in place.

    A page owns one; each element of the figure gets :meth:`hook` (``role``)
    among its HoloViews hooks, which registers the element's data source when
    a plot of it is built (the figure may be shown more than once). The hook
    holds only a weak reference to this object, and this object only weak
    references to the sources, so nothing outlives the session.

    ``current()`` gives every role's columns for the page's state now. A plot
    built later than the figure's elements (the page's state set from a link
    before it is shown, or the page shown again after changes) draws them,
    not the columns its elements were made with.

    (A candidate for the shared look module: any figure that must follow the
    mouse can use it.)
    """

    def __init__(
        self, current: Callable[[], dict[str, dict[str, Any]]], always: tuple[str, ...] = ()
    ) -> None:
        self._sources: dict[str, list[weakref.ref[Any]]] = {}
        self._current = current
        #: Roles sent on every push, even when the server's copy matches.
        self._always = always

    def hook(self, role: str) -> Callable[[Any, Any], None]:
        links = weakref.ref(self)

        def register(plot: Any, element: Any) -> None:
            owner, source = links(), plot.handles.get("source")
            if owner is not None and source is not None:
                refs = owner._sources.setdefault(role, [])
                if not any(ref() is source for ref in refs):
                    refs.append(weakref.ref(source))
                    source.data = dict(owner._current()[role])

        return register

    def sources(self, role: str) -> list[Any]:
        """The live sources drawing ``role`` (dead ones are dropped)."""
        alive = [ref for ref in self._sources.get(role, []) if ref() is not None]
        self._sources[role] = alive
        return [ref() for ref in alive]

    def push(self, columns: dict[str, dict[str, Any]]) -> None:
        """Replace the data of every source of each role (same columns as drawn).

        A source that already holds the role's columns is left alone, unless
        the role is one of ``always`` (R1's tips, which the browser moves under
        the mouse without the server's copy knowing): a change of m redraws
        the rotated query, its head, the arc and the names, not the key or the
        contents (measured on R1: 9 sources sent per change of m → 5, the tips
        among them).

        The changes of one document go out together, and are safe to make from
        a stream callback (which runs outside Bokeh's document lock).
        """
        per_document(
            [
                (source, lambda source=source, data=data: setattr(source, "data", dict(data)))
                for role, data in columns.items()
                for source in self.sources(role)
                if role in self._always or not same_columns(source.data, data)
            ]
        )


def _glyph_fields(**fields: str) -> Callable[[Any, Any], None]:
    """A hook that maps glyph properties to data columns (``angle="heading"``).

    Used where HoloViews would otherwise add a derived column (it converts a
    mapped angle from degrees, and maps categorical colours), so the columns
    drawn are exactly the element's own and :meth:`SourceLinks.push` can
    replace them.
    """

    def hook(plot: Any, element: Any) -> None:
        renderer = plot.handles.get("glyph_renderer")
        if renderer is None:
            return
        for kind in ("glyph", "selection_glyph", "nonselection_glyph", "hover_glyph"):
            glyph = getattr(renderer, kind, None)
            if glyph is None or glyph == "auto":
                continue
            for name, column in fields.items():
                setattr(glyph, name, field(column))

    return hook


#: R4's numbers: black or white ink, by key.
_INKS = {"dark ink": "#000000", "light ink": "#FFFFFF"}
_INK_KEYS = {color: key for key, color in _INKS.items()}


def _hue(columns: dict[str, Any]) -> dict[str, Any]:
    """A layer's columns for its element: the colour column (``color`` as drawn) as ``hue``.

    The pairs are coloured through a colour scale from a float column: with
    integers HoloViews would draw a single pair's colour (d = 2) as a constant,
    not through the scale, and the figure could not be sent as columns.
    """
    out = {k: v for k, v in columns.items() if k != "color"}
    out.setdefault("hue", columns["color"])
    return out


def _num(value: float, digits: int = 3) -> str:
    """A number for text and formulas: fixed decimals, a true minus sign, no −0.000."""
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = f"{0:.{digits}f}"
    return text.replace("-", "−")


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _int(number: int) -> str:
    """``-1234`` → ``−1,234`` (a true minus sign)."""
    return f"{number:,}".replace("-", "−")


def _subscript(number: int) -> str:
    """``12`` → ``₁₂`` (for labels such as R₁₂q drawn inside a plot)."""
    return str(number).translate(_SUBSCRIPTS)


def _tex(value: float, digits: int = 3) -> str:
    return _num(value, digits).replace("−", "-")


def _side_by_side(card: pn.Card, first_below: Any) -> pn.Card:
    """Rearrange a :func:`~app.look.figure_card`: the plot on the left, the items
    after it beside it, and ``first_below`` and what follows it (caption, formula)
    under both, at full width.

    (A candidate for ``look.figure_card``: R1's plot is square and its readout,
    buttons and log are tall, so stacking everything under the plot wastes the
    width.)
    """
    plot, *rest = card.objects
    cut = next(i for i, item in enumerate(rest) if item is first_below)
    card.objects = [
        pn.Row(
            plot,
            pn.Column(*rest[:cut], sizing_mode="stretch_width", min_width=320),
            sizing_mode="stretch_width",
        ),
        *rest[cut:],
    ]
    return card


class RopePage(Page):
    """Rotary position embedding (Su et al. 2021): rotate q and k, score by distance."""

    slug: ClassVar[str] = "rope"
    title: ClassVar[str] = "RoPE"
    intro: ClassVar[str] = (
        "Rotary position embedding (RoPE) does not add anything to the input. It "
        "<em>turns</em> each pair of dimensions of a query by an angle proportional to "
        "the query's position, and the key's pairs by the key's position. The score "
        "of two turned arrows depends only on the angle between them, so it depends on "
        "how far apart the two tokens are, never on where they are."
    )

    # ---------------------------------------------------------- R1: one pair
    m = param.Integer(
        default=2,
        bounds=(0, 4096),
        label="Query position m",
        doc="Position of the query token (R1). The query's pair turns by m·θ.",
    )
    n = param.Integer(
        default=1,
        bounds=(0, 4096),
        label="Key position n",
        doc="Position of the key token (R1). The key's pair turns by n·θ.",
    )
    theta = param.Number(
        default=0.5,
        bounds=(0.0, 3.14),
        step=0.01,
        label="Pair frequency θ (rad per position)",
        doc="How far this pair turns per position (R1). In a real head pair i has "
        "θᵢ = base^(−2i/d): 1 for the fastest pair, tiny for the slowest.",
    )
    q_angle = param.Number(
        default=0.0,
        bounds=(-180.0, 180.0),
        step=1.0,
        label="Query content: direction (°)",
        doc="Direction of the query's pair before rotation, in degrees (R1). "
        "Or drag the query's tip on the plot.",
    )
    q_len = param.Number(
        default=1.0,
        bounds=(0.1, 1.5),
        step=0.01,
        label="Query content: length",
        doc="Length of the query's pair (R1). Rotation never changes it.",
    )
    k_angle = param.Number(
        default=90.0,
        bounds=(-180.0, 180.0),
        step=1.0,
        label="Key content: direction (°)",
        doc="Direction of the key's pair before rotation, in degrees (R1). "
        "Or drag the key's tip on the plot.",
    )
    k_len = param.Number(
        default=1.0,
        bounds=(0.1, 1.5),
        step=0.01,
        label="Key content: length",
        doc="Length of the key's pair (R1).",
    )

    # ------------------------------------------------------ R2–R5: one head
    d = param.Integer(
        default=64,
        bounds=(2, 256),
        step=2,
        label="Head dimension d (even)",
        doc="Width of the query and key vectors (R2–R5): d/2 pairs, each turning at "
        "its own speed. Real heads use 64 or 128.",
    )
    base = param.Selector(
        default=10_000,
        objects={f"{b:,}": b for b in BASES},
        label="Base (rope_theta)",
        doc="Sets the slowest pair's speed, base^(−(d−2)/d) (R2–R5). 10,000 in the "
        "RoPE paper and Llama 2; 500,000 in Llama 3; 1,000,000 in Code Llama.",
    )
    layout = param.Selector(
        default="interleaved",
        objects=list(LAYOUTS),
        label="Pair layout",
        doc="Which dimensions turn together (R2, R4): interleaved (2i, 2i+1) as in the "
        "RoPE paper, or half-split (i, i + d/2) as in GPT-NeoX and Hugging Face Llama.",
    )
    seed = param.Integer(
        default=0,
        bounds=(0, 99_999),
        label="Random q, k: seed",
        doc="Seed of the random query and key contents of R2 and R4 "
        "(the button under R2 picks the next one).",
    )
    start = param.Integer(
        default=5000,
        bounds=(0, 1_000_000),
        label="Your start position",
        doc="A fourth query position for R2 and R4, next to 0, 100 and 1,000.",
    )
    max_distance = param.Integer(
        default=256,
        bounds=(16, 2048),
        label="Largest distance Δ",
        doc="The x-axis of R2–R5 runs from 0 to this many positions.",
    )
    pair = param.Integer(
        default=8,
        bounds=(0, 127),
        label="Highlighted pair i (R3)",
        doc="The pair drawn in bold in R3 (0 is the fastest). At most d/2 − 1.",
    )

    # --------------------------------------------------- state (not controls)
    log = param.List(
        default=[],
        precedence=-1,
        doc="R1's score log, newest first: (action, m, n, θ, score) per row.",
    )
    r1_notes = param.List(
        default=[], item_type=str, precedence=-1, doc="Why a button of R1 did nothing."
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "m": {"type": pn.widgets.IntSlider},
        "n": {"type": pn.widgets.IntSlider},
        "theta": {"type": pn.widgets.FloatSlider},
        "q_angle": {"type": pn.widgets.FloatSlider},
        "q_len": {"type": pn.widgets.FloatSlider},
        "k_angle": {"type": pn.widgets.FloatSlider},
        "k_len": {"type": pn.widgets.FloatSlider},
        "d": {"type": pn.widgets.IntSlider, "throttled": True},
        "base": {"type": pn.widgets.DiscreteSlider},
        "layout": {
            "type": pn.widgets.RadioButtonGroup,
            "color": "primary",
            "variant": "outline",
        },
        "seed": {"type": pn.widgets.IntInput},
        "start": {"type": pn.widgets.IntInput},
        "max_distance": {"type": pn.widgets.IntSlider, "throttled": True},
        "pair": {"type": pn.widgets.IntSlider},
    }

    _R1 = ("m", "n", "theta", "q_angle", "q_len", "k_angle", "k_len")

    def __init__(self, **params: Any) -> None:
        self._from_drag = False
        self._memo: dict[str, tuple[tuple[Any, ...], np.ndarray]] = {}
        self._r1 = SourceLinks(self._r1_columns, always=("tips",))
        super().__init__(**params)

    # ------------------------------------------------------------------ rules
    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {"pair": (0, values["d"] // 2 - 1)}

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["d"] % 2:
            even = fixed["d"] - 1 if fixed["d"] > 2 else 2
            notes.append(f"d = {fixed['d']} is odd; pairs need an even d, so d set to {even}.")
            fixed["d"] = even
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("d", watch=True)
    def _keep_consistent(self) -> None:
        self.keep_consistent()

    # ---------------------------------------------------------- R1 contents
    def _q(self) -> np.ndarray:
        return pair_from_polar(self.q_angle, self.q_len)

    def _k(self) -> np.ndarray:
        return pair_from_polar(self.k_angle, self.k_len)

    def _turned(self) -> tuple[float, float]:
        """Rotation angles m·θ and n·θ of the query and the key (radians)."""
        angles = rotation_angles([self.m, self.n], [self.theta])[:, 0]
        return float(angles[0]), float(angles[1])

    def _tip_columns(self) -> dict[str, Any]:
        q, k = self._q(), self._k()
        return {
            "c1": [q[0], k[0]],
            "c2": [q[1], k[1]],
            "vector": ["q", "k"],
            "direction": [self.q_angle, self.k_angle],
            "length": [self.q_len, self.k_len],
            "tip_color": [_Q_COLOR, _K_COLOR],
        }

    def _arrow_columns(self) -> dict[str, dict[str, Any]]:
        """Everything R1 draws except the tips, by role (the columns of each element)."""
        q, k = self._q(), self._k()
        rq = apply_rope(q, self.m, inv_freq=[self.theta])
        rk = apply_rope(k, self.n, inv_freq=[self.theta])
        q_dir, k_dir = pair_to_polar(rq)[0], pair_to_polar(rk)[0]

        def segment(v: np.ndarray) -> dict[str, list[float]]:
            return {"c1": [0.0], "c2": [0.0], "c1_end": [float(v[0])], "c2_end": [float(v[1])]}

        m_turn, n_turn = self._turned()

        def head(v: np.ndarray, direction: float, position: int, turn: float) -> dict[str, Any]:
            return {
                "c1": [float(v[0])],
                "c2": [float(v[1])],
                "position": [position],
                "turned": [turn],
                # Bokeh's triangle points up; turn it along the arrow (radians).
                "heading": [math.radians(direction) - math.pi / 2],
            }

        def spot(v: np.ndarray, pad: float) -> tuple[float, float]:
            r = float(np.hypot(*v)) or 1.0
            return float(v[0] * (r + pad) / r), float(v[1] * (r + pad) / r)

        # The angle between the rotated arrows (it alone sets the score), as an arc.
        between = (k_dir - q_dir + 180.0) % 360.0 - 180.0
        steps = np.radians(np.linspace(q_dir, q_dir + between, 40))
        spots = [spot(q, 0.16), spot(k, 0.16), spot(rq, 0.2), spot(rk, 0.2)]
        return {
            "content_q": segment(q),
            "content_k": segment(k),
            "rotated_q": segment(rq),
            "rotated_k": segment(rk),
            "head_q": head(rq, q_dir, self.m, m_turn),
            "head_k": head(rk, k_dir, self.n, n_turn),
            "arc": {"xs": [0.32 * np.cos(steps)], "ys": [0.32 * np.sin(steps)]},
            "names": {
                "c1": [x for x, _ in spots],
                "c2": [y for _, y in spots],
                "text": ["q", "k", f"R{_subscript(self.m)}q", f"R{_subscript(self.n)}k"],
            },
        }

    def _r1_columns(self, tips: bool = True) -> dict[str, dict[str, Any]]:
        """Every column R1 draws, by role (the tips only if ``tips``)."""
        columns = self._arrow_columns()
        if tips:
            columns["tips"] = self._tip_columns()
        return columns

    @param.depends(*_R1, watch=True)
    def _redraw_r1(self) -> None:
        """Replace R1's data in place (see the module docstring)."""
        self._r1.push(self._r1_columns(tips=not self._from_drag))

    @contextmanager
    def _dragging(self) -> Iterator[None]:
        self._from_drag = True
        try:
            yield
        finally:
            self._from_drag = False

    def _on_drag(self, data: dict[str, Any] | None = None, **_: Any) -> None:
        """The tips moved on the plot: set the contents from them (one update)."""
        try:
            xs, ys = list(data["c1"]), list(data["c2"])
            if len(xs) != 2 or len(ys) != 2:
                raise ValueError("two tips expected")
            polar = [pair_to_polar([float(x), float(y)]) for x, y in zip(xs, ys, strict=True)]
        except (KeyError, TypeError, ValueError):
            # A tip deleted (Backspace) or an unreadable message: put the tips back.
            self._r1.push({"tips": self._tip_columns()})
            return
        values: dict[str, float] = {}
        for prefix, (angle, length) in zip(("q", "k"), polar, strict=True):
            low, high = self.param[f"{prefix}_len"].bounds
            values[f"{prefix}_angle"] = 180.0 if round(angle) == -180 else float(round(angle))
            values[f"{prefix}_len"] = min(max(round(length, 2), low), high)
        changed = {k: v for k, v in values.items() if getattr(self, k) != v}
        if changed:
            with self._dragging():
                self.param.update(changed)

    def _on_drag_end(self, **_: Any) -> None:
        """Snap the tips onto the arrows (a tip dragged past the length limit)."""
        self._r1.push({"tips": self._tip_columns()})

    # ------------------------------------------------------------- R1 plot
    def _pair_plot(self) -> hv.Overlay:
        """R1's figure: built once; :meth:`_redraw_r1` replaces its data in place."""
        columns = self._arrow_columns()
        hook = self._r1.hook
        grey = OKABE_ITO["grey"]
        line = {"color": grey, "line_width": 0.8, "alpha": 0.6, **_QUIET}
        layers: list[Any] = [
            hv.Ellipse(0, 0, 2, kdims=[_C1, _C2]).opts(color=grey, line_width=1, **_QUIET),
            hv.HLine(0, kdims=[_C1, _C2]).opts(**line),
            hv.VLine(0, kdims=[_C1, _C2]).opts(**line),
        ]
        for who, color in (("q", _Q_COLOR), ("k", _K_COLOR)):
            layers.append(
                hv.Segments(columns[f"content_{who}"], kdims=_SEG).opts(
                    color=color,
                    line_width=2,
                    line_dash="dashed",
                    alpha=0.6,
                    hooks=[hook(f"content_{who}")],
                    **_QUIET,
                )
            )
            layers.append(
                hv.Segments(columns[f"rotated_{who}"], kdims=_SEG).opts(
                    color=color, line_width=4, hooks=[hook(f"rotated_{who}")], **_QUIET
                )
            )
        layers.append(
            hv.Path(
                [np.column_stack([columns["arc"]["xs"][0], columns["arc"]["ys"][0]])],
                kdims=[_C1, _C2],
            ).opts(
                color=self._ink,
                line_width=1.5,
                line_dash="dotted",
                hooks=[hook("arc")],
                **_QUIET,
            )
        )
        for who, color, name in (("q", _Q_COLOR, "m"), ("k", _K_COLOR, "n")):
            layers.append(
                hv.Points(
                    columns[f"head_{who}"],
                    kdims=[_C1, _C2],
                    vdims=["position", "turned", "heading"],
                ).opts(
                    color=color,
                    marker="triangle",
                    size=15,
                    tools=["hover"],
                    hover_tooltips=[
                        ("rotated", f"R{name}{who}"),
                        ("components", "(@c1{0.000}, @c2{0.000})"),
                        ("position", "@position"),
                        ("turned by", "@turned{0.000} rad"),
                    ],
                    hooks=[hook(f"head_{who}"), _glyph_fields(angle="heading")],
                    **_QUIET,
                )
            )
        layers.append(
            hv.Labels(columns["names"], [_C1, _C2], "text").opts(
                text_color=self._ink,
                text_font_size="12pt",
                text_font_style="bold",
                hooks=[hook("names")],
                **_QUIET,
            )
        )
        tips = hv.Points(
            self._tip_columns(),
            kdims=[_C1, _C2],
            vdims=["vector", "direction", "length", "tip_color"],
        ).opts(
            size=17,
            line_color="#FFFFFF",
            line_width=2,
            tools=["hover"],
            hover_tooltips=[
                ("content", "@vector (drag me)"),
                ("components", "(@c1{0.000}, @c2{0.000})"),
                ("direction", "@direction{0}°"),
                ("length", "@length{0.00}"),
            ],
            hooks=[hook("tips"), _glyph_fields(fill_color="tip_color"), _live_drag_hook],
            **_QUIET,
        )
        layers.append(tips)
        drag = hv.streams.PointDraw(
            source=tips, num_objects=2, add=False, drag=True, tooltip="Drag the tips of q and k"
        )
        drag.add_subscriber(self._on_drag)
        release = hv.streams.PanEnd(source=tips)
        release.add_subscriber(self._on_drag_end)
        self._streams = (drag, release)
        return hv.Overlay(layers).opts(
            hv.opts.Overlay(
                xlim=_R1_LIMITS,
                ylim=_R1_LIMITS,
                **plot_opts(
                    active_tools=["point_draw"],
                    responsive=False,
                    frame_width=380,
                    frame_height=380,
                    min_width=None,
                    default_tools=["save", "reset"],
                ),
            )
        )

    # ----------------------------------------------------------- R1 readouts
    def _terms(self) -> Any:
        return rope_score_terms(self._q(), self._k(), self.m, self.n, self.theta)

    @param.depends(*_R1)
    def _score_html(self) -> str:
        t = self._terms()
        m_turn, n_turn = self._turned()
        return (
            '<div class="rope-score" style="font-size:1.15em">'
            f"<b>score ⟨R<sub>m</sub>q, R<sub>n</sub>k⟩ = "
            f"{_num(t.score)}</b></div>"
            f"<div>query at m = {self.m:,}, key at n = {self.n:,}: offset n − m = "
            f"{_int(self.n - self.m)}; the two arrows turned by m·θ = {_num(m_turn)} "
            f"and n·θ = {_num(n_turn)} rad. Drag the round tips of q and k, "
            "or use the sliders.</div>"
        )

    @param.depends(*_R1)
    def _identity(self) -> str:
        t = self._terms()
        mn = rf"({self.m}-{self.n})\cdot {_tex(self.theta, 2)}"
        return (
            r"$$\begin{aligned}\text{score} &= (q\cdot k)\cos\big((m-n)\theta\big)"
            r" + (q_1k_2-q_2k_1)\sin\big((m-n)\theta\big)\\"
            rf"&= ({_tex(t.dot)})\cos\big({mn}\big) + ({_tex(t.cross)})\sin\big({mn}\big)\\"
            rf"&= {_tex(t.dot)}\times {_tex(t.cos)} + {_tex(t.cross)}\times {_tex(t.sin)}"
            rf" = \mathbf{{{_tex(t.score)}}}\end{{aligned}}$$"
        )

    # ------------------------------------------------------------ R1 actions
    def _row(self, action: str) -> tuple[str, int, int, float, float]:
        return (action, self.m, self.n, self.theta, self._terms().score)

    def _act(self, action: str, values: dict[str, int]) -> None:
        current = self._row("before")
        if not self.log or self.log[0][1:] != current[1:]:
            self.log = [current, *self.log][:LOG_ROWS]
        self.param.update(r1_notes=[], **values)
        self.log = [self._row(action), *self.log][:LOG_ROWS]

    def shift_both(self) -> None:
        """Move query and key one position on: the score must not change."""
        top = self.param.m.bounds[1]
        if max(self.m, self.n) + 1 > top:
            self.r1_notes = [f"Positions stop at {top:,}: move m and n down first."]
            return
        self._act("shift both +1", {"m": self.m + 1, "n": self.n + 1})

    def swap(self) -> None:
        """Exchange the positions: the offset changes sign (and so the sine term)."""
        self._act("swap m and n", {"m": self.n, "n": self.m})

    def clear_log(self) -> None:
        self.param.update(log=[], r1_notes=[])

    @param.depends("log")
    def _log_html(self) -> str:
        if not self.log:
            return (
                '<p class="rope-log-empty">The log is empty: press <b>Shift both by +1</b> or '
                "<b>Swap m and n</b> and each state appears here with its score.</p>"
            )
        body = "".join(
            f"<tr><td>{action}</td><td>{m:,}</td><td>{n:,}</td><td>{_int(n - m)}</td>"
            f"<td>{_num(theta, 2)}</td><td><b>{_num(score)}</b></td></tr>"
            for action, m, n, theta, score in self.log
        )
        return (
            '<table class="rope-log"><caption>Score log, newest first</caption>'
            "<thead><tr><th>action</th><th>m</th><th>n</th><th>n − m</th><th>θ</th>"
            f"<th>score</th></tr></thead><tbody>{body}</tbody></table>"
        )

    def _r1_extras(self) -> tuple[Any, ...]:
        shift = pn.widgets.Button(label="Shift both by +1", color="primary")
        swap = pn.widgets.Button(label="Swap m and n", color="primary")
        clear = pn.widgets.Button(label="Clear log", color="light")
        shift.on_click(lambda _e: self.shift_both())
        swap.on_click(lambda _e: self.swap())
        clear.on_click(lambda _e: self.clear_log())
        return (
            pn.Row(shift, swap, clear, margin=(4, 6)),
            notice_pane(self.param.r1_notes, kind="info"),
            pn.pane.HTML(
                self._log_html,
                stylesheets=[_LOG_CSS],
                sizing_mode="stretch_width",
                margin=(0, 10),
            ),
            self._identity_view,
        )

    # -------------------------------------------------- R2 / R4 score curves
    def _starts(self) -> list[int]:
        return [*FIXED_STARTS, self.start]

    def _curves(self, read_layout: str) -> np.ndarray:
        """Score curves for the four starts (memoised per instance: plot and readout share them)."""
        key = (
            self.d,
            self.base,
            self.layout,
            read_layout,
            self.seed,
            self.start,
            self.max_distance,
        )
        memo = self._memo.get(read_layout)
        if memo is None or memo[0] != key:
            q, k = random_query_key(self.d, self.seed)
            curves = rope_scores_by_start(
                q,
                k,
                np.arange(self.max_distance + 1),
                self._starts(),
                self.base,
                layout=self.layout,
                read_layout=read_layout,
            )
            self._memo[read_layout] = (key, curves)
            return curves
        return memo[1]

    def _other_layout(self) -> str:
        return next(name for name in LAYOUTS if name != self.layout)

    #: Fixed labels: a DynamicMap overlay matches its layers by label between updates.
    _CURVE_NAMES = (*(f"m = {s:,}" for s in FIXED_STARTS), "your m")

    def _curves_drawn(
        self,
        curves: np.ndarray,
        reference: np.ndarray | None = None,
        dims: tuple[hv.Dimension, hv.Dimension] = (_DELTA, _SCORE),
    ) -> Drawn:
        """R2 or R4's curves (and the correct one) as drawn: one per start."""
        delta = np.arange(self.max_distance + 1)
        kdim, vdim = dims
        sources: list[dict[str, np.ndarray]] = [
            {kdim.name: delta, vdim.name: curve, "start": np.full(delta.size, start)}
            for curve, start in zip(curves, self._starts(), strict=True)
        ]
        if reference is not None:
            sources.append({kdim.name: delta, vdim.name: reference})
        low = float(min(np.min(s[vdim.name]) for s in sources))
        high = float(max(np.max(s[vdim.name]) for s in sources))
        # As HoloViews pads a curve: 10 % above and below, none along Δ.
        return Drawn(
            sources=sources,
            x_range=(0, self.max_distance),
            y_range=padded(low, high),
        )

    def _curve_overlay(
        self, drawn: Drawn, dims: tuple[hv.Dimension, hv.Dimension] = (_DELTA, _SCORE)
    ) -> hv.Overlay:
        kdim, vdim = dims
        kdim = kdim.clone(range=drawn.x_range)
        vdim = vdim.clone(range=drawn.y_range)
        items = []
        for i, (data, style) in enumerate(zip(drawn.sources, _START_STYLES, strict=False)):
            items.append(
                self.style(
                    hv.Curve(
                        data,
                        kdim,
                        [vdim, hv.Dimension("start", label="query position m")],
                        label=self._CURVE_NAMES[i],
                    ),
                    f"{kdim.name} {i}",
                    tools=["hover"],
                    hover_tooltips=[
                        ("start m", "@start"),
                        ("Δ", f"@{kdim.name}"),
                        ("score", f"@{vdim.name}{{0.0000}}"),
                    ],
                    **style,
                )
            )
        if len(drawn.sources) > len(_START_STYLES):  # on top: the curve every start should draw
            items.append(
                self.style(
                    hv.Curve(drawn.sources[-1], kdim, vdim, label="correct"),
                    f"{kdim.name} correct",
                    color=self._ink,
                    line_width=1.5,
                    alpha=0.9,
                    tools=[],
                )
            )
        return hv.Overlay(items)

    @memoized
    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _distance_drawn(self) -> Drawn:
        return self._curves_drawn(self._curves(self.layout))

    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _distance_plot(self) -> hv.Overlay:
        return self._curve_overlay(self._distance_drawn())

    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _distance_readout(self) -> str:
        spread = curve_spread(self._curves(self.layout))
        return (
            f"Largest gap between the four curves: <b>{spread:.1e}</b> "
            "(rounding): the score depends on the offset Δ only, wherever the query sits. "
            f"q and k: {self.d} random numbers each, seed {self.seed}; {self.layout} layout."
        )

    @memoized
    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _mismatch_drawn(self) -> Drawn:
        matched = self._curves(self.layout)[0]
        return self._curves_drawn(
            self._curves(self._other_layout()), reference=matched, dims=(_DELTA_MIX, _SCORE_MIX)
        )

    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _mismatch_plot(self) -> hv.Overlay:
        return self._curve_overlay(self._mismatch_drawn(), dims=(_DELTA_MIX, _SCORE_MIX))

    @param.depends("d", "base", "layout", "seed", "start", "max_distance")
    def _mismatch_readout(self) -> str:
        spread = curve_spread(self._curves(self._other_layout()))
        matched = curve_spread(self._curves(self.layout))
        return (
            f"Keys rotated {self.layout}, query rotated {self._other_layout()}: the curves now "
            f"disagree by up to <b>{spread:.3g}</b> (same layout: {matched:.1e}). "
            "Nothing raises an error; the model just attends to the wrong places."
        )

    # ------------------------------------------------------------ R3 angles
    def _sample_pairs(self) -> np.ndarray:
        half = self.d // 2
        return np.unique(np.round(np.linspace(0, half - 1, min(half, 4))).astype(int))

    def _pair_colors(self) -> dict[str, Any]:
        """The colour scale of the pairs, fast (vermillion) to slow (blue): its palette and ends."""
        return hands_scale(max(self.d // 2, 2))

    @memoized
    @param.depends("d", "base", "max_distance")
    def _angles_drawn(self) -> Drawn:
        theta = rope_frequencies(self.d, self.base)
        positions = np.arange(self.max_distance + 1)
        pairs = self._sample_pairs()
        table = np.mod(rotation_angles(positions, theta[pairs]), 2 * np.pi)
        pair = np.repeat(pairs, positions.size)
        columns = {
            "position": np.tile(positions, pairs.size),
            "angle": table.T.ravel(),
            "pair": pair,
            # The colour scale's column (``hue``, drawn as ``color``): floats, so
            # that one pair alone (d = 2) is still drawn through the scale.
            "hue": pair.astype(float),
            "color": pair.astype(float),
        }
        return Drawn(
            sources=[
                Layer(columns, models={"color_color_mapper": self._pair_colors()}),
                None,  # the chosen pair, selected in the browser
            ],
            x_range=padded(0, self.max_distance),
            y_range=(0, 2 * np.pi),
            refresh=[(self._pair_choice, ("angles",))],
        )

    @param.depends("d", "base", "max_distance")
    def _angles_plot(self) -> hv.Scatter:
        drawn = self._angles_drawn()
        layer = drawn.sources[0]
        colors = layer.models["color_color_mapper"]
        return self.style(
            hv.Scatter(
                _hue(layer.columns),
                _POSITION.clone(range=drawn.x_range),
                [
                    _ANGLE,
                    hv.Dimension("pair", label="pair i (0 = fastest)"),
                    # The colour bar's title.
                    hv.Dimension("hue", label="pair i (0 = fastest)"),
                ],
            ),
            "r3 angles",
            color="hue",
            cmap=colors["palette"],
            clim=(colors["low"], colors["high"]),
            colorbar=True,
            size=3,
            tools=["hover"],
            hover_tooltips=[
                ("pair i", "@pair"),
                ("position", "@position"),
                ("angle", "@angle{0.000} rad"),
            ],
        )

    def _pairs(self) -> np.ndarray:
        return np.arange(self.d // 2)

    def _angle_rows(self, values: np.ndarray) -> dict[str, np.ndarray]:
        theta = rope_frequencies(self.d, self.base)
        positions = np.arange(self.max_distance + 1)
        values = np.asarray(values, dtype=int)
        chosen = np.mod(rotation_angles(positions, theta[values]), 2 * np.pi)
        return {
            "position": np.tile(positions, len(values)),
            "angle": chosen.T.ravel(),
            "pair": np.repeat(values, positions.size),
            KEY: np.repeat(values, positions.size),
        }

    @param.depends("d", "base", "max_distance")
    def _angles_highlight(self) -> hv.Scatter:
        """The highlighted pair alone, selected in the browser (app/choice.py)."""
        return self.style(
            self._pair_choice.element(
                "angles",
                hv.Scatter,
                self._angle_rows,
                self._pairs,
                on_top=True,
                kdims=[_POSITION],
                vdims=[_ANGLE, "pair"],
            ),
            "r3 chosen",
            color=self._ink,
            size=4,
            tools=["hover"],
            hover_tooltips=[
                ("pair i", "@pair"),
                ("position", "@position"),
                ("angle", "@angle{0.000} rad"),
            ],
        )

    @param.depends("d", "base", "max_distance", "pair")
    def _angles_readout(self) -> str:
        theta = rope_frequencies(self.d, self.base)
        pairs = ", ".join(str(i) for i in self._sample_pairs())
        return (
            f"Coloured: pairs {pairs} of {self.d // 2} (fast → slow); bold: pair {self.pair}, "
            f"θ<sub>{self.pair}</sub> = {theta[self.pair]:.4g} rad per position."
        )

    # ------------------------------------------------------- R3 wavelengths
    @memoized
    @param.depends("d", "base", "max_distance")
    def _wavelength_drawn(self) -> Drawn:
        theta = rope_frequencies(self.d, self.base)
        lam = wavelengths(theta)
        half = self.d // 2
        index = np.arange(half)
        shown = self.max_distance
        return Drawn(
            sources=[
                Layer(
                    {
                        "pair": index,
                        "wavelength": lam,
                        "theta": theta,
                        "hue": index.astype(float),
                        "color": index.astype(float),
                    },
                    models={"color_color_mapper": self._pair_colors()},
                ),
                Layer(models={"glyph": {"location": shown}}),
                {
                    "x": [half - 1],
                    "y": [shown / 1.3],
                    "text": [f"largest distance shown: {shown:,}"],
                },
                None,  # the ring round the chosen pair, selected in the browser
            ],
            x_range=padded(0, half - 1),
            # The dashed line of the largest distance is always in view.
            y_range=padded(min(lam.min(), shown), max(lam.max(), shown), log=True),
            refresh=[(self._pair_choice, ("wavelength",))],
        )

    @param.depends("d", "base", "max_distance")
    def _wavelength_plot(self) -> hv.Overlay:
        drawn = self._wavelength_drawn()
        dots, line, note, _ = drawn.sources
        colors = dots.models["color_color_mapper"]
        kd, vd = _PAIR.clone(range=drawn.x_range), _WAVELENGTH.clone(range=drawn.y_range)
        dots = self.style(
            hv.Scatter(_hue(dots.columns), kd, [vd, "theta", "hue"]),
            "r4 wavelengths",
            color="hue",
            cmap=colors["palette"],
            clim=(colors["low"], colors["high"]),
            size=7,
            tools=["hover"],
            hover_tooltips=[
                ("pair i", "@pair"),
                ("θᵢ", "@theta{0.[0000]e} rad/position"),
                ("wavelength", "@wavelength{0,0.0} positions"),
            ],
        )
        shown = self.style(
            hv.HLine(line.models["glyph"]["location"], kdims=[kd, vd]),
            "r4 shown",
            color=OKABE_ITO["grey"],
            line_dash="dashed",
            line_width=1.5,
        )
        note = self.style(
            hv.Text(
                note["x"][0],
                note["y"][0],
                note["text"][0],
                halign="right",
                valign="top",
                fontsize=9,
                kdims=[kd, vd],
            ),
            "r4 note",
            color=self._ink,
        )
        return dots * shown * note

    def _wavelength_rows(self, values: np.ndarray) -> dict[str, np.ndarray]:
        theta = rope_frequencies(self.d, self.base)
        values = np.asarray(values, dtype=int)
        return {
            "pair": values,
            "wavelength": wavelengths(theta)[values],
            "theta": theta[values],
            KEY: values,
        }

    @param.depends("d", "base")
    def _wavelength_highlight(self) -> hv.Scatter:
        """A ring round the highlighted pair (selected in the browser, as R3's angles)."""
        return self.style(
            self._pair_choice.element(
                "wavelength",
                hv.Scatter,
                self._wavelength_rows,
                self._pairs,
                on_top=True,
                kdims=[_PAIR],
                vdims=[_WAVELENGTH, "theta"],
            ),
            "r4 chosen",
            fill_alpha=0,
            line_color=self._ink,
            line_width=2.5,
            size=16,
            tools=[],
        )

    @param.depends("d", "base", "max_distance", "pair")
    def _wavelength_readout(self) -> str:
        theta = rope_frequencies(self.d, self.base)
        lam = wavelengths(theta)
        slow = int(never_complete_turn(theta, self.max_distance + 1).sum())
        return (
            f"Fastest pair: {lam[0]:,.1f} positions per turn; slowest: {lam[-1]:,.0f}. "
            f"<b>{slow} of {self.d // 2}</b> pairs do not complete one turn within positions "
            f"0 … {self.max_distance:,}: over that range they act like a slowly turning dial."
        )

    # --------------------------------------------------------- R4 diagram
    @memoized
    @param.depends("d", "layout")
    def _pairing_drawn(self) -> Drawn:
        shown = min(self.d, DIAGRAM_DIM)
        half = shown // 2
        rows = {"interleaved": 1.0, "half-split": 0.0}
        boxes: dict[str, list[Any]] = {
            "dim": [],
            "row": [],
            "pair": [],
            "layout": [],
            "partner": [],
            "alpha": [],
        }
        # The arcs as short straight pieces in one Segments element: one data
        # source for all of them (a Path of 32 separate arcs builds 32 datasets).
        arcs: dict[str, list[np.ndarray]] = {
            k: [] for k in ("dim", "row", "dim_end", "row_end", "pair", "alpha")
        }
        t = np.linspace(0, 1, 17)
        for layout, y in rows.items():
            faded = 1.0 if layout == self.layout else 0.3
            for i, (a, b) in enumerate(pair_indices(shown, layout)):
                # An arc from dimension a to dimension b, higher for farther partners.
                x = a + (b - a) * t
                lift = (0.08 + 0.05 * (b - a)) * 4 * t * (1 - t)
                arcs["dim"].append(x[:-1])
                arcs["dim_end"].append(x[1:])
                arcs["row"].append(y + 0.12 + lift[:-1])
                arcs["row_end"].append(y + 0.12 + lift[1:])
                arcs["pair"].append(np.full(t.size - 1, i))
                arcs["alpha"].append(np.full(t.size - 1, faded))
                for dim, partner in ((a, b), (b, a)):
                    boxes["dim"].append(int(dim))
                    boxes["row"].append(y)
                    boxes["pair"].append(i)
                    boxes["layout"].append(layout)
                    boxes["partner"].append(int(partner))
                    boxes["alpha"].append(faded)
        colors = hands_scale(max(half, 2))
        # Each number in black or white, whichever reads on its square (the
        # squares run from vermillion to blue, and the other layout's are faded).
        background = plot_background()
        inks = [
            ink_on(colors["palette"][pair], alpha, background)
            for pair, alpha in zip(boxes["pair"], boxes["alpha"], strict=True)
        ]
        segments = {k: np.concatenate(v) for k, v in arcs.items()}
        cells = {k: np.asarray(v) for k, v in boxes.items()}
        return Drawn(
            sources=[
                Layer(
                    {
                        **{k: v for k, v in segments.items() if k != "pair"},
                        "color": segments["pair"].astype(float),
                    },
                    models={"color_color_mapper": colors},
                ),
                Layer(
                    {**cells, "hue": cells["pair"] * 1.0, "color": cells["pair"] * 1.0},
                    models={"color_color_mapper": colors},
                ),
                {
                    "dim": cells["dim"],
                    "row": cells["row"],
                    "text": np.array([str(x) for x in boxes["dim"]]),
                    # Keys of _INKS, not colours: mapped through it, a page of
                    # one ink (d = 2) is drawn from the column as every other.
                    "text_color": np.array([_INK_KEYS[ink] for ink in inks]),
                },
            ],
            x_range=(-0.8, shown - 0.2),
            y_range=(-0.45, 1.75),
            x_label=f"dimension of q and k (first {shown} of d = {self.d})"
            if shown < self.d
            else "dimension of q and k",
        )

    @param.depends("d", "layout")
    def _pairing_plot(self) -> hv.Overlay:
        drawn = self._pairing_drawn()
        segments, cells, numbers = drawn.sources
        colors = segments.models["color_color_mapper"]
        cmap, clim = colors["palette"], (colors["low"], colors["high"])
        lines = self.style(
            hv.Segments(
                _hue(segments.columns),
                kdims=["dim", "row", "dim_end", "row_end"],
                vdims=["hue", "alpha"],
            ),
            "r6 arcs",
            color="hue",
            cmap=cmap,
            clim=clim,
            line_width=2.5,
            alpha="alpha",
            tools=[],
        )
        cells = self.style(
            hv.Points(
                _hue(cells.columns),
                ["dim", "row"],
                ["pair", "layout", "partner", "alpha", "hue"],
            ),
            "r6 cells",
            color="hue",
            cmap=cmap,
            clim=clim,
            marker="square",
            size=15,
            alpha="alpha",
            line_color=self._ink,
            tools=["hover"],
            hover_tooltips=[
                ("layout", "@layout"),
                ("dimension", "@dim"),
                ("turns with", "@partner"),
                ("pair i", "@pair"),
            ],
        )
        numbers = self.style(
            hv.Labels(
                {
                    "dim": numbers["dim"],
                    "row": numbers["row"],
                    "text": numbers["text"],
                    "ink": numbers["text_color"],
                },
                ["dim", "row"],
                ["text", "ink"],
            ),
            "r6 numbers",
            text_color="ink",
            cmap=_INKS,
            text_font_size="7pt",
            text_font_style="bold",
            tools=[],
        )
        return self.style(
            lines * cells * numbers,
            "r6",
            xlim=drawn.x_range,
            ylim=drawn.y_range,
            yticks=[(0.0, "half-split"), (1.0, "interleaved")],
            xlabel=drawn.x_label,
            ylabel="layout",
            show_legend=False,
        )

    @param.depends("d", "layout")
    def _pairing_readout(self) -> str:
        half = self.d // 2
        rule = "(2i, 2i + 1)" if self.layout == "interleaved" else f"(i, i + {half})"
        first = ", ".join(f"({a}, {b})" for a, b in pair_indices(self.d, self.layout)[:3].tolist())
        return (
            f"In use: <b>{self.layout}</b>, pair i = dimensions {rule}: {first}, … "
            f"for d = {self.d}. Same numbers, same rotation speeds; only the bookkeeping differs."
        )

    # ------------------------------------------------------------ R5 decay
    @memoized
    @param.depends("d", "base", "max_distance")
    def _decay_drawn(self) -> Drawn:
        delta = np.arange(self.max_distance + 1)
        bound = rope_decay_bound(self.d, self.base, delta)
        # As HoloViews pads a curve: 10 % above and below, none along the distance.
        return Drawn(
            sources=[{"distance": delta, "bound": bound}],
            x_range=(0, self.max_distance),
            y_range=padded(float(bound.min()), float(bound.max())),
        )

    @param.depends("d", "base", "max_distance")
    def _decay_plot(self) -> hv.Curve:
        drawn = self._decay_drawn()
        (data,) = drawn.sources
        return self.style(
            hv.Curve(
                (data["distance"], data["bound"]),
                hv.Dimension(
                    "distance", label="relative distance |m − n| (positions)", range=drawn.x_range
                ),
                hv.Dimension("bound", label="bound factor (1/(d/2)) Σⱼ|Sⱼ|", range=drawn.y_range),
            ),
            "r5 bound",
            color=OKABE_ITO["vermillion"],
            line_width=2.5,
            tools=["hover"],
            hover_tooltips=[("distance", "@distance"), ("bound", "@bound{0.000}")],
        )

    @param.depends("d", "base", "max_distance")
    def _decay_readout(self) -> str:
        ends = rope_decay_bound(self.d, self.base, [0, self.max_distance])
        return (
            f"At distance 0 the factor is {ends[0]:.2f} = (d/2 + 1)/2; at {self.max_distance:,} "
            f"it is {ends[1]:.2f}. A bound, not the score itself: nearby keys <em>can</em> "
            "score higher, far ones are only mildly held back."
        )

    # ---------------------------------------------------------------- figures
    def _build_figures(self) -> dict[str, Figure]:
        #: R3's highlighted pair, selected in the browser.
        self._pair_choice = BrowserChoice("pair", lambda: self.pair)
        self.choices = {"pair": self._pair_choice}
        circle = self._pair_plot()

        def curves(method: Any, drawn: Any, legend_cols: int) -> hv.DynamicMap:
            return self.in_place(method, direct=drawn).opts(
                hv.opts.Overlay(
                    legend_cols=legend_cols,
                    **legend_outside("bottom", label_text_font_size="9pt", padding=2),
                    framewise=True,
                    **plot_opts(height=340),
                )
            )

        readout = self._readout
        # The identity with today's numbers: shown under the plot, at full width.
        self._identity_view = formula_pane(self._identity, margin=(0, 10))
        return {
            "pair": Figure(
                title="R1 · One pair on a circle: turn q by m·θ and k by n·θ",
                plot=circle,
                caption=(
                    "Dashed: the contents q and k of one pair of dimensions (drag their round "
                    "tips). Solid: the same arrows after RoPE turned q by m·θ and k by n·θ. "
                    "The score is the dot product of the solid arrows, so only the angle "
                    "between them counts (dotted arc). <b>Shift both by +1</b> turns both "
                    "arrows by θ: the angle between them, and the score, stay. <b>Swap m "
                    "and n</b> turns them the other way: the sine term changes sign."
                ),
                formula=(
                    r"$$\langle R_m q, R_n k\rangle = q^\top R_{n-m}\,k,\qquad "
                    r"R_p = \begin{pmatrix}\cos p\theta & -\sin p\theta\\ "
                    r"\sin p\theta & \cos p\theta\end{pmatrix}$$"
                ),
                controls=self._R1,
                readout=readout(self._score_html),
                extras=self._r1_extras(),
            ),
            "distance": Figure(
                title="R2 · Score against distance, from four starts",
                plot=curves(self._distance_plot, self._distance_drawn, legend_cols=4),
                caption=(
                    "A random query and key of a whole head (d numbers each), the query at "
                    "position m and the key Δ positions later. One curve per start m: 0, "
                    "100, 1,000 and yours. They lie exactly on top of each other (thick, "
                    "dashed, dotted and dash-dot lines all visible at once): moving both "
                    "tokens along the text changes nothing."
                ),
                formula=(
                    r"$$s_m(\Delta) = \langle R_m q,\, R_{m+\Delta} k\rangle"
                    r" = q^\top R_{\Delta}\, k = s_0(\Delta)\quad\text{for every } m$$"
                ),
                controls=("d", "base", "layout", "seed", "start", "max_distance"),
                readout=readout(self._distance_readout),
                extras=(self._new_qk_button(),),
            ),
            "decay": Figure(
                title="R5 · Long-range decay: the RoFormer bound",
                plot=self.in_place(self._decay_plot, direct=self._decay_drawn).opts(
                    framewise=True, **plot_opts(height=320)
                ),
                caption=(
                    "Su et al. bound the score of any query and key by a content factor times "
                    "this curve, which shrinks as the two tokens move apart: RoPE builds in a "
                    "mild preference for nearby tokens. The wiggles come from the fast pairs; "
                    "a larger base makes the decay slower."
                ),
                formula=(
                    r"$$\begin{gathered}\Big|\sum_{j} h_j e^{i\Delta\theta_j}\Big| \le "
                    r"\big(\max_j |h_{j+1}-h_j|\big) \sum_{j=1}^{d/2} |S_j| \\"
                    r"S_j = \sum_{k=0}^{j-1} e^{i\Delta\theta_k},\qquad \text{curve: }"
                    r"\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|\end{gathered}$$"
                ),
                controls=("d", "base", "max_distance"),
                readout=readout(self._decay_readout),
            ),
            "angles": Figure(
                title="R3 · Angle of each pair against position",
                plot=self.in_place(
                    self._angles_plot, self._angles_highlight, direct=self._angles_drawn
                ).opts(
                    hv.opts.Overlay(
                        framewise=True,
                        yticks=[(i * np.pi / 2, t) for i, t in enumerate(_TURN_TICKS)],
                        show_legend=False,
                        **plot_opts(height=320),
                    )
                ),
                caption=(
                    "Each pair i turns by θᵢ per position; the angle wraps around at 2π. The "
                    "fastest pair (vermillion) wraps every 6.3 positions, the slowest (blue) "
                    "has barely moved: together they are like the hands of a clock with "
                    "d/2 hands. Pick a pair to draw in bold."
                ),
                formula=r"$$\varphi_i(p) = p\,\theta_i \bmod 2\pi,\qquad \theta_i = b^{-2i/d}$$",
                controls=("d", "base", "max_distance", "pair"),
                readout=readout(self._angles_readout),
            ),
            "wavelengths": Figure(
                title="R3 · Wavelength of every pair",
                plot=self.in_place(
                    self._wavelength_plot,
                    self._wavelength_highlight,
                    direct=self._wavelength_drawn,
                ).opts(hv.opts.Overlay(framewise=True, logy=True, **plot_opts(height=320))),
                caption=(
                    "How many positions each pair needs for one full turn, on a log axis: "
                    "from 2π ≈ 6.3 for pair 0 up to about 2π·base for the last pair, evenly "
                    "spaced on the log scale. Pairs above the dashed line do not complete "
                    "a turn within the distances shown."
                ),
                formula=r"$$\lambda_i = \frac{2\pi}{\theta_i} = 2\pi\, b^{2i/d}$$",
                controls=("d", "base", "max_distance", "pair"),
                readout=readout(self._wavelength_readout),
            ),
            "layouts": Figure(
                title="R4 · Which dimensions turn together",
                plot=self.in_place(self._pairing_plot, direct=self._pairing_drawn).opts(
                    hv.opts.Overlay(framewise=True, **plot_opts(height=260))
                ),
                caption=(
                    "Each square is a dimension of q (and k); an arc joins the two dimensions "
                    "that rotate together, coloured from the fastest pair to the slowest. "
                    "Interleaved layouts pair neighbours; half-split layouts pair dimension i "
                    "with i + d/2. The layout in use is drawn solid."
                ),
                formula=(
                    r"$$\text{interleaved: }(x_{2i}, x_{2i+1})\qquad"
                    r"\text{half-split: }(x_i, x_{i+d/2})$$"
                ),
                controls=("d", "layout"),
                readout=readout(self._pairing_readout),
            ),
            "mismatch": Figure(
                title="R4 · Rotate with one layout, read with the other",
                plot=curves(self._mismatch_plot, self._mismatch_drawn, legend_cols=3),
                caption=(
                    "The silent bug when weights and code disagree: the keys were rotated "
                    "with the chosen layout (say, a checkpoint converted for one "
                    "implementation) and the query with the other. The starts now give "
                    "different curves, so the score depends on absolute position again; "
                    "only m = 0, where the query is not turned at all, still matches the "
                    "correct curve (thin solid line). No shape check fails: d is the same."
                ),
                formula=(
                    r"$$\langle R^{\text{other}}_m q,\, R^{\text{chosen}}_{m+\Delta} k\rangle"
                    r" \ne \langle R^{\text{other}}_0 q,\, R^{\text{chosen}}_{\Delta} k\rangle$$"
                ),
                controls=("d", "base", "layout", "seed", "start", "max_distance"),
                readout=readout(self._mismatch_readout),
            ),
        }

    @staticmethod
    def _readout(method: Any) -> pn.pane.HTML:
        return pn.pane.HTML(method, sizing_mode="stretch_width", margin=(0, 10))

    def new_qk(self) -> None:
        """Next random q and k (the seed wraps round at its upper bound)."""
        low, high = self.param.seed.bounds
        self.seed = self.seed + 1 if self.seed < high else low

    def _new_qk_button(self) -> pn.widgets.Button:
        button = pn.widgets.Button(label="New q, k", color="primary", margin=(4, 10))
        button.on_click(lambda _e: self.new_qk())
        return button

    # ---------------------------------------------------------------- layout
    def controls(self) -> pn.viewable.Viewable:
        """Two groups: the pair of R1, then the head of R2–R5."""
        if self._controls is None:
            head = [n for n in self.control_names() if n not in self._R1]

            def group(names: list[str] | tuple[str, ...]) -> pn.Param:
                return pn.Param(
                    self.param,
                    parameters=list(names),
                    widgets={k: v for k, v in self.widget_specs.items() if k in names},
                    show_name=False,
                    sizing_mode="stretch_width",
                    margin=0,
                )

            self._controls = pn.Column(
                pn.pane.Markdown("**One pair (R1)**", margin=(0, 10)),
                group(self._R1),
                pn.pane.Markdown("**A whole head (R2–R5)**", margin=(10, 10, 0, 10)),
                group(head),
                sizing_mode="stretch_width",
                margin=0,
            )
        return self._controls

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        first, *rest = cards
        return pn.Column(
            _side_by_side(first, self._identity_view),
            pn.GridBox(*rest, ncols=2, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )

    # ----------------------------------------------------------- quick check
    @param.depends("q_angle", "q_len", "k_angle", "k_len", "theta")
    def _quick_answer(self) -> str:
        q, k = self._q(), self._k()
        far = rope_score_terms(q, k, 105, 102, self.theta).score
        near = rope_score_terms(q, k, 5, 2, self.theta).score
        start = rope_score_terms(q, k, 3, 0, self.theta).score
        return (
            f"<b>{_num(far)}</b>, with the contents and θ = {_num(self.theta, 2)} of R1. "
            f"Positions 5 and 2 give {_num(near)}, and 3 and 0 give {_num(start)}: the "
            "same, because only the offset n − m = −3 enters the score. Set m = 105, "
            "n = 102 in R1 to see it drawn."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "Keep the contents q, k and the frequency θ of R1, and put the query at "
                "position 105 and the key at 102. What is the score, and which other "
                "positions give exactly the same?"
            ),
            answer=self._quick_answer,
        )


_LOG_CSS = """
.rope-log { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums;
  font-size: 0.92em; }
.rope-log caption { text-align: left; font-weight: 600; padding: 2px 0 4px 0; }
.rope-log th, .rope-log td { padding: 2px 8px; text-align: right;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); }
.rope-log th:first-child, .rope-log td:first-child { text-align: left; }
.rope-log tbody tr:first-child { background: rgba(0, 114, 178, 0.12); }
.rope-log-empty { margin: 4px 0; opacity: 0.85; }
:host { max-height: 260px; overflow-y: auto; }
"""
