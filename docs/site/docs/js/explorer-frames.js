// Explorer frames say how tall their content is; give each frame that height.
addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "positional-encoding-explorer:height") return;
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) {
      frame.style.height = Math.min(Math.max(data.height, 100), 5000) + "px";
    }
  }
});
