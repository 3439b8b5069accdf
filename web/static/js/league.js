// A league's page, "/leagues/{id}", for everyone: its rules, the night
// in play with its lanes, the standings (teams and bowlers), the last
// night's matches, the schedule and the history of its changes; printed,
// the weekly recap. A device holding the league's secretary key (kept in
// localStorage, sent as "Authorization: Secretary <key>", never in a
// URL) has the secretary's controls too: open the next night (absent
// bowlers, substitutes), close the night, enter or correct a score. A key
// the server does not take shows no controls.
import { $, el, say } from "./dom.js";
import { t, applyStatic, getLang, num, list, langSwitch } from "./i18n.js";
import { secretaryKey, keepSecretaryKey, forgetSecretaryKey, takeCreated, refusal, refusalNodes, pointsText } from "./league-common.js";
import { qrImage, validInvite } from "./invite.js";

const id = decodeURIComponent((location.pathname.match(/^\/leagues\/([^/]+)$/) || [])[1] || "");
const api = "/api/leagues/" + encodeURIComponent(id);

// historyPage is how many changes the page shows at first, and more.
const historyPage = 50;

// refreshEvery is how often, in ms, a page shown while a night is in
// play reads the league again: the bowlers' scores come in from the lanes.
const refreshEvery = 15000;

const state = {
  league: null, // GET /api/leagues/{id}
  standings: null, // GET …/standings
  history: [], // every change, oldest first
  shownChanges: historyPage,
  key: secretaryKey(id),
  secretary: false, // the key is the league's, as the server said
  keyShown: false, // the key notice is up (once, just created)
  status: () => "", // what the status line says
  secretaryError: null, // the last refusal of a secretary's command
  keyError: () => "", // why a key typed was not taken
  done: () => "", // what the secretary's last command did
  draft: { absent: new Set(), subs: {} }, // the opening being ticked
  // The night in play's invitations, one per team of each match (the
  // opening's answer, or GET …/weeks/{n}/invites): the secretary's only,
  // never in the public league's JSON or on its TV. { week, matches:
  // [{ home, away, lane, home_invite, away_invite }] }, or null.
  invites: null,
};

// ask fetches a path of the league's API and answers its JSON, or throws
// the refusal.
async function ask(path) {
  const res = await fetch(api + path, { cache: "no-store" });
  if (!res.ok) throw await refusal(res);
  return res.json();
}

// command sends a secretary's command with this device's key: the
// response, ok or not.
function command(path, body) {
  return fetch(api + path, {
    method: "POST", cache: "no-store",
    headers: { "Content-Type": "application/json", Authorization: "Secretary " + state.key },
    body: body === undefined ? "" : JSON.stringify(body),
  });
}

// probe asks the server whether key is the secretary's (GET …/secretary,
// which changes nothing): 204 for the secretary's, 403 for any other. It
// answers true, false, or the refusal when the server could not say.
async function probe(key) {
  const res = await fetch(api + "/secretary", {
    cache: "no-store", headers: { Authorization: "Secretary " + key },
  });
  if (res.status === 403) return false;
  if (res.status === 204) return true;
  return refusal(res);
}

async function loadHistory() {
  const all = [];
  let after = "";
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ limit: "1000" });
    if (after) q.set("after", after);
    const h = await ask("/history?" + q);
    all.push(...(h.records || []));
    if (!h.next) break;
    after = h.next;
  }
  state.history = all;
}

// load reads the league, its standings and its history, and draws them.
async function load() {
  const [league, standings] = await Promise.all([ask(""), ask("/standings"), loadHistory()]);
  state.league = league;
  state.standings = standings;
  render();
  loadInvites();
}

function setStatus(f) {
  state.status = f;
  $("#league-status").textContent = f();
}

// seasonOver says whether every night of the league has been bowled.
const seasonOver = (l) => l.week > l.schedule.length;

