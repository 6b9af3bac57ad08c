/* Accessibility touches the page template and Bokeh's widgets leave out.
 *
 * Loaded by the app's template (app/main.py). It only adds ARIA roles and
 * names, and keeps hidden toolbars in reach of the keyboard; it changes
 * nothing a mouse user sees.
 *
 * - Template: landmarks (banner, complementary sidebar, main), a level-one
 *   heading, a name for the theme switch, the sidebar toggle as a keyboard
 *   button, the sidebar's <ul> (which holds no list items) as a plain box,
 *   and a "Skip to the figures" link as the first Tab stop.
 * - Figures: the plot's focusable event layer is a named figure (its card's
 *   title); toolbar buttons are buttons; a toolbar shown only under the
 *   pointer is still reached by Tab, and shown while it has the focus.
 * - Widgets, inside their shadow roots: slider handles are named after the
 *   slider's title, spinner buttons "Increase/Decrease <title>", inputs with
 *   an empty label after their placeholder or kind. Widgets are drawn (and
 *   redrawn) at any time, so every shadow root is watched and labelled again
 *   after a change.
 * - Uploads: a file over MAX_UPLOAD_BYTES is refused here, with a message
 *   read out at once (role="alert"). Bokeh's file input sends the whole file
 *   in one websocket message, and one over the server's message limit closed
 *   the student's connection without a word (the server itself was fine).
 *   Files under the limit go to the server, which checks them again.
 * - Formulas wider than a phone's card scroll sideways, and Tab reaches them.
 * - Number boxes: a number typed past a box's limits is set to the nearest
 *   limit (5000 in a 0–4,096 box gives 4,096). Bokeh's spinner kept the old
 *   value but left the typed number on screen, as if it had been taken.
 */
