// The secretary's form, "/leagues/new": a league's rules and its teams,
// sent as POST /api/leagues. The server says whether the league can be,
// and why not (its reason shown beside the form); a league created, its
// secretary key is kept on this device (never in a URL) and its page
// opens, showing the key once to be kept.
import { $, el, say } from "./dom.js";
import { t, applyStatic, langSwitch } from "./i18n.js";
import { keepSecretaryKey, markCreated, refusal, refusalNodes } from "./league-common.js";

const maxTeams = 32;
const maxBowlers = 6;

// teams is the form's teams, as typed: { name, bowlers: [{ name, average }] }.
let teams = [
  { name: "", bowlers: [{ name: "", average: "" }, { name: "", average: "" }, { name: "", average: "" }] },
  { name: "", bowlers: [{ name: "", average: "" }, { name: "", average: "" }, { name: "", average: "" }] },
];

// lastRefusal is the server's last refusal, kept to say it again in
// another language.
let lastRefusal = null;

// read takes what is typed into the teams.
function read() {
  teams = teams.map((team, i) => ({
    name: $(`#team-${i}-name`).value,
    bowlers: team.bowlers.map((_, j) => ({ name: $(`#team-${i}-b-${j}`).value, average: $(`#team-${i}-a-${j}`).value })),
  }));
}

// renderTeams draws the teams: a group each, its name, its bowlers with
// their averages, and the buttons that add and remove.
function renderTeams() {
  const groups = teams.map((team, i) => {
    const legendID = `team-${i}-legend`;
    const rows = team.bowlers.map((b, j) => el("div", { class: "bowler-row", "data-bowler": String(j) },
      el("div", { class: "field" },
        el("label", { htmlFor: `team-${i}-b-${j}`, text: t("bowlerN", j + 1) }),
        el("input", { id: `team-${i}-b-${j}`, value: b.name, autocomplete: "off", maxLength: 40 })),
      el("div", { class: "field avg" },
        el("label", { htmlFor: `team-${i}-a-${j}` }, t("averageLabel"), el("span", { class: "visually-hidden", text: " " + t("ofBowlerN", j + 1) })),
        el("input", { id: `team-${i}-a-${j}`, type: "number", inputMode: "numeric", min: 1, max: 300, value: b.average })),
      el("button", { type: "button", class: "remove-bowler", disabled: team.bowlers.length <= 1, onclick: () => removeBowler(i, j) },
        t("remove"), el("span", { class: "visually-hidden", text: " " + t("bowlerOfTeam", j + 1, i + 1) }))));
    return el("fieldset", { class: "team-edit", "data-team": String(i) },
      el("legend", { id: legendID, text: t("teamN", i + 1) }),
      el("div", { class: "field wide" },
        el("label", { htmlFor: `team-${i}-name`, text: t("teamName") }),
        el("input", { id: `team-${i}-name`, value: team.name, autocomplete: "off", maxLength: 40 })),
      ...rows,
      el("p", { class: "actions" },
        el("button", { type: "button", class: "add-bowler", disabled: team.bowlers.length >= maxBowlers, onclick: () => addBowler(i) },
          t("addBowler"), el("span", { class: "visually-hidden", text: " " + t("toTeamN", i + 1) })),
        el("button", { type: "button", class: "remove-team", disabled: teams.length <= 2, onclick: () => removeTeam(i) },
          t("removeTeam"), el("span", { class: "visually-hidden", text: " " + t("teamN", i + 1) }))));
  });
  $("#teams").replaceChildren(...groups);
  $("#add-team").disabled = teams.length >= maxTeams;
}

function addBowler(i) {
  read();
  teams[i].bowlers.push({ name: "", average: "" });
  renderTeams();
  $(`#team-${i}-b-${teams[i].bowlers.length - 1}`).focus();
}

function removeBowler(i, j) {
  read();
  teams[i].bowlers.splice(j, 1);
  renderTeams();
  $(`#team-${i}-b-${Math.min(j, teams[i].bowlers.length - 1)}`).focus();
  say(t("bowlerRemoved"));
}

function addTeam() {
  read();
  teams.push({ name: "", bowlers: [{ name: "", average: "" }] });
  renderTeams();
  $(`#team-${teams.length - 1}-name`).focus();
}

function removeTeam(i) {
  read();
  teams.splice(i, 1);
  renderTeams();
  $(`#team-${Math.min(i, teams.length - 1)}-name`).focus();
  say(t("teamRemoved"));
}

// whole is a number input's whole number, or fallback when it is empty;
// what is no number is sent as it is, for the server to refuse.
function whole(sel, fallback = 0) {
  const v = $(sel).value.trim();
  if (v === "") return fallback;
  const n = Number(v);
  return Number.isInteger(n) ? n : -1;
}

// body is the league the form describes, as POST /api/leagues takes it:
// a bowler's row with neither name nor average is left out.
function body() {
  read();
  const b = {
    name: $("#lg-name").value,
    games_per_night: whole("#lg-games"),
    points: { per_game: whole("#lg-per-game"), per_series: whole("#lg-per-series") },
    absent_minus: whole("#lg-absent"),
    vacancy_score: whole("#lg-vacancy"),
    teams: teams.map((team) => ({
      name: team.name,
      bowlers: team.bowlers.filter((p) => p.name.trim() !== "" || p.average.trim() !== "").map((p) => {
        const out = { name: p.name };
        if (p.average.trim() !== "") {
          const n = Number(p.average);
          out.average = Number.isInteger(n) ? n : -1;
        }
        return out;
      }),
    })),
  };
  const weeks = whole("#lg-weeks", null);
  if (weeks !== null) b.weeks = weeks;
  if (!$("#lg-scratch").checked) b.handicap = { basis: whole("#lg-basis"), percent: whole("#lg-percent") };
  return b;
}

function showRefusal() {
  $("#create-error").replaceChildren(...(lastRefusal ? refusalNodes(lastRefusal) : []));
}

async function submit(ev) {
  ev.preventDefault();
  const button = $("#create-league");
  button.disabled = true;
  lastRefusal = null;
  showRefusal();
  try {
    const res = await fetch("/api/leagues", {
      method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body()),
    });
    if (res.status !== 201) {
      lastRefusal = await refusal(res);
      showRefusal();
      return;
    }
    const created = await res.json();
    keepSecretaryKey(created.id, created.secretary_key);
    markCreated(created.id);
    location.assign("/leagues/" + encodeURIComponent(created.id));
  } catch {
    lastRefusal = { code: "unknown", message: "" };
    $("#create-error").textContent = t("leagueUnreachable");
  } finally {
    button.disabled = false;
  }
}

function scratch() {
  const on = $("#lg-scratch").checked;
  $("#lg-hcp").hidden = on;
}

applyStatic();
document.title = t("newLeagueTitle") + " — tenpin";
renderTeams();
scratch();
$("#lg-scratch").addEventListener("change", scratch);
$("#add-team").addEventListener("click", addTeam);
$("#league-form").addEventListener("submit", submit);
langSwitch(() => {
  document.title = t("newLeagueTitle") + " — tenpin";
  read();
  renderTeams();
  if (lastRefusal && lastRefusal.code !== "unknown") showRefusal();
  else if (lastRefusal) $("#create-error").textContent = t("leagueUnreachable");
});
// For tests and the console: the league the form describes.
window.tenpin = { body };