// rulesText says the league's rules in a line.
function rulesText(l) {
  const hcp = l.handicap && l.handicap.percent > 0 ? t("rulesHandicap", l.handicap.percent, l.handicap.basis) : t("rulesScratch");
  return t("rulesLine", l.games_per_night, hcp, l.points.per_game, l.points.per_series, l.schedule.length);
}

// opening is the record of week w's opening, if it has one.
const opening = (w) => state.history.find((r) => r.kind === "opened" && r.week === w) || null;

function render() {
  const l = state.league;
  if (!l) return;
  $("#league-name").textContent = l.name;
  document.title = t("leagueTitle", l.name);
  $("#league-rules").textContent = rulesText(l);
  $("#league-body").hidden = false;
  renderKeyNotice();
  renderTonight();
  renderSecretary();
  renderStandings();
  renderNight();
  renderRecap();
  renderSchedule();
  renderHistory();
}

function renderKeyNotice() {
  $("#key-notice").hidden = !state.keyShown;
  if (state.keyShown) $("#key-value").value = state.key;
}

// matchItem is a match, with its lane's link and QR code once opened:
// a link to watch. The secretary's page adds each team's invitation.
function matchItem(m, withQR) {
  const li = el("li", { class: "match", "data-home": m.home, "data-away": m.away },
    el("span", { class: "teams", text: t("versus", m.home, m.away) }));
  if (m.lane) {
    li.dataset.lane = m.lane;
    li.append(" ", el("a", { class: "lane-link", href: "/lanes/" + encodeURIComponent(m.lane), text: t("laneLink") },
      el("span", { class: "visually-hidden", text: " " + t("versus", m.home, m.away) })));
    if (withQR) {
      const qr = el("img", { class: "lane-qr", alt: t("laneQRAlt", m.home, m.away), width: 144, height: 144, hidden: true });
      qr.onload = () => { qr.hidden = false; };
      qr.onerror = () => { qr.hidden = true; };
      qr.src = "/api/lanes/" + encodeURIComponent(m.lane) + "/qr.png";
      li.append(qr);
      const inv = withQR && state.secretary ? matchInvites(m) : null;
      if (inv) li.append(teamInvites(m, inv));
    }
  }
  return li;
}

// matchInvites is the invitations of match m's teams, from the night's,
// or null if the page has none for its lane.
function matchInvites(m) {
  const inv = state.invites;
  if (!inv || inv.week !== state.league.week || !Array.isArray(inv.matches)) return null;
  const got = inv.matches.find((x) => x.lane === m.lane);
  return got && validInvite(got.home_invite) && validInvite(got.away_invite) ? got : null;
}

// teamInvites shows, for the secretary, each team's link to the lane
// with its invitation, and its QR code: it seats that team's bowlers
// only. The QR code's invitation goes to the server in a header.
function teamInvites(m, inv) {
  const box = el("div", { class: "team-invites" });
  for (const [team, code] of [[m.home, inv.home_invite], [m.away, inv.away_invite]]) {
    const href = "/lanes/" + encodeURIComponent(m.lane) + "#invite=" + code;
    const qr = el("img", { class: "team-qr", alt: t("teamQRAlt", team, m.home, m.away), width: 144, height: 144, hidden: true });
    qr.onload = () => { qr.hidden = false; };
    qr.onerror = () => { qr.hidden = true; };
    qrImage("/api/lanes/" + encodeURIComponent(m.lane) + "/qr.png", code).then((src) => { if (src) qr.src = src; });
    box.append(el("figure", { class: "team-invite", "data-team": team },
      qr,
      el("figcaption", {}, el("a", { class: "team-link", href, text: t("teamInviteLink", team) }))));
  }
  return box;
}

