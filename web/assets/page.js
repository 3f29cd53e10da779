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
          main.innerHTML = await response.text();
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
