// The site header's menu button: a classic script run right after the header, so the menu is
// folded before the page is first drawn. The header is one row: when its links and tools do not
// fit in one row at this width and in this language (a phone, a narrow window, longer Spanish
// words, a long display name), it turns compact (brand, My games, Menu) and the rest folds into
// the menu. Without scripts the menu simply stays open. The button says whether the menu is open (aria-expanded); Escape closes it
// and gives focus back to the button, as does a click outside it.
(function () {
  const header = document.querySelector(".site-header");
  const button = header && header.querySelector(".menu-toggle");
  const menu = button && document.getElementById(button.getAttribute("aria-controls"));
  if (!menu) return;
  header.classList.add("has-menu");
  button.hidden = false;

  // The full row does not fit when an item sticks out past the header's right edge or has
  // gone below the brand (a wrap).
  function fit() {
    const wasOpen = button.getAttribute("aria-expanded") === "true";
    header.classList.remove("compact");
    const brand = header.querySelector(".brand");
    const below = (brand ? brand.getBoundingClientRect().bottom : 0) + 4;
    const right = header.getBoundingClientRect().right + 0.5;
    const wrapped = [...header.querySelectorAll(".site-nav li, .site-tools > *, .my-games-link")].some((node) => {
      const box = node.getBoundingClientRect();
      return box.width > 0 && (box.top >= below || box.right > right);
    });
    header.classList.toggle("compact", wrapped);
    if (!wrapped && wasOpen) setOpen(false, false);
  }
  fit();
  let queued = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(queued);
    queued = requestAnimationFrame(fit);
  });

  function setOpen(open, focusButton) {
    button.setAttribute("aria-expanded", open ? "true" : "false");
    menu.classList.toggle("open", open);
    if (!open && focusButton) button.focus();
  }

  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    setOpen(open, false);
    if (open) menu.querySelector("a, button, select")?.focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
      setOpen(false, true);
    }
  });
  document.addEventListener("click", (event) => {
    if (button.getAttribute("aria-expanded") === "true" && !header.contains(event.target)) setOpen(false, false);
  });
})();