// loadInvites asks the server, as the secretary, for the invitations of
// the night in play, once a night: a page opened after the night was
// (the opening's answer carried them to the page that opened it).
async function loadInvites() {
  const l = state.league;
  if (!state.secretary || !l || !l.open || (state.invites && state.invites.week === l.week)) return;
  let got = { week: l.week, matches: [] };
  try {
    const res = await fetch(api + `/weeks/${l.week}/invites`, { cache: "no-store", headers: { Authorization: "Secretary " + state.key } });
    if (res.ok) got = await res.json();
    // A server from before league invitations has no such address: its
    // league lanes seat anyone, and there is nothing to say.
    else if (res.status === 404) got.none = true;
  } catch { /* shown as missing: the lanes' links still let bowlers watch */ }
  if (!state.league || state.league.week !== l.week) return;
  state.invites = { ...got, week: l.week };
  renderTonight();
}

function renderTonight() {
  const l = state.league;
  const over = seasonOver(l);
  $("#tonight-head").textContent = over ? t("seasonOver") : l.open ? t("weekTonight", l.week) : t("weekNext", l.week);
  $("#tonight-head").tabIndex = -1;
  const week = over ? null : l.schedule[l.week - 1];
  const shown = $("#tonight-matches");
  // Only the secretary's page has the teams' invitations, and says what
  // they are for; or that the server gave none.
  const invites = state.secretary && l.open && !over && state.invites && state.invites.week === l.week && !state.invites.none;
  const any = invites && week.matches.some((m) => m.lane && matchInvites(m));
  $("#team-invites-note").hidden = !invites;
  $("#team-invites-note").textContent = invites ? t(any ? "teamInvitesHint" : "teamInvitesMissing") : "";
  const key = JSON.stringify([getLang(), week, invites ? state.invites : null]);
  if (shown.dataset.key === key) return; // the QR codes stay as they are
  shown.dataset.key = key;
  shown.replaceChildren(...(week ? week.matches.map((m) => matchItem(m, l.open)) : []));
}

function renderSecretary() {
  const l = state.league;
  $("#secretary").hidden = !state.secretary;
  $("#key-entry").hidden = state.secretary;
  $("#key-error").textContent = state.keyError();
  $("#secretary-error").replaceChildren(...(state.secretaryError ? refusalNodes(state.secretaryError) : []));
  $("#secretary-done").textContent = state.done();
  if (!state.secretary) return;
  const over = seasonOver(l);
  $("#open-form").hidden = over || l.open;
  $("#close-part").hidden = !l.open;
  $("#open-head").textContent = t("openWeekHead", l.week);
  $("#open-week").textContent = t("openWeek", l.week);
  $("#close-head").textContent = t("closeWeekHead", l.week);
  $("#close-week").textContent = t("closeWeek", l.week);
  if (!over && !l.open) renderOpenTeams();

  // The score form: every bowler of the league, and the substitutes the
  // nights have had; the week of the night in play, or the last.
  const bowler = $("#score-bowler");
  const chosen = bowler.value;
  const groups = l.teams.map((team) => el("optgroup", { label: team.name }, ...team.bowlers.map((b) => el("option", { value: b.name, text: b.name }))));
  const subs = [...new Set(state.history.filter((r) => r.kind === "opened").flatMap((r) => (r.substitutes || []).map((s) => s.name)))];
  if (subs.length) groups.push(el("optgroup", { label: t("substitutes") }, ...subs.map((n) => el("option", { value: n, text: n }))));
  bowler.replaceChildren(...groups);
  if (chosen) bowler.value = chosen;
  const game = $("#score-game");
  const g = game.value;
  game.replaceChildren(...Array.from({ length: l.games_per_night }, (_, i) => el("option", { value: String(i + 1), text: t("gameN", i + 1) })));
  if (g) game.value = g;
  fillOptions($("#ball-frame"), 10, (n) => String(n));
  fillOptions($("#ball-ball"), 3, (n) => String(n));
  const week = $("#score-week");
  week.max = String(l.schedule.length);
  if (!week.value) week.value = String(l.open ? l.week : Math.max(1, l.week - 1));
  renderLaneForm(l);
}

