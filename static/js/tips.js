// What a number or a mark means, on a tap: phones and tablets show no `title` on hover, so a
// tap (or click) on anything that is not itself a control and carries a title shows that title
// in a small bubble beside it. The bubble is for eyes only (aria-hidden): the same words are
// already in the element's text for screen readers. A second tap, a tap elsewhere, Escape, a
// scroll or eight seconds close it.
(function () {
  const CONTROLS = "a, button, input, select, textarea, label, summary, [role=button], [contenteditable]";
  let bubble = null;
  let owner = null;
  let timer = 0;

  function close() {
    if (!bubble) return;
    bubble.remove();
    bubble = null;
    owner = null;
    clearTimeout(timer);
  }

  function place(box, rect) {
    const gap = 6;
    const width = box.offsetWidth;
    const height = box.offsetHeight;
    let left = rect.left + rect.width / 2 - width / 2;
    left = Math.max(gap, Math.min(left, window.innerWidth - width - gap));
    let top = rect.bottom + gap;
    if (top + height > window.innerHeight - gap) top = Math.max(gap, rect.top - height - gap);
    box.style.left = `${Math.round(left)}px`;
    box.style.top = `${Math.round(top)}px`;
  }

  function open(target, text) {
    close();
    bubble = document.createElement("div");
    bubble.className = "tip-bubble";
    bubble.setAttribute("aria-hidden", "true");
    bubble.dataset.tip = "";
    bubble.textContent = text;
    document.body.append(bubble);
    place(bubble, target.getBoundingClientRect());
    owner = target;
    timer = setTimeout(close, 8000);
  }

  document.addEventListener("click", (event) => {
    const hit = event.target instanceof Element ? event.target : null;
    if (!hit || hit.closest(CONTROLS) || hit.closest(".tip-bubble")) {
      close();
      return;
    }
    const target = hit.closest("[title]");
    const text = target && target !== document.body ? (target.getAttribute("title") || "").trim() : "";
    if (!text || target === owner) {
      close();
      return;
    }
    open(target, text);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  window.addEventListener("scroll", close, { passive: true, capture: true });
  window.addEventListener("resize", close);
})();
