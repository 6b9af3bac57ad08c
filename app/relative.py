"""Page "Relative": position reaches the scores through key − query offsets (T1–T3).

T5's relative buckets, Shaw et al.'s clipped distances, and NoPE (no position
encoding at all, only the causal mask). Every number comes from
:mod:`positional_core.relative` (and, for the NoPE comparison,
:func:`positional_core.attention.order_similarity`); this module only chooses
what to draw. Each figure is a ``hv.DynamicMap`` over ``param.depends``
methods. Choosing another head sends nothing back: the page ships every head's
bias per bucket (a few hundred numbers) with T1b, and the browser looks the
head's biases up at each cell's bucket (:class:`app.choice.BrowserChoice`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.models import CustomJSHover
from holoviews.operation.element import interpolate_curve
from holoviews.plotting.util import process_cmap

from positional_core.attention import order_similarity
from positional_core.presets import model_config
from positional_core.relative import (
    nope_row_weight,
    shaw_clipped_distance,
    shaw_relative_index,
    t5_bias_matrix,
    t5_bucket_regions,
    t5_random_bucket_biases,
    t5_relative_bucket,
)

from .choice import KEY, BrowserChoice
from .inplace import Drawn, Layer, memoized
from .look import (
    HIGHLIGHT,
    OKABE_ITO,
    WARNING,
    Figure,
    QuickCheck,
    is_dark,
    plot_opts,
    warning_text_color,
)
from .page import Page

__all__ = ["BIAS_SEED", "ORDER_PAIR", "T5_PRESETS", "RelativePage", "t5_preset_values"]

#: Seed of the illustrative per-bucket bias table (real T5 biases are learned).
BIAS_SEED = 0
#: The Order page's default sentences, for the NoPE comparison (B reorders A).
ORDER_PAIR = ("dog bites man", "man bites dog")
#: The T5 presets: label → (shipped config name, mode). T5's encoder is
#: bidirectional; its decoder uses the same bucket settings, causally.
T5_PRESETS: dict[str, tuple[str, str]] = {
    "T5-base encoder": ("t5-base", "bidirectional"),
    "T5-base decoder": ("t5-base", "causal"),
}
#: The quick check's question is about this preset and this offset.
_CHECK_PRESET, _CHECK_OFFSET = "T5-base encoder", 200

_MODE_LABELS = {"bidirectional": "bidirectional (encoder)", "causal": "causal (decoder)"}
#: Region colours (Okabe & Ito): the same in the step chart, its readout and captions.
_REGION_COLORS = {
    "exact": OKABE_ITO["sky"],
    "logarithmic": OKABE_ITO["orange"],
    "shared": OKABE_ITO["grey"],
    "future": OKABE_ITO["purple"],
}
_MASKED = "rgba(140, 140, 140, 0.55)"
#: T2's colours: one per clipped offset.
_SHAW_CMAP = "PuOr_r"

_OFFSET = hv.Dimension("offset", label="offset j − i (key − query, positions)")
_KEY = hv.Dimension("key", label="key position j")
_QUERY = hv.Dimension("query", label="query position i")


def _offset_hover() -> CustomJSHover:
    """Tooltip formatter: the images' x is the key j, y the query i; offset = j − i.

    A new model per plot: a Bokeh model belongs to one document (one session),
    so a module-level instance would break the second browser that opens the page.
    """
    return CustomJSHover(
        code="return (Math.round(special_vars.x) - Math.round(special_vars.y)).toString()"
    )


_SWATCH_CSS = (
    "display:inline-block;width:0.8em;height:0.8em;border-radius:2px;"
    "margin-right:0.3em;vertical-align:baseline;opacity:0.85"
)


def _swatch(region: str) -> str:
    return f'<span style="{_SWATCH_CSS};background:{_REGION_COLORS[region]}"></span>'


def _num(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits and a true minus sign."""
    return f"{value:,.{digits}g}".replace("-", "−")


def _signed(offset: int) -> str:
    return f"+{offset:,}" if offset > 0 else f"{offset:,}".replace("-", "−")


def _buckets_text(first: int, last: int) -> str:
    return f"bucket {first}" if first == last else f"buckets {first}–{last}"


def _distances_text(first: int, last: int) -> str:
    return f"distance {first:,}" if first == last else f"distances {first:,}…{last:,}"


def t5_preset_values(label: str) -> dict[str, Any]:
    """The control values of a T5 preset, read from the shipped config."""
    name, mode = T5_PRESETS[label]
    config = model_config(name)
    return {
        "num_buckets": int(config["relative_attention_num_buckets"]),
        "max_distance": int(config["relative_attention_max_distance"]),
        "heads": int(config["num_heads"]),
        "mode": mode,
    }