// renderLaneForm fills the form of the secretary's commands on tonight's
// lanes (a league lane has no host among its bowlers): shown while a
// night is open, with its matches and the bowlers of the match chosen.
function renderLaneForm(l) {
  $("#lane-form").hidden = !l.open;
  if (!l.open) return;
  const matches = l.schedule[l.week - 1].matches;
  const match = $("#lane-match");
  const key = JSON.stringify([getLang(), l.week, matches]);
  const first = match.dataset.key !== key;
  if (first) {
    const m = match.value;
    match.dataset.key = key;
    match.replaceChildren(...matches.map((x, i) => el("option", { value: String(i + 1), text: t("versus", x.home, x.away) })));
    if (m && Number(m) <= matches.length) match.value = m;
  }
  renderLaneBowlers(l);
  fillOptions($("#lane-frame"), 10, (n) => String(n));
  fillOptions($("#lane-ball"), 3, (n) => String(n));
  if (first) fillUp();
}

// renderLaneBowlers lists the bowlers of the match chosen: both teams'
// rosters, and tonight's substitutes.
function renderLaneBowlers(l) {
  const x = l.schedule[l.week - 1].matches[Number($("#lane-match").value) - 1];
  if (!x) return;
  const sel = $("#lane-bowler");
  const chosen = sel.value;
  const op = opening(l.week);
  const subs = op ? op.substitutes || [] : [];
  sel.replaceChildren(...[x.home, x.away].map((name) => {
    const team = l.teams.find((tm) => tm.name === name);
    const names = team ? team.bowlers.map((b) => b.name) : [];
    names.push(...subs.filter((sub) => names.includes(sub.for)).map((sub) => sub.name));
    return el("optgroup", { label: name }, ...names.map((n) => el("option", { value: n, text: n })));
  }));
  if (chosen) sel.value = chosen;
}

// fillUp sets the lane form to the ball up on the chosen match's lane,
// as its board shows it: the ball a roll is for.
async function fillUp() {
  const l = state.league;
  const x = l && l.open ? l.schedule[l.week - 1].matches[Number($("#lane-match").value) - 1] : null;
  if (!x || !x.lane) return;
  let b;
  try {
    const res = await fetch("/api/lanes/" + encodeURIComponent(x.lane), { cache: "no-store" });
    if (!res.ok) return;
    b = await res.json();
  } catch {
    return; // the form keeps what it has
  }
  if (!b.up || !b.players[b.up.seat]) return;
  $("#lane-bowler").value = b.players[b.up.seat].name;
  $("#lane-frame").value = String(b.up.frame);
  $("#lane-ball").value = String(b.up.ball);
}

// fillOptions fills a select with the numbers 1 to n, once.
function fillOptions(sel, n, text) {
  if (sel.options.length === n) return;
  sel.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", { value: String(i + 1), text: text(i + 1) })));
}

// readDraft keeps what is ticked and typed in the opening's form.
function readDraft() {
  const d = { absent: new Set(), subs: {} };
  for (const box of document.querySelectorAll("#open-teams input[type=checkbox]")) {
    const name = box.dataset.bowler;
    if (!box.checked) continue;
    d.absent.add(name);
    d.subs[name] = { name: $(`#${box.dataset.sub}`).value, average: $(`#${box.dataset.subAvg}`).value };
  }
  state.draft = d;
}

