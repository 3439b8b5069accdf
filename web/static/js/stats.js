// The night's numbers as a table — those every board carries (its
// "stats", as GET /api/lanes/{id}/stats answers them), so that no page
// asks after a ball — and the exports of the lane's games (GET …/games),
// asked for once a game is over; drawn by pure functions of them.
import { $, el } from "./dom.js";
import { t, num, pct, getLang, list } from "./i18n.js";

// avg says a mean to one decimal, or "—" before there is one.
const avg = (x) => typeof x === "number" ? num(x, 1) : "—";

// madeOf says "made/chances": 1/2.
const madeOf = (made, of) => `${num(made)}/${num(of)}`;

// rowsOf is the table's lines: a label's key, and each bowler's figure
// (its title, if any, says what the figure counts).
const rowsOf = [
  ["statGames", (p) => num(p.games)],
  ["statPins", (p) => num(p.pins)],
  ["statAverage", (p) => avg(p.average)],
  ["statHigh", (p) => p.games ? num(p.high) : "—"],
  ["statStrikes", (p) => pct(p.strikes, p.strike_chances), (p) => t("ofChances", p.strikes, p.strike_chances)],
  ["statSpares", (p) => pct(p.spares, p.spare_chances), (p) => t("ofChances", p.spares, p.spare_chances)],
  ["statFirstBall", (p) => avg(p.first_ball_avg)],
  ["statOpens", (p) => num(p.opens)],
  ["statSplits", (p) => madeOf(p.splits_made, p.splits)],
  ["statSinglePins", (p) => madeOf(p.single_pins_made, p.single_pins)],
  ["statFouls", (p) => num(p.fouls)],
  ["statClean", (p) => num(p.clean_games)],
];

// statsTable is the table's head and body: a column per bowler (a phone
// shows a few bowlers better than a dozen columns), a row per figure.
export function statsTable(stats) {
  const players = (stats && Array.isArray(stats.players)) ? stats.players : [];
  const head = el("tr", {}, el("th", { scope: "col", text: t("colPlayer") }),
    ...players.map((p) => el("th", { scope: "col", "data-player": p.name, text: p.name })));
  const body = rowsOf.map(([key, figure, title]) => el("tr", { "data-stat": key },
    el("th", { scope: "row", text: t(key) }),
    ...players.map((p) => el("td", { "data-player": p.name, text: figure(p), title: title ? title(p) : "" }))));
  return { head, body, empty: players.length === 0 };
}

// exportLinks is the links to the lane's games: the spreadsheet of the
// series, and each finished game's scorecard, in the page's language.
export function exportLinks(laneID, games) {
  const base = "/api/lanes/" + encodeURIComponent(laneID);
  const lang = getLang() === "ko" ? "?lang=ko" : "";
  const finished = (games && Array.isArray(games.games) ? games.games : []).filter((g) => g.finished);
  const items = [el("li", {}, el("a", { href: base + "/games.csv", download: `tenpin-${laneID}.csv`, class: "csv", text: t("exportCSV") }))];
  for (const g of finished) {
    items.push(el("li", {}, el("a", { href: `${base}/games/${g.game}.svg${lang}`, class: "svg", "data-game": String(g.game),
      target: "_blank", rel: "noopener", text: t("exportSVG", g.game) })));
  }
  return { items, any: finished.length > 0 };
}

// sheetFigures is every game of the lane's series as its score sheet, an
// image the server draws in the page's language: a kept lane's night.
export function sheetFigures(laneID, games) {
  const base = "/api/lanes/" + encodeURIComponent(laneID);
  const lang = getLang() === "ko" ? "?lang=ko" : "";
  const all = games && Array.isArray(games.games) ? games.games : [];
  return all.map((g) => el("figure", { "data-game": String(g.game) },
    el("img", {
      src: `${base}/games/${g.game}.svg${lang}`, loading: "lazy",
      alt: t("sheetAlt", g.game, list(g.players.map((p) => `${p.name} ${num(p.total)}`))),
    }),
    el("figcaption", { text: t("sheetGame", g.game, g.finished) })));
}

// asker asks the API for path, one question in flight at a time: asked
// again meanwhile, it asks once more after. got(body) takes an answer.
function asker(path, got) {
  let busy = false;
  let again = false;
  const ask = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const res = await fetch(path, { cache: "no-store" });
      if (res.ok) got(await res.json());
    } catch {
      // keep what is shown: the next change asks again
    }
    busy = false;
    if (again) {
      again = false;
      ask();
    }
  };
  return ask;
}

// createNumbers keeps the night's numbers and the exports of the lane
// laneID up to date; board() is the board shown, or null once the lane
// has closed.
export function createNumbers(laneID, board) {
  const base = "/api/lanes/" + encodeURIComponent(laneID);
  let stats = null; // the numbers as the board or the API last gave them
  let games = null; // the games as last answered
  let gamesOf = ""; // the board they were asked for
  let askedStats = false;
  const render = () => {
    const b = board();
    const table = statsTable(stats);
    $("#stats").hidden = !b || table.empty || (b.phase === "waiting" && !b.series);
    $("#stats-table thead").replaceChildren(table.head);
    $("#stats-table tbody").replaceChildren(...table.body);
    const links = exportLinks(laneID, games);
    $("#exports").hidden = !links.any;
    $("#export-links").replaceChildren(...links.items);
    const sheet = b && b.closed_at ? sheetFigures(laneID, games) : [];
    $("#sheet").hidden = sheet.length === 0;
    $("#sheet-games").replaceChildren(...sheet);
  };
  const askStats = asker(base + "/stats", (body) => { stats = body; render(); });
  const askGames = asker(base + "/games", (body) => { games = body; render(); });
  return {
    render,
    // refresh takes the numbers board b carries, and asks for the games
    // when one has finished: their exports. Only a night kept before
    // boards carried numbers is asked for them, once.
    refresh(b) {
      const series = JSON.stringify(b.series || []);
      if (Array.isArray(b.stats) || !b.closed_at) {
        stats = { players: b.stats || [] };
        render();
      } else if (!askedStats) {
        askedStats = true;
        askStats();
      }
      if (b.phase === "finished" || b.series || b.closed_at) {
        const of = `${b.phase === "finished"} ${series}`;
        if (gamesOf !== of) {
          gamesOf = of;
          askGames();
        }
      }
    },
  };
}