class RelativePage(Page):
    """T5 relative buckets, Shaw et al.'s clipping, and NoPE."""

    slug: ClassVar[str] = "relative"
    title: ClassVar[str] = "Relative"
    intro: ClassVar[str] = (
        "These schemes leave the word vectors alone. Position reaches attention only "
        "through the <em>offset</em> j − i between a key j and a query i: T5 adds one "
        "learned number per <em>bucket</em> of offsets to the score, Shaw et al. learn one "
        "vector per offset up to a clip value k, and NoPE adds nothing at all — yet a "
        "causal decoder can still tell roughly where it is."
    )

    num_buckets = param.Integer(
        default=32,
        bounds=(4, 128),
        step=2,
        label="Buckets num_buckets (T1)",
        doc="Number of T5 relative-position buckets (even: a bidirectional model gives "
        "half to each direction). T5 uses 32.",
    )
    max_distance = param.Integer(
        default=128,
        bounds=(2, 1024),
        label="max_distance (T1)",
        doc="Distance at which T5's logarithmic buckets end; farther keys all share the "
        "last bucket. Must lie past the exact region. T5 uses 128.",
    )
    mode = param.Selector(
        default="bidirectional",
        objects={label: key for key, label in _MODE_LABELS.items()},
        label="Direction (T1)",
        doc="Bidirectional (an encoder): half the buckets for keys before the query, half "
        "for keys after. Causal (a decoder): all buckets for the past, every future "
        "offset is bucket 0.",
    )
    offset_range = param.Integer(
        default=200,
        bounds=(8, 1024),
        label="Offsets shown ±L (T1a)",
        doc="The step chart shows the offsets −L … L.",
    )
    heads = param.Integer(
        default=12,
        bounds=(1, 32),
        label="Heads (T1b)",
        doc="Number of heads; each has its own per-bucket bias vector. T5-base has 12.",
    )
    head = param.Integer(
        default=1,
        bounds=(1, 12),
        label="Head h (T1b)",
        doc="The head whose bias matrix T1b shows. At most the number of heads.",
    )
    bias_len = param.Integer(
        default=128,
        bounds=(4, 256),
        label="Sequence length n (T1b)",
        doc="Queries and keys in the bias matrix of T1b (n × n).",
    )
    clip_k = param.Integer(
        default=4,
        bounds=(0, 64),
        label="Clip value k (T2)",
        doc="Shaw et al. clip every offset to −k … k: farther keys share one vector.",
    )
    shaw_len = param.Integer(
        default=24,
        bounds=(2, 128),
        label="Sequence length (T2)",
        doc="Queries and keys in Shaw's index matrix of T2.",
    )
    nope_len = param.Integer(
        default=16,
        bounds=(2, 512),
        label="Sequence length T (T3)",
        doc="Number of positions in T3 (NoPE's causal weights).",
    )

    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {
        "num_buckets": {"type": pn.widgets.IntSlider},
        "max_distance": {"type": pn.widgets.IntSlider},
        "mode": {"type": pn.widgets.RadioButtonGroup, "color": "primary", "variant": "outline"},
        "offset_range": {"type": pn.widgets.IntSlider, "throttled": True},
        "heads": {"type": pn.widgets.IntSlider},
        "head": {"type": pn.widgets.IntSlider},
        "bias_len": {"type": pn.widgets.IntSlider, "throttled": True},
        "clip_k": {"type": pn.widgets.IntSlider},
        "shaw_len": {"type": pn.widgets.IntSlider, "throttled": True},
        "nope_len": {"type": pn.widgets.IntSlider, "throttled": True},
    }

    # ------------------------------------------------------------------ rules
    @staticmethod
    def _exact_end(num_buckets: int, mode: str) -> int:
        """Distances below this get one bucket each (``t5_bucket_regions``' ``exact_end``)."""
        return t5_bucket_regions(
            num_buckets, num_buckets, bidirectional=mode == "bidirectional"
        ).exact_end

    @classmethod
    def dynamic_bounds(cls, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        # Even num_buckets is enforced by constrain() first; round here too so the
        # bounds can be asked for with any value a link may carry.
        buckets = max(4, values["num_buckets"] - values["num_buckets"] % 2)
        low = cls._exact_end(buckets, values["mode"]) + 1
        return {
            "head": (1, values["heads"]),
            "max_distance": (low, cls.param.max_distance.bounds[1]),
        }

    @classmethod
    def constrain(cls, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        fixed = dict(values)
        notes: list[str] = []
        if fixed["num_buckets"] % 2:
            even = max(4, fixed["num_buckets"] - 1)
            notes.append(
                f"num_buckets = {fixed['num_buckets']} is odd; the page keeps it even (a "
                f"bidirectional model gives half to each direction), so it was set to {even}."
            )
            fixed["num_buckets"] = even
        low, _ = cls.dynamic_bounds(fixed)["max_distance"]
        if fixed["max_distance"] < low:
            notes.append(
                f"max_distance {fixed['max_distance']:,} lies inside the exact region "
                f"(distances 0…{low - 2:,} for {fixed['num_buckets']} {fixed['mode']} "
                f"buckets); set to {low:,}."
            )
            fixed["max_distance"] = low
        fixed, more = super().constrain(fixed)
        return fixed, notes + more

    @param.depends("num_buckets", "mode", "heads", watch=True)
    def _keep_consistent(self) -> None:
        self.keep_consistent()

    # ------------------------------------------------------------- the data
    @property
    def bidirectional(self) -> bool:
        return self.mode == "bidirectional"

    def _t5(self) -> dict[str, Any]:
        """The current T5 settings, as the core's keyword arguments."""
        return {
            "bidirectional": self.bidirectional,
            "num_buckets": self.num_buckets,
            "max_distance": self.max_distance,
        }

    def _regions(self):
        return t5_bucket_regions(self.num_buckets, self.max_distance, self.bidirectional)

    def _bucket_of(self, offsets: list[int]) -> list[int]:
        return [int(b) for b in t5_relative_bucket(np.asarray(offsets), **self._t5())]

    # ------------------------------------------------------ T1a step chart
    def _y_top(self) -> float:
        """Top of the step chart: room above the last bucket for the labels."""
        return self.num_buckets * 1.3

    def _region_rows(self) -> list[tuple[float, float, float, float, str]]:
        """The exact, logarithmic and shared regions as bands: (x0, y0, x1, y1, region)."""
        reg = self._regions()
        top = self.offset_range
        e, s = reg.exact_end, reg.last_bucket_start
        spans: list[tuple[str, float, float]] = []
        if self.bidirectional:
            spans.append(("exact", -e + 0.5, e - 0.5))
            sides: tuple[int, ...] = (-1, 1)
        else:
            spans.append(("exact", -e + 0.5, 0.5))
            spans.append(("future", 0.5, top + 0.5))
            sides = (-1,)
        for side in sides:
            spans.append(("logarithmic", *sorted((side * (e - 0.5), side * (s - 0.5)))))
            spans.append(("shared", *sorted((side * (s - 0.5), side * (top + 0.5)))))
        rows = []
        for region, x0, x1 in spans:
            x0, x1 = max(x0, -top - 0.5), min(x1, top + 0.5)
            if x1 > x0:
                rows.append((x0, -0.5, x1, self._y_top(), region))
        return rows

    def _step_points(self) -> dict[str, np.ndarray]:
        """Every offset shown, its bucket and its region (the step chart's points)."""
        offsets = np.arange(-self.offset_range, self.offset_range + 1)
        buckets = t5_relative_bucket(offsets, **self._t5())
        reg = self._regions()
        distance = np.abs(offsets)
        region = np.where(
            distance < reg.exact_end,
            "exact",
            np.where(distance < reg.last_bucket_start, "logarithmic", "shared (last bucket)"),
        )
        if not self.bidirectional:
            region = np.where(offsets > 0, "future: bucket 0 (masked)", region)
        return {"offset": offsets, "bucket": buckets, "at": offsets, "region": region}

    def _marks(self) -> dict[str, Any]:
        """Where the last bucket starts (solid) and max_distance (dashed), and their labels.

        Always the same four layers (some empty), so the figure keeps its
        structure from one change to the next.
        """
        reg = self._regions()
        top, s, md = self.offset_range, reg.last_bucket_start, reg.max_distance
        signs = (-1, 1) if self.bidirectional else (-1,)
        side = signs[-1]
        y_low, y_high = -0.5, self._y_top()
        starts = [(sign * (s - 0.5), y_low, sign * (s - 0.5), y_high) for sign in signs]
        # The dashed line stops under the labels, which sit above the last bucket.
        limits = [(sign * md, y_low, sign * md, self.num_buckets - 0.5) for sign in signs]
        # Short labels; the readout and the caption say the rest. Beside its
        # line, on the side with room.
        start_text = f" {'≥ ' if side > 0 else '≤ −'}{s:,}: \n one bucket "
        start_row = (side * (s - 0.5), self.num_buckets * 1.15, start_text)
        limit_row = (side * md, self.num_buckets * 0.06, " max_distance ")
        return {
            "starts": [row for row in starts if abs(row[0]) <= top],
            "limits": [row for row in limits if abs(row[0]) <= top],
            "start_label": start_row if s - 0.5 <= top else None,
            "start_align": "left" if (side > 0) == (top - s > 0.3 * top) else "right",
            "limit_label": limit_row if md <= top else None,
            "limit_align": "left" if (side > 0) == (top - md > 0.5 * top) else "right",
        }

    @memoized
    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _buckets_drawn(self) -> Drawn:
        """T1a as Bokeh draws it (see :meth:`_bucket_chart`)."""
        spans = self._region_rows()
        points = self._step_points()
        # Drawn as steps (``interpolation="steps-mid"``): HoloViews' own points.
        offsets, (buckets, at, region) = interpolate_curve.pts_to_midstep(
            points["offset"], [points["bucket"], points["at"], points["region"]]
        )
        marks = self._marks()

        def segments(rows: list[tuple[float, ...]]) -> dict[str, np.ndarray]:
            table = np.asarray(rows, dtype=float).reshape(-1, 4)
            return {"x0": table[:, 0], "x1": table[:, 2], "y0": table[:, 1], "y1": table[:, 3]}

        def label(row: tuple[float, float, str] | None, align: str) -> Layer:
            rows = [row] if row else []
            columns = {
                "offset": np.array([r[0] for r in rows], dtype=float),
                "bucket": np.array([r[1] for r in rows], dtype=float),
                "text": np.array([r[2] for r in rows], dtype=object),
            }
            return Layer(columns, {"glyph": {"text_align": align}})

        top = self.offset_range
        return Drawn(
            sources=[
                {
                    "left": np.array([r[0] for r in spans]),
                    "right": np.array([r[2] for r in spans]),
                    "bottom": np.array([r[1] for r in spans]),
                    "top": np.array([r[3] for r in spans]),
                    "color": np.array([r[4] for r in spans]),
                },
                {"offset": offsets, "bucket": buckets, "at": at, "region": region},
                segments(marks["starts"]),
                segments(marks["limits"]),
                label(marks["start_label"], marks["start_align"]),
                label(marks["limit_label"], marks["limit_align"]),
            ],
            x_range=(-top - 0.5, top + 0.5),
            y_range=(-0.5, self._y_top()),
        )

    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _region_spans(self) -> hv.Rectangles:
        """The exact, logarithmic and shared regions as shaded bands (one element)."""
        return self.style(
            hv.Rectangles(self._region_rows(), vdims=["region"]),
            "region_spans",
            color="region",
            cmap=_REGION_COLORS,
            # The dark theme needs stronger shading for the same contrast.
            alpha=0.34 if is_dark() else 0.2,
            line_alpha=0,
            tools=[],
            show_legend=False,
        )

    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _steps(self) -> hv.Curve:
        drawn = self._buckets_drawn()
        return self.style(
            hv.Curve(
                self._step_points(),
                kdims=[_OFFSET],
                vdims=[hv.Dimension("bucket", label="bucket index"), "at", "region"],
            ),
            "steps",
            interpolation="steps-mid",
            color=OKABE_ITO["blue"],
            line_width=2.5,
            tools=["hover"],
            hover_mode="vline",
            hover_tooltips=[
                ("offset j − i", "@at"),
                ("bucket", "@bucket"),
                ("region", "@region"),
            ],
            # A step is drawn between half-integers; "prev" reports the vertex that
            # starts the step under the mouse, which carries that offset's values.
            hooks=[_prev_line_policy],
            ylim=drawn.y_range,
            xlim=drawn.x_range,
            framewise=True,
        )

    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _step_marks(self) -> hv.Overlay:
        """Where the last bucket starts (solid) and max_distance (dashed), labelled."""
        marks = self._marks()
        kdims = [_OFFSET, hv.Dimension("bucket", label="bucket index")]

        def label(row: tuple[float, float, str] | None, align: str, color: str, group: str):
            # In the colour of its line.
            return self.style(
                hv.Labels([row] if row else [], kdims, "text", group=group),
                "step_marks label",
                text_align=align,
                text_font_size="9.5pt",
                text_color=color,
                tools=[],
            )

        return hv.Overlay(
            [
                self.style(
                    hv.Segments(marks["starts"], kdims=["x0", "y0", "x1", "y1"], group="Starts"),
                    "step_marks starts",
                    color=WARNING,
                    line_width=2,
                    tools=[],
                ),
                self.style(
                    hv.Segments(marks["limits"], kdims=["x0", "y0", "x1", "y1"], group="Limits"),
                    "step_marks limits",
                    color=self._ink,
                    line_dash="dashed",
                    line_width=1.2,
                    tools=[],
                ),
                label(
                    marks["start_label"], marks["start_align"], warning_text_color(), "StartLabel"
                ),
                label(marks["limit_label"], marks["limit_align"], self._ink, "LimitLabel"),
            ]
        )

    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _bucket_chart(self) -> hv.Overlay:
        """Regions, steps and marks in one overlay: one refresh per change, not three."""
        return self._region_spans() * self._steps() * self._step_marks()

    @param.depends("num_buckets", "max_distance", "mode", "offset_range")
    def _steps_readout(self) -> str:
        reg = self._regions()
        b, e, s, md = (
            reg.buckets_per_direction,
            reg.exact_end,
            reg.last_bucket_start,
            reg.max_distance,
        )
        last_before = self._bucket_of([-s])[0]
        exact_before = _buckets_text(*self._bucket_of([0, -(e - 1)]))
        if s > e:
            log_before = _buckets_text(*self._bucket_of([-e, -(s - 1)]))
            log = (
                f"{_swatch('logarithmic')}<b>logarithmic</b>: {_distances_text(e, s - 1)} "
                f"share {log_before}, each wider than the one before"
            )
        else:
            log = f"{_swatch('logarithmic')}<b>logarithmic</b>: none at this setting"
        if self.bidirectional:
            after = self._bucket_of([1, e, s]) if e > 1 else self._bucket_of([e, e, s])
            exact_after = (
                f"; after the query {_buckets_text(after[0], self._bucket_of([e - 1])[0])}"
                if e > 1
                else ""
            )
            if s > e:
                log += f" (after the query {_buckets_text(after[1], after[2] - 1)})"
            shared_after = f" ({after[2]} after the query)"
            unused = (
                f" Bucket {b} (“distance 0 after the query”) is never used: offset 0 is bucket 0."
            )
            head = (
                f"<b>{self.num_buckets} buckets, bidirectional</b>: {b} for keys before the "
                f"query (offset &lt; 0, buckets 0–{b - 1}), {b} for keys after it."
            )
        else:
            exact_after = ""
            shared_after = ""
            unused = (
                f" {_swatch('future')}Every future offset (&gt; 0) is bucket 0, like the "
                "query itself: the causal mask hides those keys anyway."
            )
            head = f"<b>{self.num_buckets} buckets, causal</b>: all {b} for keys before the query."
        early = (
            f" — already before max_distance = {md:,}: the last step of the logarithmic "
            "scale lands in the last bucket"
            if s < md
            else ""
        )
        shown = (
            ""
            if s <= self.offset_range
            else f" (past the plotted ±{self.offset_range:,}: widen L to see it)"
        )
        exact = (
            f"{_distances_text(0, e - 1)} get one bucket each"
            if e > 1
            else "distance 0 gets its own bucket"
        )
        return (
            f"{head}<br>{_swatch('exact')}<b>exact</b>: {exact} "
            f"({exact_before}{exact_after}).<br>{log}.<br>"
            f"{_swatch('shared')}<b>shared</b>: every distance ≥ <b>{s:,}</b> is bucket "
            f"<b>{last_before}</b>{shared_after}{early}{shown}.{unused}"
        )

    # ---------------------------------------------------- T1b bias matrix
    def _bias_table(self) -> np.ndarray:
        """The illustrative (num_buckets, heads) table (seeded; real values are learned)."""
        return t5_random_bucket_biases(self.num_buckets, self.heads, seed=BIAS_SEED)

    def _heads_range(self) -> np.ndarray:
        return np.arange(1, self.heads + 1)

    def _bias_rows(self, heads: np.ndarray) -> dict[str, np.ndarray]:
        """T1b's image columns for ``heads``: the bucket of every cell, and each head's biases.

        The drawn bias image is ``table[bucket]`` (gathered by the
        :class:`BrowserChoice`, here and in the browser): T5's
        ``compute_bias`` is that lookup, and :func:`t5_bias_matrix` agrees
        (checked in ``tests/app/test_relative.py``).
        """
        heads = np.asarray(heads, dtype=int)
        table = self._bias_table()
        n = self.bias_len
        buckets = t5_bias_matrix(
            np.arange(self.num_buckets, dtype=float), n, n, **self._t5()
        ).astype(np.uint8)
        count = len(heads)
        bucket_column = np.empty(count, dtype=object)
        bucket_column[:] = [buckets] * count
        tables = np.empty(count, dtype=object)
        tables[:] = [table[:, h - 1].astype(np.float32) for h in heads]
        limits = np.array([float(np.max(np.abs(table[:, h - 1]))) or 1.0 for h in heads])
        return {
            "x": np.full(count, -0.5),
            "y": np.full(count, -0.5),
            "dw": np.full(count, float(n)),
            "dh": np.full(count, float(n)),
            "bucket": bucket_column,
            "__table": tables,
            "__low": -limits,
            "__high": limits,
            KEY: heads,
        }

    def _bias_element(self, data: dict[str, Any], **dims: Any) -> hv.Image:
        t = np.arange(self.bias_len)
        return hv.Image((t, t, data["image"][0], data["bucket"][0]), **dims)

    @param.depends("num_buckets", "max_distance", "mode", "heads", "bias_len")
    def _bias_image(self) -> hv.Image:
        limit = float(np.max(np.abs(self._bias_table()[:, self.head - 1]))) or 1.0
        return self.style(
            self._head.element(
                "image",
                self._bias_element,
                self._bias_rows,
                self._heads_range,
                follow={"color_mapper": {"low": "__low", "high": "__high"}},
                gather={"image": ("bucket", "__table")},
                kdims=[_KEY, _QUERY],
                vdims=[hv.Dimension("bias", label="bias added to the score"), "bucket"],
            ),
            "bias_image",
            cmap="RdBu_r",
            clim=(-limit, limit),
            colorbar=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[
                ("query i", "$y{0}"),
                ("key j", "$x{0}"),
                ("offset j − i", "$sx{offset}"),
                ("bucket", "@bucket"),
                ("bias (illustrative)", "@image{0.000}"),
            ],
            hover_formatters={"$sx": _offset_hover()},
            framewise=True,
        )

    def _mask_outline(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The grey polygon over a decoder's future keys; None with no mask."""
        n = self.bias_len
        if self.bidirectional or n < 2:
            return None
        # The staircase between column j = i and j = i + 1, row by row (drawing only).
        i = np.arange(n - 1)
        xs = np.repeat(i + 0.5, 2)
        ys = np.column_stack([i - 0.5, i + 0.5]).ravel()
        xs = np.concatenate([xs, [n - 0.5, n - 0.5]])
        ys = np.concatenate([ys, [n - 1.5, -0.5]])
        return xs, ys

    @param.depends("num_buckets", "max_distance", "mode", "heads", "bias_len")
    def _matrix_drawn(self) -> Drawn:
        """T1b: the image is the head choice's (its colour scale follows the head)."""
        outline = self._mask_outline()
        # As HoloViews draws polygons: one multi-polygon per polygon, one closed
        # ring each.
        mask: dict[str, list[Any]] = {"xs": [], "ys": []}
        if outline is not None:
            xs, ys = (np.append(v, v[0]) for v in outline)
            mask = {"xs": [[[xs]]], "ys": [[[ys]]]}
        edge = (-0.5, self.bias_len - 0.5)
        return Drawn(
            sources=[None, mask],
            x_range=edge,
            y_range=edge,
            refresh=[(self._head, ("image",))],
        )

    @param.depends("mode", "bias_len")
    def _bias_mask(self) -> hv.Polygons:
        """Grey over the future keys of a decoder (the causal mask hides them)."""
        outline = self._mask_outline()
        if outline is None:
            return self.style(
                hv.Polygons([]), "bias_mask empty", color=_MASKED, line_alpha=0, tools=[]
            )
        xs, ys = outline
        return self.style(
            hv.Polygons([{"x": xs, "y": ys}]), "bias_mask", color=_MASKED, line_alpha=0, tools=[]
        )

    @param.depends("num_buckets", "max_distance", "mode", "heads", "head", "bias_len")
    def _bias_readout(self) -> str:
        column = self._bias_table()[:, self.head - 1]
        reg = self._regions()
        n = self.bias_len
        last = self._bucket_of([-reg.last_bucket_start])[0]
        far = (
            f"Keys {reg.last_bucket_start:,} or more positions before the query all get "
            f"bucket {last}'s bias, {_num(float(column[last]), 3)}: past that distance this "
            "head cannot tell them apart."
            if reg.last_bucket_start < n
            else f"At n = {n:,} no key is far enough ({reg.last_bucket_start:,}) to reach "
            "the shared last bucket; make n larger."
        )
        mask = (
            " Grey: future keys. They land in bucket 0, but the causal mask hides them."
            if not self.bidirectional
            else ""
        )
        return (
            f"<b>Head {self.head} of {self.heads}</b>: {self.num_buckets} biases, one per "
            f"bucket, from a seeded random table (seed {BIAS_SEED}) — "
            f"<b>illustrative: real values are learned</b>. Every diagonal j − i = const has "
            f"one colour: the bias depends on the offset only. {far}{mask}"
        )

    # ----------------------------------------------------------- T2 Shaw
    @memoized
    @param.depends("clip_k", "shaw_len")
    def _shaw_drawn(self) -> Drawn:
        """T2 as Bokeh draws it (see :meth:`_shaw_chart`)."""
        n, k = self.shaw_len, self.clip_k
        clipped = shaw_clipped_distance(n, n, k).astype(np.float32)
        index = shaw_relative_index(n, n, k).astype(np.int32)
        limit = max(k, 1)
        paths = self._shaw_paths()
        image = {
            "image": [clipped],
            "index": [index],
            "x": [-0.5],
            "y": [-0.5],
            "dw": [float(n)],
            "dh": [float(n)],
        }
        # One colour per clipped offset −k … k, as HoloViews samples the map.
        scale = {
            "palette": process_cmap(_SHAW_CMAP, 2 * limit + 1, categorical=False),
            "low": -limit - 0.5,
            "high": limit + 0.5,
        }
        lines = {"xs": [p["key"] for p in paths], "ys": [p["query"] for p in paths]}
        edge = (-0.5, n - 0.5)
        return Drawn(
            sources=[Layer(image, {"color_mapper": scale}), lines, lines],
            x_range=edge,
            y_range=edge,
        )

    @param.depends("clip_k", "shaw_len")
    def _shaw_image(self) -> hv.Image:
        n, k = self.shaw_len, self.clip_k
        image = self._shaw_drawn().sources[0].columns
        t = np.arange(n)
        limit = max(k, 1)
        return self.style(
            hv.Image(
                (t, t, image["image"][0], image["index"][0]),
                kdims=[_KEY, _QUERY],
                vdims=[hv.Dimension("clipped", label="clipped offset clip(j − i, −k, k)"), "index"],
            ),
            "shaw_image",
            cmap=_SHAW_CMAP,
            clim=(-limit - 0.5, limit + 0.5),
            color_levels=2 * limit + 1,
            colorbar=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[
                ("query i", "$y{0}"),
                ("key j", "$x{0}"),
                ("offset j − i", "$sx{offset}"),
                ("clipped offset", "@image{0}"),
                ("vector used", "w[@index]"),
            ],
            hover_formatters={"$sx": _offset_hover()},
            framewise=True,
        )

    def _shaw_paths(self) -> list[dict[str, np.ndarray]]:
        """The two staircases past which offsets are clipped (none when nothing is)."""
        n, k = self.shaw_len, self.clip_k
        if not 1 <= k <= n - 1:
            return []
        rows = np.arange(n - k)
        # Drawing only: the boundary left of column j = i + k in each row i.
        xs = np.repeat(rows + k - 0.5, 2)
        ys = np.column_stack([rows - 0.5, rows + 0.5]).ravel()
        return [{"key": xs, "query": ys}, {"key": ys, "query": xs}]

    @param.depends("clip_k", "shaw_len")
    def _shaw_marks(self) -> hv.Overlay:
        """Staircases between offsets ±(k − 1) and ±k: past them, one shared vector.

        Always two elements (a dark line under a white core; empty when nothing is
        clipped), so the overlay keeps its structure from one update to the next.
        """
        paths = self._shaw_paths()
        kdims = [_KEY, _QUERY]
        return self.style(
            hv.Path(paths, kdims=kdims, group="Halo"),
            "shaw_marks halo",
            color=HIGHLIGHT,
            line_width=4,
            tools=[],
        ) * self.style(
            hv.Path(paths, kdims=kdims, group="Core"),
            "shaw_marks core",
            color="#FFFFFF",
            line_width=1.5,
            tools=[],
        )

    @param.depends("clip_k", "shaw_len")
    def _shaw_chart(self) -> hv.Overlay:
        return self._shaw_image() * self._shaw_marks()

    @param.depends("clip_k", "shaw_len")
    def _shaw_readout(self) -> str:
        n, k = self.shaw_len, self.clip_k
        clipped = shaw_clipped_distance(n, n, k)
        index = shaw_relative_index(n, n, k)
        vectors = 2 * k + 1
        if k == 0:
            return (
                "<b>k = 0</b>: every pair uses the same vector w[0] — no position information "
                "at all."
            )
        ends = int(np.sum(np.abs(clipped) == k))
        used = len(np.unique(index))
        if k >= n - 1:
            return (
                f"<b>k = {k}</b>: {vectors} vectors w[0] … w[{vectors - 1}], {used} of them "
                f"used at length {n}. No offset here is farther than k, so nothing is clipped "
                "yet: make the sequence longer than k + 1."
            )
        return (
            f"<b>k = {k}</b>: {vectors} learned vectors w[0] … w[{vectors - 1}], whatever the "
            f"length. Of the {n * n:,} (query, key) pairs, <b>{ends:,}</b> are k or more "
            f"apart and use one of the two end vectors, w[0] (offset ≤ −{k}) or "
            f"w[{vectors - 1}] (offset ≥ +{k}): the outlines mark where the sharing starts."
        )

    # ----------------------------------------------------------- T3 NoPE
    @memoized
    @param.depends("nope_len")
    def _nope_drawn(self) -> Drawn:
        weights = nope_row_weight(self.nope_len)
        i = np.arange(self.nope_len)
        # Without the mask every query sees all T keys: 1/T in every row. The same
        # number is the core's weight of the last causal row.
        flat = float(weights[-1])
        return Drawn(
            sources=[
                {"i": np.array([0, self.nope_len - 1]), "weight": np.array([flat, flat])},
                {"i": i, "weight": weights},
                Layer(
                    {"i": i, "weight": weights, "keys": i + 1},
                    {"glyph": {"size": 6 if self.nope_len <= 64 else 3}},
                ),
            ],
            x_range=(-0.5, self.nope_len - 0.5),
            y_range=(0, 1.08),
        )

    @param.depends("nope_len")
    def _nope_plot(self) -> hv.Overlay:
        drawn = self._nope_drawn()
        flat, _causal, points = drawn.sources
        data = points.columns
        kdim = hv.Dimension("i", label="query position i")
        vdim = hv.Dimension("weight", label="weight on each visible key")
        curve = self.style(
            hv.Curve(data, kdim, [vdim, "keys"], label="causal mask: 1/(i + 1)"),
            "nope_plot curve",
            color=OKABE_ITO["green"],
            line_width=2.5,
            tools=[],
        )
        points = self.style(
            hv.Scatter(data, kdim, [vdim, "keys"]),
            "nope_plot points",
            color=OKABE_ITO["green"],
            size=points.models["glyph"]["size"],
            tools=["hover"],
            hover_tooltips=[
                ("query i", "@i"),
                ("visible keys", "@keys"),
                ("weight on each", "@weight{0.000000}"),
            ],
        )
        line = self.style(
            hv.Curve(
                flat,
                kdim,
                vdim,
                # A fixed label (the value is in the readout): a layer whose label
                # changes is a new layer, and the figure would be rebuilt by
                # HoloViews instead of redrawn in place.
                label="no mask: 1/T everywhere",
            ),
            "nope_plot line",
            color=OKABE_ITO["grey"],
            line_dash="dashed",
            line_width=2,
            tools=[],
        )
        return self.style(
            line * curve * points,
            "nope_plot",
            legend_position="top_right",
            show_legend=True,
            ylim=drawn.y_range,
            xlim=drawn.x_range,
        )

    @param.depends("nope_len")
    def _nope_readout(self) -> str:
        n = self.nope_len
        weights = nope_row_weight(n)
        far = min(100, n - 2)
        gap = float(weights[far] - weights[far + 1])
        return (
            f"Query 0 gives its only key weight <b>{_num(float(weights[0]), 3)}</b>; query "
            f"{n - 1:,} gives each of its {n:,} keys <b>{_num(float(weights[-1]), 4)}</b>, the "
            f"1/T that every query gives every key without the mask (T = {n:,}). A "
            "feature carried only by the first token (such as a start token) reaches query "
            f"i with strength 1/(i + 1), so a layer can read i from it. But from query "
            f"{far:,} to {far + 1:,} that strength changes by only <b>{_num(gap, 3)}</b>: the "
            "signal fades like 1/i²."
        )

    def _order_bars(self) -> pn.Column:
        """The Order page's similarities for its default pair (computed once: fixed)."""
        a, b = ORDER_PAIR
        rows = [
            ("no positions", order_similarity(a, b, "none", causal=False)),
            ("causal mask only", order_similarity(a, b, "none", causal=True)),
        ]
        kdim = hv.Dimension("variant", label=" ")
        vdim = hv.Dimension("cos", label="cosine similarity of the averaged outputs")
        colors = {"no positions": OKABE_ITO["grey"], "causal mask only": OKABE_ITO["green"]}
        bars = hv.Bars(rows, kdim, vdim).opts(
            color=kdim.name,
            cmap=colors,
            invert_axes=True,
            invert_yaxis=True,
            tools=["hover"],
            hover_tooltips=[("variant", "@variant"), ("cosine", "@cos{0.000000}")],
            ylim=(0, 1.3),
            xticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
            show_legend=False,
        )
        labels = hv.Labels(
            [(name, value, f"  {value:.3f}") for name, value in rows], [kdim, vdim], "text"
        ).opts(invert_axes=True, text_align="left", text_font_size="11pt", text_color=self._ink)
        plot = pn.pane.HoloViews(
            (bars * labels).opts(
                hv.opts.Overlay(
                    **plot_opts(height=140, toolbar=None, fontscale=0.95), shared_axes=False
                )
            ),
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        head = pn.pane.HTML(
            f"<b>Beside it, the Order page</b>: “{a}” against “{b}” through one attention "
            "layer, cosine similarity of the averaged outputs.",
            sizing_mode="stretch_width",
            margin=(6, 10, 0, 10),
        )
        return pn.Column(head, plot, sizing_mode="stretch_width", margin=0)

    # ---------------------------------------------------------------- presets
    def _go_preset(self, label: str) -> None:
        self.set_state(**t5_preset_values(label))

    def _preset_buttons(self) -> pn.Column:
        buttons = []
        for label in T5_PRESETS:
            values = t5_preset_values(label)
            button = pn.widgets.Button(
                label=f"{label} ({values['mode']})",
                color="light",
                sizing_mode="stretch_width",
                margin=(2, 4),
            )
            button.on_click(lambda _event, label=label: self._go_preset(label))
            buttons.append(button)
        return pn.Column(*buttons, sizing_mode="stretch_width")

    @staticmethod
    def _preset_note() -> str:
        values = t5_preset_values(next(iter(T5_PRESETS)))
        return (
            f"Real T5 settings (T1): T5-base has {values['num_buckets']} buckets, "
            f"max_distance {values['max_distance']} and {values['heads']} heads."
        )

    def _extra_controls(self) -> list[Any]:
        return [
            pn.pane.Markdown(self._preset_note(), margin=(8, 10, 0, 10)),
            self._preset_buttons(),
        ]

    # ---------------------------------------------------------------- figures
    def _build_figures(self) -> dict[str, Figure]:
        #: T1b's head, selected in the browser.
        self._head = BrowserChoice("head", lambda: self.head)
        self.choices = {"head": self._head}
        steps = self.in_place(self._bucket_chart, direct=self._buckets_drawn).opts(
            hv.opts.Overlay(
                framewise=True,
                xlabel=_OFFSET.label,
                ylabel="bucket index",
                **plot_opts(height=320),
            )
        )
        matrix = self.in_place(self._bias_image, self._bias_mask, direct=self._matrix_drawn).opts(
            hv.opts.Overlay(**plot_opts(height=340))
        )
        shaw = self.in_place(self._shaw_chart, direct=self._shaw_drawn).opts(
            hv.opts.Overlay(**plot_opts(height=340))
        )
        nope = self.in_place(self._nope_plot, direct=self._nope_drawn).opts(
            hv.opts.Overlay(framewise=True, **plot_opts(height=300))
        )
        return {
            "buckets": Figure(
                title="T1a · T5: which bucket does each offset fall in?",
                plot=steps,
                linked_axes=False,
                caption=(
                    "T5 does not learn one number per offset but one per <em>bucket</em>. "
                    "Near the query every offset has its own bucket (exact, light blue); "
                    "farther out the buckets grow logarithmically wider (orange), and from "
                    "the vermillion line on every offset shares one last bucket (grey). A "
                    "bidirectional encoder gives half the buckets to keys after the query "
                    "(the jump at 0); a causal decoder spends them all on the past. Hover "
                    "for the exact bucket of an offset."
                ),
                formula=(
                    r"$$\begin{gathered}N = \text{num\_buckets},\quad D = \text{max\_distance},"
                    r"\quad d = |j-i| \\"
                    r"B = \tfrac{N}{2}\ \text{(bidirectional) or } N\ \text{(causal)},"
                    r"\quad E = \tfrac{B}{2} \\"
                    r"b(d) = d\quad (d < E) \\"
                    r"b(d) = \min\!\Big(B-1,\ E + \Big\lfloor\frac{\ln(d/E)}{\ln(D/E)}\,(B-E)"
                    r"\Big\rfloor\Big)\quad (d \ge E) \\"
                    r"\text{bidirectional: bucket } b(d) + B \text{ when } j > i\end{gathered}$$"
                ),
                controls=("num_buckets", "max_distance", "mode", "offset_range"),
                readout=pn.pane.HTML(
                    self._steps_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "bias": Figure(
                title="T1b · One head's bias matrix (illustrative — real values are learned)",
                plot=matrix,
                linked_axes=False,
                caption=(
                    "Each head has a table of one bias per bucket; entry (i, j) of its "
                    "matrix is the bias of the bucket of j − i, added to the attention "
                    "score. The numbers here are seeded random draws (real T5 biases are "
                    "learned), but the pattern is T5's: constant along every diagonal, "
                    "fine-grained near it, and one flat colour far from it. Hover: offset → "
                    "bucket → bias."
                ),
                formula=(
                    r"$$\mathrm{score}_{ij} = q_i\cdot k_j + \beta^{(h)}_{\,b(j-i)},"
                    r"\qquad \beta^{(h)}\in\mathbb{R}^{N}\ \text{learned per head}$$"
                ),
                controls=("num_buckets", "max_distance", "mode", "heads", "head", "bias_len"),
                readout=pn.pane.HTML(
                    self._bias_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "shaw": Figure(
                title="T2 · Shaw et al.: offsets clipped to ±k",
                plot=shaw,
                linked_axes=False,
                caption=(
                    "Shaw, Uszkoreit and Vaswani (2018) learn one vector per offset, added "
                    "to the key in the score (and to the value). Offsets are clipped to −k … "
                    "k, so there are only 2k + 1 vectors whatever the length: every key k "
                    "or more positions away on one side shares one vector (the flat corners "
                    "past the outlines). Hover for the vector a pair uses."
                ),
                formula=(
                    r"$$\begin{gathered}\mathrm{score}_{ij} = \frac{q_i\cdot\big(k_j + "
                    r"w^K_{\mathrm{clip}(j-i,\,-k,\,k)}\big)}{\sqrt d} \\"
                    r"\mathrm{clip}(x, -k, k) = \max(-k, \min(k, x))\end{gathered}$$"
                ),
                controls=("clip_k", "shaw_len"),
                readout=pn.pane.HTML(
                    self._shaw_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
            ),
            "nope": Figure(
                title="T3 · NoPE: the causal mask alone",
                plot=nope,
                linked_axes=False,
                caption=(
                    "With no position encoding and equal scores, causal query i spreads its "
                    "attention evenly over the i + 1 keys it may see: 1/(i + 1) each "
                    "(green). That number depends on i, so a decoder can recover its "
                    "position from the mask alone; without the mask every row is 1/T "
                    "(dashed). It is a weak, implicit position signal, not an encoding — "
                    "on the Order page the causal mask alone also pulls the similarity "
                    "below 1 (bars below)."
                ),
                formula=(
                    r"$$w_{ij} = \frac{e^{s}}{\sum_{k\le i} e^{s}} = \frac{1}{i+1}"
                    r"\quad (j \le i),\qquad w_{ij} = 0\quad (j > i)$$"
                ),
                controls=("nope_len",),
                readout=pn.pane.HTML(
                    self._nope_readout, sizing_mode="stretch_width", margin=(0, 10)
                ),
                extras=(self._order_bars(),),
            ),
        }

    # ----------------------------------------------------------- quick check
    @param.depends("num_buckets", "max_distance", "mode")
    def _quick_answer(self) -> str:
        values = t5_preset_values(_CHECK_PRESET)
        settings = {
            "bidirectional": values["mode"] == "bidirectional",
            "num_buckets": values["num_buckets"],
            "max_distance": values["max_distance"],
        }
        offset = _CHECK_OFFSET
        bucket = int(t5_relative_bucket(offset, **settings))
        reg = t5_bucket_regions(
            settings["num_buckets"], settings["max_distance"], settings["bidirectional"]
        )
        b = reg.buckets_per_direction
        same = int(t5_relative_bucket(reg.last_bucket_start, **settings))
        far = int(t5_relative_bucket(100_000, **settings))
        current = int(t5_relative_bucket(offset, **self._t5()))
        start = reg.last_bucket_start
        now = f"{self.num_buckets} buckets, max_distance {self.max_distance:,}, {self.mode}"
        return (
            f"Bucket <b>{bucket}</b>. Offset {_signed(offset)} is a key after the query, so "
            f"it uses the upper {b} buckets ({b}–{2 * b - 1}; bucket {b} itself is never "
            f"used). Its distance {offset} is past {start}, where every distance already "
            f"shares that half's last bucket: {_signed(start)} is bucket {same}, and so is "
            f"+100,000 (bucket {far}) — the model cannot tell them apart. With the current "
            f"settings ({now}), offset {_signed(offset)} is bucket {current}."
        )

    def _build_quick_check(self) -> QuickCheck:
        return QuickCheck(
            question=(
                "Before hovering over T1a: which bucket does offset +200 fall in for "
                "T5-base's encoder (32 buckets, max_distance 128, bidirectional)?"
            ),
            answer=self._quick_answer,
        )


def _prev_line_policy(plot: Any, _element: Any) -> None:
    """Hover on a step line reports the vertex that starts the hovered step."""
    hover = plot.handles.get("hover")
    if hover is not None:
        hover.line_policy = "prev"
