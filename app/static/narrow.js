// Narrow screens (app/static/page.css). Below 900 px the sidebar is a drawer
// over the page: closed when the page opens, closed again by a tap beside it.
// And on any screen a figure with a fixed square frame (RoPE's R1, the clock
// faces: their circles must stay round, so they do not stretch with the page)
// shrinks its frame, still square, until the whole figure fits the window.
// A legend of several columns above or below a figure narrower than it (E2's
// and E3's methods on a phone) loses columns, one at a time, until it fits;
// and a narrow figure's horizontal axis asks for fewer ticks (one per
// TICK_SPACING px at most), so "10k12k14k" does not run together.
// A figure's readout keeps the tallest height it has had while the window
// keeps its width, so the page below it does not jump when a line of its
// text comes and goes.
(function () {
  const narrow = window.matchMedia("(max-width: 899px)");
  const MARGIN = 40;  // the page's and the card's padding around a figure
  const SMALLEST = 160;
  const TICK_SPACING = 55;

  function closeDrawer() {
    const sidebar = document.getElementById("sidebar");
    if (narrow.matches && sidebar && !sidebar.classList.contains("hidden")
        && typeof closeNav === "function") {
      closeNav();
    }
  }

  function fitSquareFrames() {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    const room = window.innerWidth - MARGIN;
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        const side = model.frame_width;
        if (side == null || side !== model.frame_height) { continue; }
        const view = Bokeh.index.find_one(model);
        if (view == null || view.el == null) { continue; }
        if (model.__peSide == null) { model.__peSide = side; }
        const outer = view.el.getBoundingClientRect().width;
        if (outer === 0) { continue; }
        const wanted = Math.max(SMALLEST, Math.min(model.__peSide, side - (outer - room)));
        if (Math.abs(wanted - side) >= 1) {
          model.setv({frame_width: wanted, frame_height: wanted}, {sync: false});
        }
      }
    }
  }

  function fitLegends(reset) {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        if (model.type !== "Legend" || typeof model.ncols !== "number") { continue; }
        if (model.__peCols == null) { model.__peCols = model.ncols; }
        if (reset && model.ncols !== model.__peCols) {
          model.setv({ncols: model.__peCols}, {sync: false});
          continue;
        }
        const view = Bokeh.index.find_one(model);
        const plot = view && view.parent;
        if (!plot || !plot.el || model.ncols < 2) { continue; }
        const room = plot.el.getBoundingClientRect().width;
        if (room > 0 && view.bbox.width > room) {
          model.setv({ncols: model.ncols - 1}, {sync: false});
        }
      }
    }
  }

  // Between two resizes a ticker only ever loses ticks: the tick labels' width
  // moves the frame's edge (RoPE's R2 is 333 px wide with five ticks and 325
  // with six), so a count that followed the width both ways would flip at
  // every scan and re-lay out the figure each time.
  function spaceTicks(reset) {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    for (const doc of Bokeh.documents) {
      for (const axis of doc.all_models) {
        const ticker = axis.ticker;
        if (!ticker || ticker.type !== "BasicTicker") { continue; }
        const view = Bokeh.index.find_one(axis);
        const plot = view && view.parent;
        if (!plot || !plot.frame || !plot.model.below || !plot.model.below.includes(axis)) {
          continue;
        }
        if (ticker.__peTicks == null) { ticker.__peTicks = ticker.desired_num_ticks; }
        const width = plot.frame.bbox.width;
        if (width <= 0) { continue; }
        const wanted = Math.max(2, Math.min(ticker.__peTicks, Math.floor(width / TICK_SPACING)));
        const fewer = wanted < ticker.desired_num_ticks;
        if (wanted !== ticker.desired_num_ticks && (reset || fewer)) {
          ticker.setv({desired_num_ticks: wanted}, {sync: false});
        }
      }
    }
  }

  // A readout (the exact numbers under a figure, class pe-readout) only grows
  // between two resizes. A line more or less of text changed the height of its
  // card and of the page, and Bokeh answers a change of any layout's size by
  // laying out everything inside it again: every figure of the page, ~20 ms a
  // change (RoPE's layout, Relative's bucket mode).
  const READOUT = "pe-readout";
  let readouts = null;
  const held = new Set();

  function tallest(entries) {
    for (const entry of entries) {
      const el = entry.target;
      const border = getComputedStyle(el).boxSizing === "border-box";
      const box = border ? entry.borderBoxSize : entry.contentBoxSize;
      const height = box && box[0] ? box[0].blockSize : entry.contentRect.height;
      if (height >= (el.__peTallest || 0) + 1) {
        el.__peTallest = height;
        el.style.minHeight = height + "px";
      }
    }
  }

  function holdReadouts(reset) {
    if (typeof Bokeh === "undefined" || !Bokeh.documents || typeof ResizeObserver === "undefined") {
      return;
    }
    if (readouts === null) { readouts = new ResizeObserver(tallest); }
    if (reset) {
      for (const el of held) {
        el.__peTallest = 0;
        el.style.minHeight = "";
      }
    }
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        const classes = model.css_classes;
        if (!Array.isArray(classes) || !classes.includes(READOUT)) { continue; }
        const view = Bokeh.index.find_one(model);
        if (!view || !view.el || held.has(view.el)) { continue; }
        held.add(view.el);
        readouts.observe(view.el);
      }
    }
    for (const el of held) {
      if (!el.isConnected) { readouts.unobserve(el); held.delete(el); }
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    closeDrawer();
    const main = document.getElementById("main");
    if (main) { main.addEventListener("click", closeDrawer); }
  });
  // Figures arrive after the page loads and with each page opened: look again
  // now and then (cheap: a few models' sizes) and whenever the window changes.
  window.addEventListener("resize", function () {
    fitSquareFrames();
    fitLegends(true);  // a wider window may hold the columns again
    spaceTicks(true);  // and the ticks
    holdReadouts(true);  // and text wraps anew
  });
  setInterval(function () {
    fitSquareFrames();
    fitLegends(false);
    spaceTicks(false);
    holdReadouts(false);
  }, 500);
})();