function renderOpenTeams() {
  const l = state.league;
  const week = l.schedule[l.week - 1];
  const key = JSON.stringify([getLang(), l.week]);
  const box = $("#open-teams");
  if (box.dataset.key === key) return;
  if (box.dataset.key && JSON.parse(box.dataset.key)[1] === l.week) readDraft();
  else state.draft = { absent: new Set(), subs: {} };
  box.dataset.key = key;
  const byName = new Map(l.teams.map((tm) => [tm.name, tm]));
  let n = 0;
  const order = week.matches.flatMap((m) => [m.home, m.away]);
  box.replaceChildren(...order.map((name) => {
    const team = byName.get(name);
    return el("fieldset", { class: "absent-team" },
      el("legend", { text: t("absentLegend", name) }),
      ...team.bowlers.map((b) => {
        const i = n++;
        const draft = state.draft.subs[b.name] || { name: "", average: "" };
        const sub = el("div", { class: "sub fields", hidden: !state.draft.absent.has(b.name) },
          el("div", { class: "field" },
            el("label", { htmlFor: `sub-${i}`, text: t("substituteFor", b.name) }),
            el("input", { id: `sub-${i}`, value: draft.name, autocomplete: "off", maxLength: 40 })),
          el("div", { class: "field avg" },
            el("label", { htmlFor: `sub-${i}-avg` }, t("averageLabel"), el("span", { class: "visually-hidden", text: " " + t("ofSubstitute", b.name) })),
            el("input", { id: `sub-${i}-avg`, type: "number", inputMode: "numeric", min: 1, max: 300, value: draft.average })));
        const check = el("input", { type: "checkbox", id: `absent-${i}`, checked: state.draft.absent.has(b.name), "data-bowler": b.name, "data-sub": `sub-${i}`, "data-sub-avg": `sub-${i}-avg` });
        check.addEventListener("change", () => { sub.hidden = !check.checked; });
        return el("div", { class: "absent-row" },
          el("label", { class: "check", htmlFor: `absent-${i}` }, check, " ", el("span", { text: t("absentName", b.name) })),
          sub);
      }));
  }));
}

// openBody is the opening the form describes.
function openBody() {
  readDraft();
  const absent = [];
  const substitutes = [];
  for (const name of state.draft.absent) {
    const s = state.draft.subs[name];
    absent.push(name);
    if (s && s.name.trim() !== "") {
      const sub = { for: name, name: s.name.trim() };
      if (s.average.trim() !== "") {
        const n = Number(s.average);
        sub.average = Number.isInteger(n) ? n : -1;
      }
      substitutes.push(sub);
    }
  }
  const b = {};
  if (absent.length) b.absent = absent;
  if (substitutes.length) b.substitutes = substitutes;
  return b;
}

function renderStandings() {
  const s = state.standings;
  $("#standings-head").textContent = s.week > 0 ? t("standingsAfter", s.week) : t("standingsHead");
  $("#recap-date").textContent = t("recapAsOf", new Date().toLocaleString(getLang() === "ko" ? "ko-KR" : "en-GB", { dateStyle: "long", timeStyle: "short" }));
  $("#team-standings tbody").replaceChildren(...s.teams.map((tm, i) => {
    const tr = el("tr", { "data-team": tm.name },
      el("td", { class: "num", text: num(i + 1) }),
      el("th", { scope: "row", class: "name", text: tm.name }),
      el("td", { class: "num", text: pointsText(tm.points_won) }),
      el("td", { class: "num", text: pointsText(tm.points_lost) }),
      ...[tm.pins_scratch, tm.pins_handicap, tm.high_game, tm.high_series].map((v) => el("td", { class: "num", text: num(v) })));
    return tr;
  }));
  $("#bowler-standings tbody").replaceChildren(...s.bowlers.map((b) => el("tr", { "data-bowler": b.name },
    el("th", { scope: "row", class: "name", text: b.name }),
    el("td", { class: "name", text: b.team }),
    ...[b.games, b.pins, b.average, b.handicap, b.high_game, b.high_series].map((v) => el("td", { class: "num", text: num(v) })))));
}

// nightWeek is the night the recap shows: the one in play, or else the
// last closed.
function nightWeek() {
  const l = state.league;
  if (l.open) return l.week;
  return state.standings.week;
}

