// lf-web's page script: follows the Home's change stream (Server-Sent
// Events) and, when something changed, fetches this page's live part
// again, as the server rendered and escaped it. It never builds HTML from
// a Session's text. The page works without it (reload to see changes).
"use strict";
(() => {
  const root = document.documentElement;
  const main = document.getElementById("part");
  const live = document.getElementById("live");
  const part = document.body.dataset.part;
  if (!main || !part) return;
  // The latest event told, and whether a fetch is under way.
  let told = 0;
  let fetching = false;
  let stale = false;

  // A screen's newest lines (where an agent's dialog is) are its last:
  // its box shows them first, as a terminal does.
  function newestLines() {
    for (const screen of main.querySelectorAll("pre.screen")) {
      screen.scrollTop = screen.scrollHeight;
    }
  }
  newestLines();

  async function refresh() {
    if (fetching) {
      stale = true;
      return;
    }
    fetching = true;
    try {
      do {
        stale = false;
        const upTo = told;
        const response = await fetch(part, { cache: "no-store" });
        if (response.status === 401) {
          location.reload();
          return;
        }
        if (response.ok) {
          const html = await response.text();
          if (typing()) {
            // What the person types is never swept away: later.
            setTimeout(refresh, 2000);
            return;
          }
          // A "Complete…" the person opened stays open.
          const open = Array.from(main.querySelectorAll("details[open]"), (d) => d.className);
          main.innerHTML = html;
          newestLines();
          for (const name of open) {
            const details = main.querySelector(`details.${CSS.escape(name)}`);
            if (details) details.open = true;
          }
          // What the page shows now, for whoever measures or tests it.
          root.dataset.seq = String(upTo);
          root.dataset.shownAt = String(Date.now());
        }
      } while (stale);
    } catch (_) {
      // The server went away: the event stream says so and reconnects.
    } finally {
      fetching = false;
    }
  }

  // Whether the person is typing into a field of the live part (a reply).
  function typing() {
    return Array.from(main.querySelectorAll("input[type=text], textarea")).some(
      (field) => field === document.activeElement || field.value !== "",
    );
  }

  // How long ago things happened ("waited 14m") and a Session's screen
  // change without an event: looked at again now and then.
  setInterval(refresh, 1000 * Number(document.body.dataset.every || 30));

  const events = new EventSource("/events");
  events.addEventListener("open", () => {
    live.className = "on";
    // Whatever happened while there was no stream.
    refresh();
  });
  events.addEventListener("error", () => {
    live.className = "off";
  });
  events.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    told = Math.max(told, change.seq);
    refresh();
  });
  events.addEventListener("behind", () => refresh());
})();
