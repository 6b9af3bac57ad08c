/* Three BokehJS and Panel adjustments that let the page repaint and lay out
 * only what changed. Each is guarded: if a later BokehJS or Panel renames
 * what it wraps, the page works as before, only slower.
 *
 * 1. Clip Bokeh's overlay level to the plot frame for glyph renderers.
 *
 * The marks a control selects in the browser (app/choice.py) are drawn at
 * Bokeh's "overlay" level: when only overlay renderers change, Bokeh redraws
 * only the overlay layer of a figure, not its whole canvas (measured, p50:
 * Sinusoidal t 67 -> 44 ms, RoPE pair 67 -> 39 ms). Bokeh clips the glyph,
 * image and underlay levels to the frame but not the overlay level, made
 * for annotations that place themselves; a glyph there, zoomed or panned,
 * would be drawn over the axes. Here a glyph renderer on the overlay level
 * is clipped like any other glyph.
 *
 * 2. A colour bar relays out its figure only when what it shows changes.
 * Every new data of a colour-mapped glyph makes its mapper announce new
 * metrics, and ColorBarView answers each with a full layout and repaint of
 * the figure, even when the mapper's low and high are fixed and nothing on
 * the bar moved (S2's clock hands: ~8 ms per change of t). Here the bar
 * answers only when its range, display cut-offs or palette differ from the
 * last answer.
 *
 * 3. A folded card hides its children without laying out the page.
 *
 * Panel's Card hides the children of a collapsed card by setting their
 * `visible` to false as it renders them, and every such change makes Bokeh
 * lay out the page's whole root again, every figure included: once per
 * child of every "More" fold and quick-check answer, 50-300 ms of a page's
 * first load. A child that is not in the page yet has no layout to redo:
 * its visibility is set silently, before it renders (it renders hidden).
 * The server keeps the child's own visibility, which is what the card
 * restores when the reader opens it.
 */
(function () {
  "use strict";

  function viewOf(B, name) {
    try {
      var model = B.Models.get(name);
      return model && model.prototype.default_view ? model.prototype.default_view.prototype : null;
    } catch (e) {
      return null;
    }
  }

  // What a colour bar shows: its mapper, range, display cut-offs and palette
  // (null for a scanning mapper, whose bins follow the data: always redrawn).
  function barKey(view) {
    try {
      var mapper = view.color_mapper;
      if (!mapper || !mapper.metrics || "binning" in mapper.metrics) return null;
      var m = view._continuous_metrics(mapper);
      return [mapper.id, m.min, m.max, view.model.display_low, view.model.display_high,
              Array.from(mapper.palette).join(",")].join("|");
    } catch (e) {
      return null;
    }
  }

  function quietColorBar(proto) {
    if (!proto || proto.__peQuietBar) return;
    var changed = proto._metrics_changed;
    var image = proto._set_canvas_image;
    if (typeof changed !== "function" || typeof image !== "function" ||
        typeof proto._continuous_metrics !== "function") return;
    proto._set_canvas_image = function () {
      var out = image.apply(this, arguments);
      this.__peBarKey = barKey(this);
      return out;
    };
    proto._metrics_changed = function () {
      var key = barKey(this);
      if (key !== null && key === this.__peBarKey) return;
      return changed.apply(this, arguments);
    };
    proto.__peQuietBar = true;
  }

  function quietFoldedCards(proto) {
    if (!proto || proto.__peQuietCards) return;
    var set = proto._set_child_visible;
    if (typeof set !== "function") return;
    proto._set_child_visible = function (child, visible) {
      var model = child && child.model;
      if (!visible && model && model.visible && child.el && !child.el.isConnected &&
          typeof model.setv === "function") {
        model.setv({visible: false}, {silent: true});
        return;
      }
      return set.apply(this, arguments);
    };
    proto.__peQuietCards = true;
  }

  function clipOverlay(proto) {
    if (proto.__peClipsOverlay) return;
    var owner = proto;
    while (owner && !Object.getOwnPropertyDescriptor(owner, "needs_clip")) {
      owner = Object.getPrototypeOf(owner);
    }
    var original = owner ? Object.getOwnPropertyDescriptor(owner, "needs_clip").get : null;
    Object.defineProperty(proto, "needs_clip", {
      configurable: true,
      get: function () {
        if (this.model.level === "overlay") return true;
        return original ? original.call(this) : false;
      },
    });
    proto.__peClipsOverlay = true;
  }

  // Each adjustment is made once its class is known; Panel's models register
  // after Bokeh's. Done when all three are, or after 5 s (a renamed class).
  function patch() {
    var B = window.Bokeh;
    if (!B || !B.Models || !B.Models.get) return false;
    var glyph = viewOf(B, "GlyphRenderer");
    var card = viewOf(B, "panel.models.layout.Card");
    if (glyph) clipOverlay(glyph);
    quietColorBar(viewOf(B, "ColorBar"));
    quietFoldedCards(card);
    return Boolean(glyph && card);
  }

  if (!patch()) {
    var tries = 0;
    var timer = setInterval(function () {
      if (patch() || ++tries >= 250) clearInterval(timer);
    }, 20);
  }
})();
