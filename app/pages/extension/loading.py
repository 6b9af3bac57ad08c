"""How a model reaches the Context extension page: a preset, a pasted or uploaded
config.json, or a link. Each sets the controls in one update, the rules' and the
preset watcher's own reactions held back (``_quietly``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from positional_core.hf_config import ConfigError, NoRopeError

from ...urlstate import coerce_value, normalise_query, read_query
from . import models
from .models import CUSTOM
from .shared import METHODS, in_reach

__all__ = ["ModelLoading"]


def _same(now: Any, then: Any) -> bool:
    return now == then or (isinstance(then, float) and math.isclose(now, then, rel_tol=1e-12))


class ModelLoading:
    """The loading half of :class:`~app.pages.extension.ExtensionPage` (a mixin)."""

    def _set(self, values: Mapping[str, Any], extra: Mapping[str, Any]) -> None:
        """The controls (and LongRoPE's lists) in one update; then the model shown."""
        with self._quietly():
            self._apply(values)
        if extra:
            self.param.update(extra)

    # ------------------------------------------------------- models (E5)
    def _preset_state(
        self, name: str, values: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(controls, other state) that show preset ``name`` over ``values``."""
        card = None if name == CUSTOM else models.preset_card(name)
        if card is None or card.info is None:
            return values, {"model": card, "loaded": None, "config_warnings": []}
        return self._filled(card, values)

    def _filled(self, card: models.ModelCard, values: dict[str, Any]) -> tuple[dict, dict]:
        filled, notes = models.preset_values(
            card, values, lambda name: type(self).param[name].bounds
        )
        fixed, rule_notes = self.constrain(filled)
        loaded = {k: fixed[k] for k in self.control_names() if k != "preset"}
        return fixed, {"model": card, "loaded": loaded, "config_warnings": notes + rule_notes}

    def reload_preset(self, fill: bool = True) -> None:
        """Show the selected preset; with ``fill``, set every control from it (again,
        after edits)."""
        values, extra = self._preset_state(self.preset, self._state())
        if fill:
            self._set(values, extra)
        else:
            self.param.update(extra)

    def changed_since_load(self) -> list[tuple[str, Any, Any]]:
        """Controls that differ from the loaded model's values: (name, now, model)."""
        if not self.loaded:
            return []
        names = dict.fromkeys(("d", "base", "trained_len", "target_len", "factor", "method"))
        for method in (self.method, self.loaded["method"]):
            names.update(dict.fromkeys(METHODS[method].controls))
        now, then = self._state(), self.loaded
        return [(name, now[name], then[name]) for name in names if not _same(now[name], then[name])]

    def apply_config(
        self, text: str | bytes, label: str = "pasted config", source: str = "pasted"
    ) -> bool:
        """Read a pasted or uploaded ``config.json``; on success fill every control.

        On any problem the core's message is shown next to the box
        (:attr:`config_errors`) and nothing else changes. Returns ``True`` on success.
        """
        try:
            card = models.read_card(text, label, source)
        except ConfigError as error:
            link = error if isinstance(error, NoRopeError) else None
            self.param.update(config_errors=[str(error)], config_link=link)
            return False
        self.param.update(config_errors=[], config_link=None)
        self._set(*self._filled(card, {**self._state(), "preset": CUSTOM}))
        return True

    # ------------------------------------------------------------------ links
    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Set the controls from a link in one update: the preset it names first (it
        fills every control), then its other values."""
        query = normalise_query(query)
        notes: list[str] = []
        values, extra = self._state(), {}
        if "preset" in query:
            try:
                preset, note = coerce_value(type(self).param.preset, query["preset"])
            except ValueError as error:
                notes.append(str(error))
            else:
                notes += [note] if note else []
                values, extra = self._preset_state(preset, {**values, "preset": preset})
        rest = self._coupled({k: v for k, v in query.items() if k != "preset"}, values)
        names = self.control_names()
        first = read_query(type(self).param, rest, names)
        bounds = self.dynamic_bounds({**values, **first.values})
        result = read_query(type(self).param, rest, names, bounds=bounds)
        fixed, rule_notes = self.constrain({**values, **result.values})
        self._set(fixed, extra)
        self._rule_notes = []
        self.notes = notes + result.notes + rule_notes
        return self.notes

    def _coupled(self, query: dict[str, str], values: Mapping[str, Any]) -> dict[str, str]:
        """The link with s or L′ added when it names only the other (as a slider sets
        them), and S on L′ when it was there."""
        rest = dict(query)

        def read(name: str) -> Any:
            try:
                return coerce_value(type(self).param[name], rest.get(name, str(values[name])))[0]
            except ValueError:
                return None

        trained = read("trained_len")
        if trained is None:
            return rest
        factor = read("factor") if "factor" in rest else None
        target = read("target_len") if "target_len" in rest else None
        if factor is not None and "target_len" not in rest:
            target = in_reach(round(factor * trained), trained)
            rest["target_len"] = str(target)
        elif target is not None and "factor" not in rest:
            target = in_reach(target, trained)
            rest["factor"] = repr(target / trained)
        on_target = values["served_len"] == values["target_len"]
        if target is not None and "served_len" not in rest and on_target:
            rest["served_len"] = str(in_reach(target, trained))
        return rest