function renderNight() {
  const l = state.league;
  const w = nightWeek();
  $("#night").hidden = !w;
  if (!w) return;
  $("#night-head").textContent = l.open ? t("nightInPlayHead", w) : t("nightHead", w);
  const scores = new Map(); // name → [game scores]
  for (const r of state.history) {
    if (r.week !== w || (r.kind !== "scored" && r.kind !== "corrected") || typeof r.score !== "number") continue;
    if (!scores.has(r.bowler)) scores.set(r.bowler, []);
    scores.get(r.bowler)[r.game - 1] = r.score;
  }
  const opened = opening(w);
  const absent = new Set(opened ? opened.absent || [] : []);
  const subFor = new Map((opened ? opened.substitutes || [] : []).map((s) => [s.for, s]));
  for (const s of subFor.keys()) absent.add(s);
  const games = l.games_per_night;
  const byName = new Map(l.teams.map((tm) => [tm.name, tm]));
  const line = (name, label) => {
    const gs = scores.get(name) || [];
    const bowled = gs.filter((x) => typeof x === "number");
    return el("tr", { "data-bowler": name },
      el("th", { scope: "row", class: "name", text: label }),
      ...Array.from({ length: games }, (_, i) => el("td", { class: "num", text: typeof gs[i] === "number" ? num(gs[i]) : "" })),
      el("td", { class: "num series", text: bowled.length ? num(bowled.reduce((a, b) => a + b, 0)) : "" }));
  };
  $("#night-matches").replaceChildren(...l.schedule[w - 1].matches.map((m) => el("table", { class: "league-table night-table" },
    el("caption", { text: t("versus", m.home, m.away) }),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "name", text: t("colBowler") }),
      ...Array.from({ length: games }, (_, i) => el("th", { scope: "col", class: "num", text: t("gameShort", i + 1) })),
      el("th", { scope: "col", class: "num", text: t("colSeries") }))),
    ...[m.home, m.away].map((name) => el("tbody", {},
      el("tr", { class: "team-row" }, el("th", { scope: "rowgroup", colSpan: games + 2, text: name })),
      ...byName.get(name).bowlers.map((b) => {
        if (!absent.has(b.name)) return line(b.name, b.name);
        const s = subFor.get(b.name);
        if (s) return line(s.name, t("subFor", s.name, b.name));
        return el("tr", { "data-bowler": b.name, class: "absent" },
          el("th", { scope: "row", class: "name", text: b.name }),
          el("td", { colSpan: games + 1, class: "absent", text: t("absentShort") }));
      }))))));
}

function renderRecap() {
  const l = state.league;
  $("#recap-csv").href = api + "/recap.csv";
  $("#recap-svg").href = api + "/recap.svg" + (getLang() === "ko" ? "?lang=ko" : "");
  const q = new URLSearchParams({ league: id });
  const lanes = l.open ? l.schedule[l.week - 1].matches.map((m) => m.lane).filter(Boolean).slice(0, 3) : [];
  if (lanes.length) q.set("lanes", lanes.join(","));
  if (getLang() === "ko") q.set("lang", "ko");
  $("#recap-tv").href = "/tv?" + q.toString().replace(/%2C/g, ",");
}

function renderSchedule() {
  const l = state.league;
  $("#weeks").replaceChildren(...l.schedule.map((w) => {
    const closed = w.week < l.week;
    const what = w.week === l.week ? (l.open ? t("weekOpen") : t("weekNextShort")) : closed ? t("weekClosed") : "";
    return el("li", { "data-week": String(w.week), class: w.week === l.week ? "current" : "" },
      el("h4", {}, t("weekN", w.week), what ? el("span", { class: "hint", text: " · " + what }) : ""),
      el("ul", { class: "matches" }, ...w.matches.map((m) => matchItem(m, false))));
  }));
}

// changeText says what a change of the league's history did.
function changeText(r) {
  switch (r.kind) {
    case "opened": {
      const subs = (r.substitutes || []).map((s) => t("subFor", s.name, s.for));
      const absent = (r.absent || []).filter((n) => !(r.substitutes || []).some((s) => s.for === n));
      return t("changeOpened", r.week, absent.length ? list(absent) : "", subs.length ? list(subs) : "");
    }
    case "scored": return t("changeScored", r.bowler, r.week, r.game, r.score);
    case "corrected":
      if (r.frame) return t("changeCorrectedBall", r.bowler, r.week, r.game, r.frame, r.ball, r.pins_was, r.pins, r.was, r.score);
      return t("changeCorrected", r.bowler, r.week, r.game, r.was, r.score);
    case "closed": return t("changeClosed", r.week);
  }
  return r.kind;
}

