// The presenter view (?present=1, e.g. ?page=lesson&step=6&present=1): type
// that reads from the back of a classroom. Body text at 20 px (page.css, under
// html.present), figures' tick labels and legends at 16 px and axis titles at
// 18 px, no toolbars (nobody zooms a projected figure), and the sidebar closed
// so the figure has the screen's width. Only this browser's view changes
// (setv without sync): the server's figures are those of every other session.
(function () {
  if (!/[?&]present=(1|true|yes|on)(&|$)/i.test(window.location.search)) { return; }
  document.documentElement.classList.add("present");
  const SIZES = {
    major_label_text_font_size: "16px",   // ticks: axes and colour bars
    axis_label_text_font_size: "18px",
    label_text_font_size: "16px",         // legend entries
    title_text_font_size: "16px",         // a legend's or colour bar's title
    text_font_size: "18px",               // a figure's title
  };

  function enlarge() {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        const change = {};
        for (const name in SIZES) {
          const prop = model.properties && model.properties[name];
          if (prop && !(model.type && model.type.endsWith("Labels"))) {
            const now = model[name];
            const value = now && typeof now === "object" ? now.value : now;
            if (value !== SIZES[name]) { change[name] = SIZES[name]; }
          }
        }
        if (model.properties && model.properties.toolbar_location && model.toolbar_location != null) {
          change.toolbar_location = null;
        }
        if (Object.keys(change).length) { model.setv(change, {sync: false}); }
      }
    }
  }

  // A lesson step is one screen: a figure whose card runs past the window's
  // bottom is made shorter, down to SMALLEST px; a square one (R1, the clock
  // faces) stays square. narrow.js sizes square frames up to model.__peSide:
  // lowering that cap is how this asks for a smaller one (so the two never
  // pull against each other).
  const SMALLEST = 220;
  function cardOf(el) {
    for (let e = el; e; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
      if (e.classList && e.classList.contains("card")) { return e; }
    }
    return null;
  }
  function fitHeight() {
    if (!/[?&]page=lesson(&|$)/.test(window.location.search)) { return; }
    const main = document.getElementById("main");
    if (!main || typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    if (main.scrollHeight <= main.clientHeight) { return; }
    const top = main.getBoundingClientRect().top - main.scrollTop;
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        if (!model.properties || !model.properties.frame_height) { continue; }
        const view = Bokeh.index.find_one(model);
        if (!view || !view.el || view.el.getBoundingClientRect().height === 0) { continue; }
        // How far the figure's card (its readout under it) runs past the
        // window: the controls beside it may be what is too tall instead.
        const card = cardOf(view.el);
        const over = card ? card.getBoundingClientRect().bottom - top + 24 - main.clientHeight : 0;
        if (over <= 0) { continue; }
        const side = model.frame_width;
        if (side != null && side === model.frame_height) {
          const wanted = Math.max(SMALLEST, side - over);
          if (wanted < side) {
            model.__peSide = wanted;
            model.setv({frame_width: wanted, frame_height: wanted}, {sync: false});
          }
        } else if (typeof model.height === "number") {
          const wanted = Math.max(SMALLEST, model.height - over);
          if (wanted < model.height) { model.setv({height: wanted}, {sync: false}); }
        }
      }
    }
  }

  // The step fits the screen until its question is answered; the feedback then
  // comes under the choices and may run below the screen's bottom: bring it into
  // view for each new answer (a student reads it, a teacher explains it). The
  // text arrives before its layout settles, so the next ticks check again for a
  // moment, until the whole explanation is on the screen.
  const SETTLE_MS = 2000;
  function showFeedback() {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    const now = Date.now();
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        const text = model.text;
        if (typeof text !== "string") { continue; }
        if (model.__peAnswer !== text) {
          const first = model.__peAnswer === undefined;
          model.__peAnswer = text;
          // Panel sends an HTML pane's text escaped.
          if (!first && /role=(&quot;|")status/.test(text)) { model.__peShowUntil = now + SETTLE_MS; }
        }
        if (!(model.__peShowUntil > now)) { continue; }
        const view = Bokeh.index.find_one(model);
        const box = view && view.el ? view.el.getBoundingClientRect() : null;
        if (box && box.height > 0 && (box.top < 0 || box.bottom > window.innerHeight)) {
          view.el.scrollIntoView({block: "nearest"});
        }
      }
    }
  }

  function closeSidebar() {
    const sidebar = document.getElementById("sidebar");
    if (sidebar && !sidebar.classList.contains("hidden") && typeof closeNav === "function") {
      closeNav();
    }
  }

  // Figures are drawn (and new ones added, e.g. on the next step) at any time.
  window.addEventListener("load", function () {
    closeSidebar();
    enlarge();
    setInterval(function () { enlarge(); fitHeight(); showFeedback(); }, 500);
  });
})();
