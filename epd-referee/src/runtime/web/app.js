// The live display of Argus: renders /api/events (Server-Sent Events)
// into boards, clocks, moves, standings and finished games. Everything
// it needs is served by the referee; it loads nothing from elsewhere.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const GLYPH = { k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };
const FILES = "abcdefgh";
let current = null; // the last state
let received = 0; // performance.now() when it came

function el(tag, attrs, ...children) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  }
  for (const c of children) e.append(c);
  return e;
}

// The pieces of a FEN's placement: [{square: "e1", piece: "wK"}, ...].
function pieces(fen) {
  const out = [];
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= "1" && ch <= "8") {
        file += Number(ch);
      } else {
        const color = ch === ch.toUpperCase() ? "w" : "b";
        out.push({ square: FILES[file] + (8 - i), piece: color + ch.toUpperCase(), glyph: GLYPH[ch.toLowerCase()] });
        file += 1;
      }
    }
  });
  return out;
}

function board(game) {
  const size = 45;
  const svg = el("svg:svg", {
    class: "board", viewBox: `0 0 ${8 * size} ${8 * size}`, role: "img",
    "data-fen": game.fen, "aria-label": `position ${game.fen}`,
  });
  const last = new Set(game.last || []);
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const sq = FILES[f] + (8 - r);
      svg.append(el("svg:rect", {
        x: f * size, y: r * size, width: size, height: size,
        class: (r + f) % 2 === 0 ? "light" : "dark", "data-square": sq,
      }));
      if (last.has(sq)) {
        svg.append(el("svg:rect", { x: f * size, y: r * size, width: size, height: size, class: "last", "data-last": sq }));
      }
    }
  }
  // Coordinates as on a printed board: the ranks in the a-file's squares
  // (top left), the files in the first rank's (bottom right), each in the
  // colour of the other squares so that it reads on its own.
  const shade = (r, f) => ((r + f) % 2 === 0 ? "on-light" : "on-dark");
  for (let i = 0; i < 8; i++) {
    svg.append(el("svg:text", { x: 2, y: i * size + 2, class: `coord rank ${shade(i, 0)}`, "data-rank": 8 - i }, String(8 - i)));
    svg.append(el("svg:text", {
      x: (i + 1) * size - 2, y: 8 * size - 2, class: `coord file ${shade(7, i)}`, "data-file": FILES[i],
    }, FILES[i]));
  }
  for (const p of pieces(game.fen)) {
    const f = FILES.indexOf(p.square[0]);
    const r = 8 - Number(p.square[1]);
    svg.append(el("svg:text", {
      x: f * size + size / 2, y: r * size + size / 2 + 1,
      class: `piece ${p.piece[0]}`, "data-square": p.square, "data-piece": p.piece,
    }, p.glyph));
  }
  return svg;
}

// 1:02:03, 4:05, 0:42.3
function clockText(ms) {
  ms = Math.max(0, Math.floor(ms));
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, "0");
  if (h > 0) return `${h}:${String(m).padStart(2, "0")}:${ss}`;
  if (s < 60) return `${m}:${ss}.${Math.floor((ms % 1000) / 100)}`;
  return `${m}:${ss}`;
}

function clock(game, side) {
  const base = side === "white" ? game.white_ms : game.black_ms;
  // No clock runs under time control "-": nothing to show.
  if (base === null || base === undefined) return el("span", { class: "no-clock", "data-side": side });
  const running = game.turn === side && game.thinking_ms !== null;
  const c = el("span", {
    class: "clock", "data-side": side, "data-ms": base,
    "data-thinking": running ? game.thinking_ms : null, "data-running": running ? 1 : 0,
  });
  return c;
}

// The clocks of the side to move count down from what the state said.
function tick() {
  const since = performance.now() - received;
  for (const c of document.querySelectorAll(".clock")) {
    let ms = Number(c.dataset.ms);
    if (c.dataset.thinking !== undefined) ms -= Number(c.dataset.thinking) + since;
    c.textContent = clockText(ms);
    c.dataset.low = ms < 10000 ? "1" : "0";
  }
}

function moveList(game) {
  const div = el("div", { class: "moves", "data-game": game.number, "data-moves": game.moves.length });
  const [, turn, , , , full] = game.start.split(" ");
  let number = Number(full) || 1;
  let white = turn !== "b";
  game.moves.forEach((san, i) => {
    if (white) div.append(el("span", { class: "n" }, `${number}. `));
    else if (i === 0) div.append(el("span", { class: "n" }, `${number}... `));
    div.append(el("span", { class: i === game.moves.length - 1 ? "san latest" : "san" }, san), " ");
    if (!white) number += 1;
    white = !white;
  });
  return div;
}

function token() {
  return document.getElementById("token").value.trim();
}

async function act(params) {
  const said = document.getElementById("said");
  try {
    const r = await fetch("/api/supervisor?" + new URLSearchParams(params), {
      method: "POST", headers: { Authorization: "Bearer " + token() },
    });
    said.textContent = `${r.status}: ${(await r.text()).trim()}`;
  } catch (e) {
    said.textContent = String(e);
  }
}

function actions(game) {
  const div = el("div", { class: "actions" });
  const button = (label, params) => {
    const b = el("button", { type: "button" }, label);
    b.addEventListener("click", () => act(params));
    div.append(b);
  };
  const g = String(game.number);
  if (game.paused) button("Resume", { action: "resume", game: g });
  else button("Pause", { action: "pause", game: g });
  button("1-0", { action: "adjudicate", game: g, result: "1-0" });
  button("\u00bd-\u00bd", { action: "adjudicate", game: g, result: "1/2-1/2" });
  button("0-1", { action: "adjudicate", game: g, result: "0-1" });
  return div;
}

