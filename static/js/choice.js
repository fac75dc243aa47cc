// A player's choice kept on this device (localStorage): the table sounds, the screen-reader
// mode. Private browsing may refuse storage: the choice then lasts for this page only.

/** The choice kept under `key`, or null. */
export function storedChoice(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `value` under `key` (nothing, where storage is refused). */
export function keepChoice(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* private mode: this page only */
  }
}
