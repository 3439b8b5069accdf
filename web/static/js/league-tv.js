// A league's standings on the house TV ("/tv?league={id}", beside its
// lanes with "&lanes="): the teams, ranked, large enough to read from
// across the center, asked for again every refreshEvery ms.
import { el } from "./dom.js";
import { t, num } from "./i18n.js";
import { pointsText } from "./league-common.js";
import { fitName } from "./fit.js";

export const refreshEvery = 10000;

// leaguePanel builds the league's panel and keeps it up to date; it
// returns the panel's element.
export function leaguePanel(id) {
  const api = "/api/leagues/" + encodeURIComponent(id);
  const name = el("h2", { class: "tv-name", id: "tv-league-name" });
  const week = el("p", { class: "tv-phase" });
  const conn = el("p", { class: "tv-conn", role: "status" });
  const body = el("tbody");
  const table = el("table", { class: "tv-standings", "aria-labelledby": "tv-league-name" },
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "place", text: t("tvPlace") }),
      el("th", { scope: "col", class: "who", text: t("colTeam") }),
      el("th", { scope: "col", text: t("tvPointsWon") }),
      el("th", { scope: "col", text: t("tvPointsLost") }),
      el("th", { scope: "col", text: t("tvPinsHandicap") }),
      el("th", { scope: "col", text: t("tvHighGame") }))),
    body);
  const panel = el("section", { class: "tv-lane tv-league", "data-league": id, "aria-labelledby": name.id },
    el("div", { class: "tv-inner" },
      el("div", { class: "tv-head" }, name, week, conn),
      el("div", { class: "tv-board-side" }, table)));

  let shown = ""; // the standings drawn, to draw only a change
  async function refresh() {
    try {
      const [l, s] = await Promise.all([api, api + "/standings"].map(async (u) => {
        const res = await fetch(u, { cache: "no-store" });
        if (res.status === 404) throw new Error("gone");
        if (!res.ok) throw new Error(res.statusText);
        return res.json();
      }));
      conn.textContent = "";
      const key = JSON.stringify([l.name, s]);
      if (key !== shown) {
        draw(l, s);
        fitNames();
      }
      shown = key;
    } catch (err) {
      if (err.message === "gone") {
        name.textContent = t("tvLeagueMissing");
        panel.classList.add("missing");
        return; // nothing to ask again
      }
      conn.textContent = t("connOffline");
    }
    setTimeout(refresh, refreshEvery);
  }

  function draw(l, s) {
    name.replaceChildren(el("span", { class: "fit", text: l.name }));
    week.textContent = t("tvStandings", s.week);
    panel.style.setProperty("--n", String(Math.max(4, s.teams.length)));
    panel.dataset.week = String(s.week);
    body.replaceChildren(...s.teams.map((tm, i) => el("tr", { "data-team": tm.name, class: i === 0 ? "leader" : "" },
      el("td", { class: "place", text: num(i + 1) }),
      el("th", { scope: "row", class: "who" }, el("span", { class: "fit", text: tm.name })),
      el("td", { class: "won", text: pointsText(tm.points_won) }),
      el("td", { text: pointsText(tm.points_lost) }),
      el("td", { text: num(tm.pins_handicap) }),
      el("td", { text: num(tm.high_game) }))));
  }

  // fitNames fits the teams' names to their column, on two lines at
  // most, to be read whole (fit.js).
  function fitNames() {
    for (const who of body.querySelectorAll("th.who")) fitName(who, who.firstElementChild);
    if (name.firstElementChild) fitName(name, name.firstElementChild); // the league's, in the head
  }
  new ResizeObserver(fitNames).observe(panel);
  refresh();
  return panel;
}