// The last engine's word: an evaluation bar (White's share, a pawn is a
// tenth of the bar either side of the middle, mates at the ends), its
// score, depth and principal variation.
function engineLine(game) {
  const e = game.engine;
  if (!e) return el("div", { class: "engine", "data-engine": "" });
  const cp = Math.max(-1000, Math.min(1000, e.white_cp));
  const share = Math.abs(e.white_cp) >= 32000 ? (e.white_cp > 0 ? 100 : 0) : 50 + cp / 20;
  const bar = el("div", { class: "evalbar", title: `${e.side}: ${e.text}` });
  // Through the CSSOM: the page's policy refuses inline style attributes.
  const fill = el("span", {});
  fill.style.width = `${share}%`;
  bar.append(fill);
  const depth = e.depth === null ? "" : `/${e.depth}`;
  return el("div", { class: "engine", "data-engine": e.text, "data-side": e.side },
    bar, el("span", { class: "score" }, `${e.side === "white" ? "\u25cb" : "\u25cf"} ${e.text}${depth}`),
    el("span", { class: "pv" }, e.pv.join(" ")));
}

function card(game, supervising) {
  const player = (side) => {
    const name = side === "white" ? game.white : game.black;
    const away = game.away === side ? el("span", { class: "badge" }, "away") : "";
    return el("div", { class: "player", "data-side": side }, el("span", {}, (side === "white" ? "\u25cb " : "\u25cf ") + name, away), clock(game, side));
  };
  // "Round 1, game 2 of 4" (PGN Round 1.2 on hovering).
  const name = game.round_name.charAt(0).toUpperCase() + game.round_name.slice(1);
  const title = el("h3", { title: `PGN Round ${game.round}` }, name);
  if (game.paused) title.append(el("span", { class: "badge" }, "paused"));
  const c = el("article", {
    class: "game", "data-game": game.number, "data-fen": game.fen, "data-ply": game.moves.length,
    "data-paused": game.paused ? 1 : 0,
  }, title, player("black"), board(game), player("white"), engineLine(game), moveList(game));
  if (supervising) c.append(actions(game));
  return c;
}

function row(cells) {
  return el("tr", {}, ...cells.map(([text, num]) => el("td", num ? { class: "num" } : {}, String(text))));
}

function render(state) {
  current = state;
  received = performance.now();
  document.title = `Argus: ${state.event}`;
  document.getElementById("event").textContent = state.event;
  document.getElementById("meta").textContent =
    `${state.site} \u00b7 ${state.time_control} \u00b7 ${state.finished_count} of ${state.games} games over`;
  const supervising = state.supervised && token() !== "";
  document.getElementById("supervisor").hidden = !state.supervised;
  const games = document.getElementById("games");
  // The move lists follow their games: one at its end (or new) shows the
  // latest move after the update too; one a reader scrolled back in stays
  // where it was until they scroll to its end again.
  const kept = new Map();
  for (const m of games.querySelectorAll(".moves")) {
    if (m.scrollTop + m.clientHeight < m.scrollHeight - 2) kept.set(m.dataset.game, m.scrollTop);
  }
  games.replaceChildren(...state.running.map((g) => card(g, supervising)));
  for (const m of games.querySelectorAll(".moves")) {
    const top = kept.get(m.dataset.game);
    m.scrollTop = top === undefined ? m.scrollHeight : top;
  }
  document.getElementById("none").hidden = state.running.length > 0;
  document.querySelector("#standings tbody").replaceChildren(...state.standings.map((s, i) =>
    row([[i + 1, true], [s.name], [s.points, true], [s.games, true], [s.wins, true], [s.draws, true], [s.losses, true]])));
  // How each game ended in the referee's words (the PGN's last comment),
  // its PGN Termination tag on hovering.
  document.querySelector("#finished tbody").replaceChildren(...state.finished.slice().reverse().map((f) => {
    const tr = row([[f.number, true], [f.white], [f.black], [f.result], [f.reason || f.termination], [f.plies, true]]);
    tr.dataset.game = f.number;
    tr.cells[0].title = f.round_name;
    tr.cells[4].classList.add("reason");
    tr.cells[4].title = `PGN Termination: ${f.termination}`;
    return tr;
  }));
  // A match of two: the results block (score, Elo, nElo, LOS, pentanomial
  // counts, SPRT), as the log and the report have it.
  const results = document.getElementById("results");
  results.hidden = !state.results;
  results.textContent = state.results ? state.results.text : "";
  document.body.dataset.version = state.version;
  document.body.dataset.ready = "1";
  tick();
}

function connect() {
  const link = document.getElementById("link");
  const events = new EventSource("/api/events");
  events.addEventListener("open", () => { link.textContent = "live"; link.dataset.live = "1"; });
  events.addEventListener("error", () => {
    link.textContent = "reconnecting";
    link.dataset.live = "0";
    // Refused (the display has too many live pages): the browser gives
    // up, so show the state as it is and ask again later.
    if (events.readyState === EventSource.CLOSED) {
      fetch("/api/state")
        .then((r) => (r.ok ? r.json() : null))
        .then((s) => { if (s) render(s); return !s || s.live; }, () => true)
        .then((again) => { if (again) setTimeout(connect, 5000); });
    }
  });
  events.addEventListener("state", (e) => {
    const state = JSON.parse(e.data);
    render(state);
    if (!state.live) {
      events.close();
      link.textContent = "event over";
      link.dataset.live = "0";
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("token").addEventListener("input", () => { if (current) render(current); });
  for (const b of document.querySelectorAll("#supervisor button")) {
    b.addEventListener("click", () => act({ action: b.dataset.action, game: b.dataset.game }));
  }
  setInterval(tick, 100);
  connect();
});
