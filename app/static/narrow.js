// Narrow screens (app/static/page.css). Below 900 px the sidebar is a drawer
// over the page: closed when the page opens, closed again by a tap beside it.
// And on any screen a figure with a fixed square frame (RoPE's R1, the clock
// faces: their circles must stay round, so they do not stretch with the page)
// shrinks its frame, still square, until the whole figure fits the window.
// A legend of several columns that runs past its figure's edge (E2's and
// E3's methods on a phone) loses columns, one at a time, until it fits; a
// narrow figure's horizontal axis asks for fewer ticks (one per TICK_SPACING
// px at most), so "10k12k14k" does not run together; and an axis title longer
// than its figure breaks into two lines.
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

  // A legend is anchored at one corner of its figure's frame; on a phone the
  // frame is narrow and a legend that fits the figure's width may still run
  // past its edge (R8's two entries start at the frame's left, past the y axis).
  function fitLegends(reset) {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        if (model.type !== "Legend") { continue; }
        if (model.__peCols == null) { model.__peCols = model.ncols; }
        if (reset && model.ncols !== model.__peCols) {
          model.setv({ncols: model.__peCols}, {sync: false});
          continue;
        }
        const view = Bokeh.index.find_one(model);
        const plot = view && view.parent;
        if (!plot || !plot.el || view.bbox.width === 0) { continue; }
        const room = plot.el.getBoundingClientRect().width;
        if (room === 0 || (view.bbox.right <= room + 0.5 && view.bbox.left >= -0.5)) { continue; }
        if (typeof model.ncols === "number" && model.ncols >= 2) {
          model.setv({ncols: model.ncols - 1}, {sync: false});
        } else if (model.ncols === "auto" && model.orientation === "horizontal"
                   && model.items.length >= 2) {
          model.setv({ncols: model.items.length - 1}, {sync: false});
        }
      }
    }
  }

  // A title under a figure (or beside it) longer than the figure breaks into
  // two lines at the space nearest its middle (Bokeh draws "\n" as a line
  // break) instead of running off the card: "shift k of the whole sentence
  // (positions)" on a phone. The server's text stays as it is.
  const ruler = document.createElement("canvas").getContext("2d");
  function wrapAxisLabels(reset) {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    for (const doc of Bokeh.documents) {
      for (const axis of doc.all_models) {
        const label = axis.axis_label;
        if (typeof label !== "string" || label === "" || axis.ticker == null) { continue; }
        if (label !== axis.__peWrapped) { axis.__peLabel = label; axis.__peWrapped = null; }
        const whole = axis.__peLabel;
        if (axis.__peWrapped != null) {
          if (reset) {
            axis.__peWrapped = null;
            axis.setv({axis_label: whole}, {sync: false});
          }
          continue;
        }
        const view = Bokeh.index.find_one(axis);
        const plot = view && view.parent;
        if (!plot || !plot.frame || !plot.el) { continue; }
        const below = (plot.model.below || []).includes(axis);
        const left = (plot.model.left || []).includes(axis);
        if (!below && !left) { continue; }
        const box = plot.el.getBoundingClientRect();
        const frame = plot.frame.bbox;
        // The title is centred on the frame: its room is twice the nearer side.
        const room = below ? 2 * Math.min(frame.hcenter, box.width - frame.hcenter)
                           : 2 * Math.min(frame.vcenter, box.height - frame.vcenter);
        // The theme gives sizes in em, of the figure's own font size.
        let size = String(axis.axis_label_text_font_size);
        if (size.endsWith("em")) {
          size = parseFloat(size) * parseFloat(getComputedStyle(plot.el).fontSize) + "px";
        }
        ruler.font = [axis.axis_label_text_font_style, size, axis.axis_label_text_font].join(" ");
        // With a margin: Bokeh draws the title a little wider than the ruler
        // measures it (R8's measured 276 px in 280 and still ran off).
        if (room <= 0 || ruler.measureText(whole).width <= room - 24) { continue; }
        let cut = -1;
        for (let i = 0; i < whole.length; i++) {
          const nearer = Math.abs(i - whole.length / 2) < Math.abs(cut - whole.length / 2);
          if (whole[i] === " " && (cut < 0 || nearer)) { cut = i; }
        }
        if (cut < 0) { continue; }
        axis.__peWrapped = whole.slice(0, cut) + "\n" + whole.slice(cut + 1);
        axis.setv({axis_label: axis.__peWrapped}, {sync: false});
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
    wrapAxisLabels(true);  // and the titles on one line
    holdReadouts(true);  // and text wraps anew
  });
  setInterval(function () {
    fitSquareFrames();
    fitLegends(false);
    spaceTicks(false);
    wrapAxisLabels(false);
    holdReadouts(false);
  }, 500);
})();