function byText(by) {
  if (by === "secretary") return t("bySecretary");
  const lane = /^lane (.+)$/.exec(by);
  return lane ? t("byLane", lane[1]) : by;
}

function renderHistory() {
  const when = (at) => new Date(at).toLocaleString(getLang() === "ko" ? "ko-KR" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
  const newest = state.history.slice().reverse().slice(0, state.shownChanges);
  $("#changes").replaceChildren(...newest.map((r) => el("li", { "data-n": String(r.n), "data-kind": r.kind },
    el("span", { class: "what", text: changeText(r) }), " ",
    el("span", { class: "hint", text: t("changeBy", byText(r.by), when(r.at)) }))));
  $("#more-changes").hidden = state.history.length <= state.shownChanges;
  if (!state.history.length) $("#changes").replaceChildren(el("li", { class: "hint", text: t("noChanges") }));
}

// act runs a secretary's command: on success it says what it did, and
// the page is read again; a refusal is shown, and a key the server no
// longer takes hides the controls.
async function act(path, body, done, focus, take) {
  state.secretaryError = null;
  state.done = () => "";
  renderSecretary();
  let res;
  try {
    res = await command(path, body);
  } catch {
    state.secretaryError = { code: "unknown", message: "" };
    renderSecretary();
    $("#secretary-error").textContent = t("leagueUnreachable");
    return;
  }
  if (!res.ok) {
    const r = await refusal(res);
    if (r.code === "not_secretary") {
      forgetSecretaryKey(id);
      state.key = "";
      state.secretary = false;
      state.invites = null;
      state.keyError = () => t("keyNotTaken");
    } else {
      state.secretaryError = r;
    }
    render();
    say(document.querySelector(state.secretary ? "#secretary-error" : "#key-error").textContent);
    return;
  }
  state.done = done(res.status === 204);
  if (take) await take(res);
  await load();
  say(state.done());
  if (focus) {
    const f = $(focus);
    if (f) { f.tabIndex = -1; f.focus(); }
  }
}

function wire() {
  $("#open-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const w = state.league.week;
    const body = openBody();
    // The opening's answer carries each match's teams' invitations.
    act(`/weeks/${w}/open`, body, () => () => t("weekOpened", w), "#tonight-head", async (res) => {
      try {
        const opened = await res.json();
        if (opened && Array.isArray(opened.matches)) state.invites = { ...opened, week: w };
      } catch { /* no body: asked for with GET …/invites */ }
    });
  });
  $("#close-week").addEventListener("click", () => {
    const w = state.league.week;
    act(`/weeks/${w}/close`, undefined, () => () => t("weekClosedSaid", w), "#standings-head");
  });
  $("#score-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const s = { week: Number($("#score-week").value) || 0, bowler: $("#score-bowler").value, game: Number($("#score-game").value) || 0, score: $("#score-score").value.trim() === "" ? -1 : Number($("#score-score").value) };
    if (ev.submitter && ev.submitter.id === "save-ball") {
      const pins = $("#ball-pins").value.trim() === "" ? -1 : Number($("#ball-pins").value);
      const b = { week: s.week, bowler: s.bowler, game: s.game, frame: Number($("#ball-frame").value) || 0, ball: Number($("#ball-ball").value) || 0, pins: Number.isInteger(pins) ? pins : -1 };
      act("/balls", b, () => () => {
        const r = state.history[state.history.length - 1];
        return t("ballSaved", b.bowler, b.week, b.game, b.frame, b.ball, b.pins, r && r.kind === "corrected" ? r.score : "");
      });
      return;
    }
    if (!Number.isInteger(s.score)) s.score = -1;
    act("/scores", s, (same) => () => same ? t("scoreSame", s.bowler, s.week, s.game, s.score) : t("scoreSaved", s.bowler, s.week, s.game, s.score));
  });
  $("#lane-match").addEventListener("change", () => {
    renderLaneBowlers(state.league);
    fillUp();
  });
  $("#lane-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const path = `/weeks/${state.league.week}/matches/${$("#lane-match").value}/`;
    const what = ev.submitter ? ev.submitter.id : "lane-roll";
    const name = $("#lane-bowler").value;
    if (what === "lane-skip") {
      await act(path + "skip", undefined, () => () => t("laneSkipped"));
    } else if (what === "lane-remove") {
      await act(path + "remove", { name }, () => () => t("laneRemoved", name));
    } else {
      const pins = $("#lane-pins").value.trim() === "" ? -1 : Number($("#lane-pins").value);
      const b = { name, frame: Number($("#lane-frame").value) || 0, ball: Number($("#lane-ball").value) || 0, pins: Number.isInteger(pins) ? pins : -1 };
      const cmd = what === "lane-correct" ? "correct" : "roll";
      await act(path + cmd, b, () => () => t(cmd === "roll" ? "laneRolled" : "laneCorrected", name, b.frame, b.ball, b.pins));
    }
    fillUp();
  });
  $("#key-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const key = $("#key-input").value.trim();
    if (!key) return;
    let ok;
    try {
      ok = await probe(key);
    } catch {
      ok = { code: "unknown", message: "" };
    }
    if (ok === true) {
      keepSecretaryKey(id, key);
      state.key = key;
      state.secretary = true;
      state.keyError = () => "";
      $("#key-input").value = "";
      render();
      loadInvites();
      say(t("keyTaken"));
      $("#secretary-head").tabIndex = -1;
      $("#secretary-head").focus();
      return;
    }
    state.keyError = ok === false ? () => t("keyNotTaken") : () => t("keyNotChecked");
    renderSecretary();
    say($("#key-error").textContent);
  });
  $("#copy-key").addEventListener("click", async () => {
    const input = $("#key-value");
    input.select();
    let copied = false;
    try {
      await navigator.clipboard.writeText(input.value);
      copied = true;
    } catch {
      try { copied = document.execCommand("copy"); } catch { copied = false; }
    }
    $("#key-copied").textContent = copied ? t("keyCopied") : t("keySelect");
  });
  $("#more-changes").addEventListener("click", () => {
    state.shownChanges += historyPage;
    renderHistory();
  });
  $("#print").addEventListener("click", () => window.print());
  langSwitch(() => {
    $("#league-status").textContent = state.status();
    if (state.league) render();
    else document.title = t("leagueTitle", "");
  });
}

async function start() {
  applyStatic();
  document.title = t("leagueTitle", "");
  wire();
  if (!id) {
    setStatus(() => t("noSuchLeague"));
    return;
  }
  try {
    await load();
  } catch (r) {
    if (r && r.code === "league_not_found") setStatus(() => t("noSuchLeague"));
    else setStatus(() => t("leagueUnreachable"));
    return;
  }
  // A key this device keeps is the secretary's if the server says so.
  if (state.key) {
    state.keyShown = takeCreated(id);
    let ok;
    try {
      ok = await probe(state.key);
    } catch {
      ok = null;
    }
    state.secretary = ok === true;
    loadInvites();
    if (ok === false) {
      forgetSecretaryKey(id);
      state.key = "";
      state.keyShown = false;
      state.keyError = () => t("keyNotTaken");
    } else if (ok !== true) {
      state.keyError = () => t("keyNotChecked");
    }
    render();
  }
}

await start();
setInterval(async () => {
  if (document.hidden || !state.league || !state.league.open) return;
  try {
    await load();
  } catch { /* the next turn asks again */ }
}, refreshEvery);
// For tests and the console: what the page knows.
window.tenpin = { state };
