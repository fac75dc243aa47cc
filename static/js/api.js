// The API pages (/profile/api/, /oauth/...): copy buttons, and the one-time secret shown first.
// A copy button names its field (data-copy) and the status line that says what happened
// (data-copy-status); without the clipboard, the text is selected for Ctrl+C instead.
(function () {
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copy);
      const status = document.getElementById(button.dataset.copyStatus);
      if (!field) return;
      const text = "value" in field ? field.value : field.textContent;
      let copied = false;
      try {
        await navigator.clipboard.writeText(text);
        copied = true;
      } catch (error) {
        copied = false;
      }
      if (!copied && field.select) field.select();
      if (status) {
        status.textContent = "";
        // A fresh text each time, so a screen reader says it again on a second copy.
        window.setTimeout(() => {
          status.textContent = copied ? button.dataset.copied : button.dataset.copyFailed;
        }, 50);
      }
      button.dataset.copiedDone = copied ? "yes" : "no";
    });
  }
  const first = document.querySelector("[data-focus-on-load]");
  if (first) {
    first.focus();
    first.scrollIntoView({block: "start"});
  }
})();
