"use strict";
// The boardgym play page: picks a game and its players, shows the board the server draws,
// sends clicks on its legal moves (SVG elements with data-action), asks the server for the
// agents' moves, and shows each agent's search over the position it chose in.
// The address may preset the form: /?game=hex&param.size=7&seat0=human&seat1=random&start=1

const $ = (id) => document.getElementById(id);
const OTHER = "__other__";
let meta = null;
let view = null;
let paused = false;
let busy = false;
let agentTimer = null;

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (method !== "GET") {  // every request that changes something is JSON, an empty object at least
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body ?? {});
  }
  const response = await fetch(path, options);
  let data;
  try {
    data = await response.json();
  } catch (error) {
    data = { error: `the server answered ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function message(text, kind) {
  $("message").textContent = text || "";
  $("message").className = kind || "";
}

function seconds(value) {
  if (value === null || value === undefined) return "–";
  return value < 1 ? `${(value * 1000).toFixed(value < 0.01 ? 2 : 0)} ms` : `${value.toFixed(2)} s`;
}

function gameMeta(name) {
  return meta.games.find((game) => game.name === name);
}

// -- the form -------------------------------------------------------------------------------
function option(select, value, text) {
  const item = document.createElement("option");
  item.value = value;
  item.textContent = text;
  select.appendChild(item);
}

function buildSetup(preset) {
  const game = gameMeta($("game").value);
  $("game-summary").textContent = game.summary;
  const params = $("params");
  params.innerHTML = "";
  for (const param of game.params) {
    const label = document.createElement("label");
    label.textContent = param.name;
    const input = document.createElement("input");
    input.type = "text";
    input.name = `param-${param.name}`;
    input.value = preset.get(`param.${param.name}`) ?? param.default;
    label.appendChild(input);
    params.appendChild(label);
  }
  const seats = $("seats");
  seats.innerHTML = "";
  for (let seat = 0; seat < game.players; seat++) {
    const label = document.createElement("label");
    label.className = "seat";
    label.textContent = game.players === 1 ? "Player" : `Player ${seat}${seat === 0 ? " (moves first)" : ""}`;
    const select = document.createElement("select");
    select.id = `seat${seat}`;
    option(select, "human", "you");
    for (const spec of game.agents) option(select, spec, spec);
    for (const checkpoint of meta.checkpoints) option(select, checkpoint.name, `${checkpoint.name} (${checkpoint.agent})`);
    option(select, OTHER, "other spec…");
    const spec = document.createElement("input");
    spec.type = "text";
    spec.className = "spec";
    spec.id = `seat${seat}-spec`;
    spec.placeholder = "e.g. mcts:simulations=800";
    const wanted = preset.get(`seat${seat}`) ?? (seat === 0 ? "human" : game.agents.includes("mcts:simulations=300") ? "mcts:simulations=300" : game.agents[0]);
    if ([...select.options].some((item) => item.value === wanted)) {
      select.value = wanted;
    } else {
      select.value = OTHER;
      spec.value = wanted;
    }
    const showSpec = () => { spec.style.display = select.value === OTHER ? "block" : "none"; };
    select.addEventListener("change", showSpec);
    showSpec();
    label.appendChild(select);
    label.appendChild(spec);
    seats.appendChild(label);
  }
}

// The invitation's button says which game it starts.
function describeSetup(event) {
  if (event && event.target === $("game")) return;  // the form is rebuilt first; its change comes next
  const body = readSetup();
  const players = body.players.map((player) => (player === "human" ? "you" : player || "?"));
  $("invite-start").textContent = `Start ${body.game}: ${players.join(" vs ")}`;
}

function readSetup() {
  const game = gameMeta($("game").value);
  const params = {};
  for (const param of game.params) {
    // Every value the form shows goes to the server, so the game played is the game shown
    // (a value left out would be the rules' own default, not the form's).
    const value = document.querySelector(`input[name="param-${param.name}"]`).value.trim();
    if (value !== "") params[param.name] = value;
  }
  const players = [];
  for (let seat = 0; seat < game.players; seat++) {
    const choice = $(`seat${seat}`).value;
    players.push(choice === OTHER ? $(`seat${seat}-spec`).value.trim() : choice);
  }
  const body = { game: game.name, params, players };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = /^\d+$/.test(seed) ? Number(seed) : seed;
  return body;
}

// -- playing ----------------------------------------------------------------------------------
async function newGame() {
  clearTimeout(agentTimer);
  const old = view;
  message("");
  try {
    $("status").textContent = "starting…";
    view = await api("POST", "/api/sessions", readSetup());
    paused = false;
    if (old) api("DELETE", `/api/sessions/${old.id}`).catch(() => {});
    render();
  } catch (error) {
    if (old) showStatus(); else $("status").textContent = "No game yet";
    message(error.message);
  }
}

async function play(body) {
  if (busy || !view) return;
  busy = true;
  $("board").classList.add("waiting");  // no second click until this one is answered
  const id = view.id;
  try {
    const next = await api("POST", `/api/sessions/${id}/move`, body);
    if (view && view.id === id) view = next;
    message("");
  } catch (error) {
    message(error.message);
  } finally {
    busy = false;
    render();
  }
}

function scheduleAgent() {
  clearTimeout(agentTimer);
  const watching = view.players.every((player) => !player.human);
  agentTimer = setTimeout(agentMove, watching ? 400 : 80);
}

async function agentMove() {
  if (!view || view.finished || view.human_to_move || paused || busy) return;
  busy = true;
  $("board").classList.add("waiting");
  const id = view.id;
  showStatus();
  try {
    const next = await api("POST", `/api/sessions/${id}/agent`);
    if (view && view.id === id) view = next;
  } catch (error) {
    message(error.message);
    paused = true;
  } finally {
    busy = false;
    if (view && view.id === id) render();
  }
}

function render() {
  if (!view) return;
  showStatus();  // first: the status line's height moves the board
  $("board").innerHTML = view.svg;
  fitBoard();
  $("board").classList.toggle("waiting", !view.human_to_move || busy);
  $("play-hint").textContent = view.finished ? "" : view.hint || "";
  $("result").textContent = view.result || "";
  $("result").className = view.result === "you win" ? "win" : view.result === "you lose" ? "loss" : "";
  const rows = document.querySelector("#moves tbody");
  rows.innerHTML = "";
  for (const move of view.moves) {
    const row = document.createElement("tr");
    if (move.seconds !== null) row.className = "agent";
    for (const [text, cls] of [[move.number, ""], [move.by, "who"], [move.move, ""], [seconds(move.seconds), "time"]]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      cell.title = String(text);  // a long agent name is cut short in the table: the whole of it on hover
      if (cls) cell.className = cls;
      row.appendChild(cell);
    }
    rows.appendChild(row);
  }
  $("moves-box").scrollTop = $("moves-box").scrollHeight;
  renderAnalysis(view.analysis);
  setControls();
  if (!view.finished && !view.human_to_move && !paused) scheduleAgent();
}

// The board as large as its column allows (small boards grow), but never taller than the
// window below it, so that the last row of a tall picture (set cover's sets) needs no scrolling.
function fitBoard() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const width = svg.width.baseVal.value;
  const height = svg.height.baseVal.value;
  const top = $("board").getBoundingClientRect().top + window.scrollY;
  const room = Math.max(300, window.innerHeight - top - 70);  // the controls stay in view too
  svg.style.width = `${Math.min(760, 1.45 * width, (room * width) / height)}px`;
}

function ordinal(seat) {
  return ["first", "second", "third", "fourth"][seat] || `number ${seat + 1}`;
}

// The status line: which side the person plays, then whose move it is (or how it ended).
function showStatus() {
  const humans = view.players.flatMap((player, seat) => (player.human ? [seat] : []));
  const puzzle = view.players.length === 1;
  let side;
  if (puzzle) side = humans.length ? "" : `Watching ${view.players[0].label}`;
  else if (humans.length === 1) {
    const name = view.sides[humans[0]];
    side = `${name.startsWith("player ") ? "You are" : "You play"} ${name}, moving ${ordinal(humans[0])}`;
  }
  else if (humans.length > 1) side = "You play both sides";
  else side = view.players.map((player, seat) => `${player.label} as ${view.sides[seat]}`).join(" vs ");
  let turn;
  if (view.finished) {
    if (puzzle) turn = `Finished: ${view.status}`;  // the result line below says what the return means
    else if (humans.length === 1 && view.result === "you win") turn = `${view.status} — you won`;
    else if (humans.length === 1 && view.result === "you lose") turn = `${view.status} — you lost`;
    else turn = view.status;
  } else if (view.human_to_move) {
    if (puzzle) turn = `Your move: ${view.status}`;
    else if (humans.length === 1) turn = "Your move";
    else turn = `${view.sides[view.to_move]} to move`;
  } else {
    const mover = view.players[view.to_move].label;
    turn = paused ? `${mover} to move (paused: press Resume)` : `${mover} is thinking…`;
  }
  const status = $("status");
  status.innerHTML = "";
  if (side) {
    const part = document.createElement("span");
    part.className = "side";
    part.textContent = side;
    status.append(part, " · ");
  }
  const part = document.createElement("span");
  part.className = view.finished || view.human_to_move || paused ? "turn" : "turn thinking";
  part.textContent = turn;
  status.append(part);
}

// Buttons are enabled only where they can do something.
function setControls() {
  const agents = view.players.some((player) => !player.human);
  const watching = !view.players.some((player) => player.human);
  const mine = view.moves.some((move) => view.players[move.player].human);
  $("undo").disabled = busy || !(watching ? view.moves.length > 0 : mine);
  $("pause").hidden = !agents;
  $("pause").disabled = view.finished;
  $("pause").textContent = paused && !view.finished ? "Resume" : "Pause";
  const download = $("download");
  download.href = `/api/sessions/${view.id}/record`;
  download.removeAttribute("aria-disabled");
  download.title = "the game so far as JSON (boardgym replay reads it)";
  const typing = !view.human_to_move;
  $("typed-move").disabled = typing;
  $("typed").querySelector("button").disabled = typing;
}

function renderAnalysis(analysis) {
  const box = $("analysis");
  if (!analysis) return;
  box.innerHTML = "";
  const facts = document.createElement("div");
  facts.className = "facts";
  const info = analysis.info || {};
  const parts = [`${analysis.number}. ${analysis.by} played ${analysis.move} in ${seconds(analysis.seconds)}`];
  if (typeof analysis.value === "number") {
    const value = Math.abs(analysis.value) < 0.005 ? "0.00" : `${analysis.value > 0 ? "+" : ""}${analysis.value.toFixed(2)}`;
    parts.push(`value ${value} for it`);
  }
  if (info.simulations) parts.push(`${info.simulations} simulations`);
  if (info.depth) parts.push(`depth ${info.depth}, ${info.nodes} nodes, score ${info.score}`);
  facts.textContent = parts.join("; ");
  box.appendChild(facts);
  if (analysis.svg) {
    const picture = document.createElement("div");
    picture.innerHTML = analysis.svg;
    box.appendChild(picture);
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "Circles: the share of the search spent on each move, in the position the agent chose in.";
    box.appendChild(hint);
  }
}

// -- events -----------------------------------------------------------------------------------
$("board").addEventListener("click", (event) => {
  if (!view || busy) return;
  const target = event.target.closest("[data-action]");
  if (target && view.human_to_move) {
    play({ action: Number(target.dataset.action) });
    return;
  }
  if (view.finished) {
    message("the game is over: start a new game, or undo a move");
    return;
  }
  if (!view.human_to_move) {
    message(paused ? "the agents are paused: press Resume" : "wait for the agent's move", "info");
    return;
  }
  const spot = event.target.closest("[data-move]");
  if (spot) {
    play({ move: spot.dataset.move });  // the server says why it is not legal
    return;
  }
  message(`click one of the highlighted moves: ${view.legal.map((move) => move.move).join(", ")}`, "info");
  $("board").classList.add("flash");
  setTimeout(() => $("board").classList.remove("flash"), 400);
});

$("typed").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("typed-move").value.trim();
  if (!text || !view) return;
  if (!view.human_to_move) {
    message(view.finished ? "the game is over" : "wait for the agent's move", "info");
    return;
  }
  $("typed-move").value = "";
  play({ move: text });
});

$("undo").addEventListener("click", async () => {
  if (!view || busy) return;
  clearTimeout(agentTimer);
  try {
    view = await api("POST", `/api/sessions/${view.id}/undo`);
    paused = view.players.every((player) => !player.human);
    message("");
  } catch (error) {
    message(error.message);
  }
  render();
});

$("pause").addEventListener("click", () => {
  paused = !paused;
  clearTimeout(agentTimer);
  render();
});

$("new-game").addEventListener("click", newGame);
$("invite-start").addEventListener("click", newGame);
window.addEventListener("resize", () => { if (view) fitBoard(); });
$("game").addEventListener("change", () => {
  buildSetup(new URLSearchParams());
  describeSetup();
});

async function start() {
  meta = await api("GET", "/api/meta");
  for (const game of meta.games) option($("game"), game.name, game.name);
  const preset = new URLSearchParams(window.location.search);
  if (preset.get("game") && gameMeta(preset.get("game"))) $("game").value = preset.get("game");
  buildSetup(preset);
  if (preset.get("seed")) $("seed").value = preset.get("seed");
  describeSetup();
  $("setup").addEventListener("change", describeSetup);
  $("setup").addEventListener("input", describeSetup);
  if (preset.get("start")) newGame();
}

start().catch((error) => message(`cannot reach the server: ${error.message}`));