(function () {
  "use strict";

  function text(el) {
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function name(el, value) {
    if (value && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby")) {
      el.setAttribute("aria-label", value);
    }
  }

  function shell() {
    var header = document.getElementById("header-design-provider");
    if (header) header.setAttribute("role", "banner");
    var title = document.querySelector("#header .app-header");
    if (title) {
      title.setAttribute("role", "heading");
      title.setAttribute("aria-level", "1");
    }
    var sidebar = document.getElementById("sidebar");
    if (sidebar) {
      sidebar.setAttribute("role", "complementary");
      name(sidebar, "Pages and controls");
      var list = sidebar.querySelector("ul");
      if (list) list.setAttribute("role", "none");
    }
    var main = document.getElementById("main");
    if (main) main.setAttribute("role", "main");
    var modal = document.getElementById("pn-Modal");
    if (modal) modal.setAttribute("aria-label", "Dialog");
    var close = document.getElementById("pn-closeModal");
    if (close) name(close, "Close");
    var theme = document.getElementById("theme-switch");
    if (theme) name(theme, "Light theme");
    var toggle = document.getElementById("sidebar-button");
    if (toggle && !toggle.hasAttribute("tabindex")) {
      toggle.setAttribute("role", "button");
      toggle.setAttribute("tabindex", "0");
      name(toggle, "Show or hide the sidebar");
      toggle.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle.click();
        }
      });
    }
    // A first Tab stop that jumps past the sidebar's controls to the figures
    // (shown only while it has focus; a click must not add a history entry).
    if (main && !document.getElementById("pex-skip")) {
      var style = document.createElement("style");
      style.textContent =
        "#pex-skip{position:absolute;left:-10000px;top:8px;z-index:10000;padding:6px 12px;" +
        "background:#ffffff;color:#1a1a1a;border:2px solid #1a1a1a;border-radius:4px}" +
        "#pex-skip:focus{left:8px}";
      document.head.appendChild(style);
      var skip = document.createElement("a");
      skip.id = "pex-skip";
      skip.href = "#main";
      skip.textContent = "Skip to the figures";
      skip.addEventListener("click", function (event) {
        event.preventDefault();
        main.setAttribute("tabindex", "-1");
        main.focus();
        main.scrollIntoView();
      });
      document.body.insertBefore(skip, document.body.firstChild);
    }
    // The full-screen buttons of the main area are for the mouse only.
    document.querySelectorAll("#main .fullscreen-button").forEach(function (el) {
      el.setAttribute("aria-hidden", "true");
    });
  }

  function sliderTitle(root) {
    var title = root.querySelector(".bk-slider-title");
    if (!title) return "";
    var clone = title.cloneNode(true);
    clone.querySelectorAll(".bk-slider-value").forEach(function (v) {
      v.remove();
    });
    return text(clone).replace(/[:\s]+$/, "");
  }

  // A slider with a number box (Panel's editable slider) draws its label as a
  // separate text beside the box: its handle and box are named after it.
  function editableLabel(root) {
    var host = root.host;
    if (!host || !host.parentNode) return "";
    var row = null;
    if (host.classList.contains("slider-edit")) {
      row = host.parentNode;
    } else if (host.classList.contains("bk-Slider")) {
      var rowHost = Array.prototype.find.call(host.parentNode.children, function (c) {
        return c.classList.contains("bk-Row");
      });
      row = rowHost && rowHost.shadowRoot;
    }
    var label = row && Array.prototype.find.call(row.children, function (c) {
      return c.classList.contains("bk-Div");
    });
    var inner = label && label.shadowRoot ? label.shadowRoot.querySelector("div") : null;
    return inner ? text(inner).replace(/[:\s]+$/, "") : "";
  }

  function labelText(root, input) {
    var label = input.id ? root.querySelector('label[for="' + input.id + '"]') : null;
    return label && label.style.display !== "none" ? text(label) : "";
  }

  // positional_core.hf_config.MAX_CONFIG_BYTES (tests/app/test_extension.py checks).
  var MAX_UPLOAD_BYTES = 262144;

  function guardUploads(root) {
    if (root.__pexUploads || !root.querySelector('input[type="file"]')) return;
    root.__pexUploads = true;
    // Capture on the shadow root: runs before Bokeh's own listener on the input.
    root.addEventListener(
      "change",
      function (event) {
        var input = event.target;
        if (!input || input.type !== "file" || !input.files) return;
        var big = Array.prototype.filter.call(input.files, function (file) {
          return file.size > MAX_UPLOAD_BYTES;
        });
        var note = root.querySelector(".pex-upload-note");
        if (!big.length) {
          if (note) note.remove();
          return;
        }
        event.stopImmediatePropagation();
        input.value = "";
        if (!note) {
          note = document.createElement("p");
          note.className = "pex-upload-note";
          note.setAttribute("role", "alert");
          note.style.margin = "4px 0";
          input.insertAdjacentElement("afterend", note);
        }
        note.textContent =
          "Not uploaded: " + big[0].name + " is " + big[0].size.toLocaleString("en") +
          " bytes; a config may be at most " + MAX_UPLOAD_BYTES.toLocaleString("en") +
          " bytes (256 KB).";
      },
      true
    );
  }

  function spinnerOf(input) {
    if (!window.Bokeh || !Bokeh.index || !Bokeh.index.query) return null;
    for (var view of Bokeh.index.query(function (v) { return v.input_el === input; })) {
      if (view.model && view.model.type === "Spinner") return view.model;
    }
    return null;
  }

  function clampNumbers(root) {
    if (root.__pexNumbers || !root.querySelector('input[type="text"]')) return;
    root.__pexNumbers = true;
    // Capture: the box shows the limit before Bokeh's own listener reads it.
    root.addEventListener(
      "change",
      function (event) {
        var input = event.target;
        if (!input || input.type !== "text" || input.value.trim() === "") return;
        var typed = Number(input.value);
        var box = Number.isFinite(typed) ? spinnerOf(input) : null;
        if (!box) return;
        if (box.high != null && typed > box.high) input.value = String(box.high);
        else if (box.low != null && typed < box.low) input.value = String(box.low);
      },
      true
    );
  }

  // A formula wider than its card scrolls sideways (a phone): the keyboard
  // reaches it too, as a named region.
  function formulas(root) {
    root.querySelectorAll(".katex-display").forEach(function (el) {
      if (el.hasAttribute("tabindex") || el.scrollWidth <= el.clientWidth) return;
      el.tabIndex = 0;
      el.setAttribute("role", "region");
      el.setAttribute("aria-label", "Formula, scrolls sideways");
    });
  }

  function widgets(root) {
    guardUploads(root);
    clampNumbers(root);
    formulas(root);
    var handles = root.querySelectorAll('.noUi-handle[role="slider"]');
    if (handles.length) {
      var title = sliderTitle(root) || editableLabel(root) || "Slider";
      handles.forEach(function (handle, i) {
        var which = handles.length === 2 ? (i === 0 ? " (lower end)" : " (upper end)") : "";
        name(handle, title + which);
      });
    }
    root.querySelectorAll("button.bk-spin-btn").forEach(function (button) {
      var input = button.parentElement && button.parentElement.querySelector("input");
      var what = input ? labelText(root, input) || editableLabel(root) : "";
      var up = button.classList.contains("bk-spin-btn-up");
      name(button, (up ? "Increase " : "Decrease ") + (what || "the value"));
    });
    root.querySelectorAll("input, textarea, select").forEach(function (input) {
      if (input.type === "hidden" || labelText(root, input)) return;
      var guess =
        editableLabel(root) ||
        input.getAttribute("placeholder") ||
        input.getAttribute("title") ||
        (input.type === "file" ? "Choose a file" : "");
      name(input, guess);
    });
  }

  function deepText(el) {
    var parts = [];
    (function walk(node) {
      node.childNodes.forEach(function (child) {
        if (child.nodeType === 3) parts.push(child.textContent);
        else if (child.nodeType === 1) walk(child.shadowRoot || child);
      });
    })(el.shadowRoot || el);
    return parts.join(" ").replace(/\s+/g, " ").trim();
  }

  function cardTitle(el) {
    // Up through the shadow hosts to the card the figure sits in.
    for (var node = el; node; ) {
      var root = node.getRootNode();
      if (!root.host) return "";
      var header = root.querySelector(".card-header");
      if (header) return deepText(header);
      node = root.host;
    }
    return "";
  }

  function figures(root) {
    // The plot's event layer takes keyboard focus: name it after its card.
    root.querySelectorAll(".bk-layer.bk-events[tabindex]").forEach(function (layer) {
      if (layer.getAttribute("aria-label")) return;
      var title = cardTitle(layer);
      layer.setAttribute("role", "figure");
      name(layer, title || "Figure");
    });
    // Toolbar buttons are focusable divs named by their title: say they are buttons.
    root.querySelectorAll(".bk-OnOffButton[title], .bk-ClickButton[title]").forEach(function (b) {
      if (!b.getAttribute("role")) b.setAttribute("role", "button");
    });
  }

  // Bokeh hides a toolbar it shows only under the pointer (autohide) with
  // visibility: hidden, which also takes its buttons out of the Tab order.
  // Each toolbar's shadow root gets a sheet that keeps it focusable, only
  // transparent, and shows it while it holds the keyboard focus.
  var toolbarSheet = null;
  function toolbar(root) {
    if (!root.host || !root.host.classList.contains("bk-Toolbar") || root.__pexToolbar) return;
    if (toolbarSheet === null) {
      toolbarSheet = new CSSStyleSheet();
      toolbarSheet.replaceSync(
        ":host(.bk-hidden) { visibility: visible !important; }" +
        ":host(.bk-hidden:not(:focus-within)) { opacity: 0 !important; }" +
        ":host(:focus-within) { opacity: 1 !important; }"
      );
    }
    root.adoptedStyleSheets = root.adoptedStyleSheets.concat([toolbarSheet]);
    root.__pexToolbar = true;
  }

  var watched = new WeakSet();
  var pending = null;

  function scan(root) {
    widgets(root);
    figures(root);
    root.querySelectorAll("*").forEach(function (el) {
      if (el.shadowRoot) {
        watch(el.shadowRoot);
        toolbar(el.shadowRoot);
        scan(el.shadowRoot);
      }
    });
  }

  function schedule() {
    // After a change the page repaints its figures; the scan (a walk of every
    // shadow root, ~15 ms) waits until the browser is idle, so it never delays
    // a repaint (Chromium CPU profile of RoPE's d: it ran between the paints).
    if (pending !== null) return;
    pending = setTimeout(function () {
      var run = function () {
        pending = null;
        scan(document);
      };
      if (window.requestIdleCallback) window.requestIdleCallback(run, { timeout: 1000 });
      else run();
    }, 150);
  }

  function watch(root) {
    if (watched.has(root)) return;
    watched.add(root);
    new MutationObserver(schedule).observe(root, { childList: true, subtree: true });
  }

  function start() {
    shell();
    watch(document);
    scan(document);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
