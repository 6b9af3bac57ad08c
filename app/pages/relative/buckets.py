"""T1a · T5: which bucket does each offset fall in? Regions, steps and where sharing starts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import holoviews as hv
import numpy as np
from holoviews.operation.element import interpolate_curve

from positional_core.relative import t5_relative_bucket

from ...chart import Chart, Frame, Mark
from ...look import OKABE_ITO, WARNING, is_dark, plot_opts, text_color, warning_text_color
from ...marks import labels
from ...numbers import signed
from .shared import REGION_COLORS, regions, t5_preset_values, t5_settings

#: The quick check's question is about this preset and this offset.
CHECK_PRESET, CHECK_OFFSET = "T5-base encoder", 200

_OFFSET = hv.Dimension("offset", label="offset j − i (key − query, positions)")
_BUCKET = hv.Dimension("bucket", label="bucket index")
_SWATCH_CSS = (
    "display:inline-block;width:0.8em;height:0.8em;border-radius:2px;"
    "margin-right:0.3em;vertical-align:baseline;opacity:0.85"
)


def _swatch(region: str) -> str:
    return f'<span style="{_SWATCH_CSS};background:{REGION_COLORS[region]}"></span>'


def _buckets_text(first: int, last: int) -> str:
    return f"bucket {first}" if first == last else f"buckets {first}–{last}"


def _distances_text(first: int, last: int) -> str:
    return f"distance {first:,}" if first == last else f"distances {first:,}…{last:,}"


def _prev_line_policy(plot: Any, _element: Any) -> None:
    """Hover on a step line reports the vertex that starts the hovered step."""
    hover = plot.handles.get("hover")
    if hover is not None:
        hover.line_policy = "prev"


def _segments(**style: Any) -> Mark:
    return Mark(hv.Segments, ("x0", "y0", "x1", "y1"), style={**style, "tools": []})


def _top(p: Any) -> float:
    """Top of the step chart: room above the last bucket for the labels."""
    return p.num_buckets * 1.3


def _bands(p: Any) -> dict[str, Any]:
    """The exact, logarithmic and shared regions (and a decoder's future) as bands."""
    reg, top = regions(p), p.offset_range
    e, s = reg.exact_end, reg.last_bucket_start
    if p.mode == "bidirectional":
        spans, sides = [("exact", -e + 0.5, e - 0.5)], (-1, 1)
    else:
        spans, sides = [("exact", -e + 0.5, 0.5), ("future", 0.5, top + 0.5)], (-1,)
    for side in sides:
        spans.append(("logarithmic", *sorted((side * (e - 0.5), side * (s - 0.5)))))
        spans.append(("shared", *sorted((side * (s - 0.5), side * (top + 0.5)))))
    kept = [
        (region, max(x0, -top - 0.5), min(x1, top + 0.5))
        for region, x0, x1 in spans
        if min(x1, top + 0.5) > max(x0, -top - 0.5)
    ]
    return {
        "x0": np.array([x0 for _, x0, _ in kept]),
        "y0": np.full(len(kept), -0.5),
        "x1": np.array([x1 for _, _, x1 in kept]),
        "y1": np.full(len(kept), _top(p)),
        "tint": [REGION_COLORS[region] for region, _, _ in kept],
    }


def _steps(p: Any) -> dict[str, Any]:
    """Every offset shown with its bucket and region, as a step line's vertices."""
    offsets = np.arange(-p.offset_range, p.offset_range + 1)
    buckets = t5_relative_bucket(offsets, **t5_settings(p))
    reg, distance = regions(p), np.abs(offsets)
    region = np.where(
        distance < reg.exact_end,
        "exact",
        np.where(distance < reg.last_bucket_start, "logarithmic", "shared (last bucket)"),
    )
    if p.mode != "bidirectional":
        region = np.where(offsets > 0, "future: bucket 0 (masked)", region)
    # Each offset's values at both ends of its step, as HoloViews draws "steps-mid".
    x, (bucket, at, region) = interpolate_curve.pts_to_midstep(offsets, [buckets, offsets, region])
    return {"offset": x, "bucket": bucket, "at": at, "region": region}


def _boundaries(p: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Where the last bucket starts (solid) and max_distance (dashed), with short
    labels beside their line on the side with room; lines past the axis are left out.
    The marks' columns, and the labels' alignment."""
    reg, top, n = regions(p), p.offset_range, p.num_buckets
    s, md = reg.last_bucket_start, reg.max_distance
    signs = (-1, 1) if p.mode == "bidirectional" else (-1,)
    side = signs[-1]

    def lines(x: float, y1: float) -> dict[str, Any]:
        xs = np.array([sign * x for sign in signs if x <= top], dtype=float)
        return {"x0": xs, "y0": np.full(xs.size, -0.5), "x1": xs, "y1": np.full(xs.size, y1)}

    def label(x: float, y: float, text: str, shown: bool) -> dict[str, Any]:
        rows = int(shown)
        return {
            "offset": np.full(rows, x, dtype=float),
            "bucket": np.full(rows, y, dtype=float),
            "text": np.full(rows, text, dtype=object),
        }

    def align(room: bool) -> dict[str, str]:
        return {"text_align": "left" if (side > 0) == room else "right"}

    start_text = f" {'≥ ' if side > 0 else '≤ −'}{s:,}: \n one bucket "
    marks = {
        "starts": lines(s - 0.5, _top(p)),
        # The dashed line stops under the labels, which sit above the last bucket.
        "limits": lines(md, n - 0.5),
        "start_label": label(side * (s - 0.5), n * 1.15, start_text, s - 0.5 <= top),
        "limit_label": label(side * md, n * 0.06, " max_distance ", md <= top),
    }
    props = {"start_label": align(top - s > 0.3 * top), "limit_label": align(top - md > 0.5 * top)}
    return marks, props


class Buckets(Chart):
    title = "T1a · T5: which bucket does each offset fall in?"
    caption = (
        "T5 does not learn one number per offset but one per <em>bucket</em>. "
        "Near the query every offset has its own bucket (exact, light blue); "
        "farther out the buckets grow logarithmically wider (orange), and from "
        "the vermillion line on every offset shares one last bucket (grey). A "
        "bidirectional encoder gives half the buckets to keys after the query "
        "(the jump at 0); a causal decoder spends them all on the past. Hover "
        "for the exact bucket of an offset."
    )
    formula = (
        r"$$\begin{gathered}N = \text{num\_buckets},\quad D = \text{max\_distance},"
        r"\quad d = |j-i| \\"
        r"B = \tfrac{N}{2}\ \text{(bidirectional) or } N\ \text{(causal)},"
        r"\quad E = \tfrac{B}{2} \\"
        r"b(d) = d\quad (d < E) \\"
        r"b(d) = \min\!\Big(B-1,\ E + \Big\lfloor\frac{\ln(d/E)}{\ln(D/E)}\,(B-E)"
        r"\Big\rfloor\Big)\quad (d \ge E) \\"
        r"\text{bidirectional: bucket } b(d) + B \text{ when } j > i\end{gathered}$$"
    )
    depends = ("num_buckets", "max_distance", "mode", "offset_range")
    y_tick_room = 45
    marks = {  # noqa: RUF012
        "regions": Mark(
            hv.Rectangles,
            (
                hv.Dimension("x0", label=_OFFSET.label),
                hv.Dimension("y0", label=_BUCKET.label),
                "x1",
                "y1",
            ),
            fields={"color": "tint"},
            # The dark theme needs stronger shading for the same contrast.
            style={"fill_alpha": lambda: 0.34 if is_dark() else 0.2, "line_alpha": 0, "tools": []},
        ),
        "steps": Mark(
            hv.Curve,
            (_OFFSET,),
            (_BUCKET, "at", "region"),
            style={
                "color": OKABE_ITO["blue"],
                "line_width": 2.5,
                "tools": ["hover"],
                "hover_mode": "vline",
                "hover_tooltips": [
                    ("offset j − i", "@at"),
                    ("bucket", "@bucket"),
                    ("region", "@region"),
                ],
                # A step is drawn between half-integers; "prev" reports the vertex
                # that starts the step under the mouse, which carries that offset.
                "hooks": [_prev_line_policy],
            },
        ),
        "starts": _segments(color=WARNING, line_width=2),
        "limits": _segments(color=text_color, line_dash="dashed", line_width=1.2),
        "start_label": labels((_OFFSET, _BUCKET), warning_text_color, "9.5pt", tools=[]),
        "limit_label": labels((_OFFSET, _BUCKET), text_color, "9.5pt", tools=[]),
    }
    options = plot_opts(height=320, xlabel=_OFFSET.label, ylabel=_BUCKET.label)
    readout_depends = depends
    question = (
        "Before hovering over T1a: which bucket does offset +200 fall in for "
        "T5-base's encoder (32 buckets, max_distance 128, bidirectional)?"
    )
    answer_depends = ("num_buckets", "max_distance", "mode")

    def frame(self, p: Any) -> Frame:
        marks, props = _boundaries(p)
        top = p.offset_range
        return Frame(
            regions=_bands(p),
            steps=_steps(p),
            **marks,
            props=props,
            x=(-top - 0.5, top + 0.5),
            y=(-0.5, _top(p)),
        )

    def readout(self, p: Any) -> str:
        b, e, s, md = regions(p)

        def bucket_of(*offsets: int) -> list[int]:
            return [int(v) for v in t5_relative_bucket(np.asarray(offsets), **t5_settings(p))]

        exact = "distance 0 gets its own bucket"
        if e > 1:
            exact = f"{_distances_text(0, e - 1)} get one bucket each"
        exact += f" ({_buckets_text(*bucket_of(0, -(e - 1)))}"
        log = f"{_swatch('logarithmic')}<b>logarithmic</b>: "
        if s > e:
            log += f"{_distances_text(e, s - 1)} share "
            log += f"{_buckets_text(*bucket_of(-e, -(s - 1)))}, each wider than the one before"
        else:
            log += "none at this setting"
        shared = f"every distance ≥ <b>{s:,}</b> is bucket <b>{bucket_of(-s)[0]}</b>"
        if p.mode == "bidirectional":
            after = bucket_of(1, e, s)
            if e > 1:
                exact += f"; after the query {_buckets_text(after[0], bucket_of(e - 1)[0])}"
            if s > e:
                log += f" (after the query {_buckets_text(after[1], after[2] - 1)})"
            shared += f" ({after[2]} after the query)"
            head = (
                f"<b>{p.num_buckets} buckets, bidirectional</b>: {b} for keys before the "
                f"query (offset &lt; 0, buckets 0–{b - 1}), {b} for keys after it."
            )
            unused = (
                f" Bucket {b} (“distance 0 after the query”) is never used: offset 0 is bucket 0."
            )
        else:
            head = f"<b>{p.num_buckets} buckets, causal</b>: all {b} for keys before the query."
            unused = (
                f" {_swatch('future')}Every future offset (&gt; 0) is bucket 0, like the "
                "query itself: the causal mask hides those keys anyway."
            )
        if s < md:
            shared += (
                f" — already before max_distance = {md:,}: the last step of the logarithmic "
                "scale lands in the last bucket"
            )
        if s > p.offset_range:
            shared += f" (past the plotted ±{p.offset_range:,}: widen L to see it)"
        return (
            f"{head}<br>{_swatch('exact')}<b>exact</b>: {exact}).<br>{log}.<br>"
            f"{_swatch('shared')}<b>shared</b>: {shared}.{unused}"
        )

    def answer(self, p: Any) -> str:
        preset = SimpleNamespace(**t5_preset_values(CHECK_PRESET))
        b, _exact, start, _limit = regions(preset)
        offset = CHECK_OFFSET
        bucket, same, far = (
            int(t5_relative_bucket(o, **t5_settings(preset))) for o in (offset, start, 100_000)
        )
        current = int(t5_relative_bucket(offset, **t5_settings(p)))
        now = f"{p.num_buckets} buckets, max_distance {p.max_distance:,}, {p.mode}"
        return (
            f"Bucket <b>{bucket}</b>. Offset {signed(offset)} is a key after the query, so "
            f"it uses the upper {b} buckets ({b}–{2 * b - 1}; bucket {b} itself is never "
            f"used). Its distance {offset} is past {start}, where every distance already "
            f"shares that half's last bucket: {signed(start)} is bucket {same}, and so is "
            f"+100,000 (bucket {far}) — the model cannot tell them apart. With the current "
            f"settings ({now}), offset {signed(offset)} is bucket {current}."
        )
