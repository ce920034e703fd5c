// sudoku-lens phone page: upload a photo, show the solved photo and an editable board.
// Plain JavaScript, no build step, no outside requests: everything comes from this server.
"use strict";

const N = 81;
const LOW_CONFIDENCE = 0.8; // readings below this are highlighted for checking
const BIG_UPLOAD = 3 * 1024 * 1024; // larger photos are scaled down on the phone first
const MAX_SIDE = 2560;

const board = document.getElementById("board");
const message = document.getElementById("message");
const photo = document.getElementById("photo");
const solvedImage = document.getElementById("solved");
const download = document.getElementById("download");
const hintButton = document.getElementById("hint");
const hintText = document.getElementById("hint-text");
const gridList = document.getElementById("grids");
const otherBoard = document.getElementById("other-board");

// The board: what the puzzle is (givens), where each given came from, and what we know.
const state = {
  mode: "solve", // "solve" | "check" | "hint": what the user asked for
  givens: new Array(N).fill(0), // the printed digits: the puzzle
  entries: new Array(N).fill(0), // the user's own hand-written digits
  pencil: new Set(), // cells holding pencil candidates
  unclear: new Set(), // entries the reader cannot tell from the right digit
  flagged: new Map(), // cell -> the check's own words for a wrong or unclear entry (issue 37)
  lastCell: -1,
  lastFile: null,
  origin: new Array(N).fill(""), // "photo" | "edited" | ""
  low: new Array(N).fill(false),
  corrected: new Map(), // cell -> text for its tooltip
  solution: null,
  conflicts: new Set(),
  hinted: new Set(),
};

const cells = [];
for (let i = 0; i < N; i++) {
  const cell = document.createElement("input");
  const r = Math.floor(i / 9), c = i % 9;
  cell.className = `r${r} c${c}`;
  cell.inputMode = "numeric";
  cell.autocomplete = "off";
  cell.maxLength = 2;
  cell.setAttribute("aria-label", `row ${r + 1} column ${c + 1}`);
  cell.dataset.cell = String(i);
  cell.addEventListener("focus", () => {
    state.lastCell = i;
    cell.select();
  });
  cell.addEventListener("input", () => editCell(i, cell.value));
  board.appendChild(cell);
  cells.push(cell);
}

function say(text, kind = "") {
  message.textContent = text;
  message.className = kind;
}

function cellName(i) {
  return `r${Math.floor(i / 9) + 1}c${(i % 9) + 1}`;
}

function cellIndex(name) {
  const m = /^r(\d)c(\d)$/.exec(name);
  return m ? (Number(m[1]) - 1) * 9 + Number(m[2]) - 1 : -1;
}

function mistakes() {
  // entries that disagree with the solution (none known without one)
  const wrong = new Set();
  // no solution shown (check mode): the photo's own verdict, judged on the server
  if (!state.solution) return new Set([...state.flagged.keys()].filter((i) => !state.unclear.has(i)));
  state.entries.forEach((v, i) => {
    if (v && !state.givens[i] && v !== state.solution[i] && !state.unclear.has(i)) wrong.add(i);
  });
  return wrong;
}

function draw() {
  const wrong = mistakes();
  for (let i = 0; i < N; i++) {
    const cell = cells[i];
    const given = state.givens[i];
    const entry = given ? 0 : state.entries[i];
    const answer = state.mode === "solve" && state.solution ? state.solution[i] : 0;
    const shown = given || entry || answer;
    if (document.activeElement !== cell || cell.value !== String(shown || "")) {
      cell.value = shown ? String(shown) : "";
    }
    const origin = state.origin[i];
    cell.classList.toggle("given", given > 0 && origin === "photo");
    cell.classList.toggle("edited", origin === "edited");
    cell.classList.toggle("low", (origin === "photo" || state.unclear.has(i)) && state.low[i]);
    cell.classList.toggle("corrected", origin === "photo" && state.corrected.has(i));
    cell.classList.toggle("conflict", state.conflicts.has(i));
    cell.classList.toggle("hinted", state.hinted.has(i));
    cell.classList.toggle("entry", entry > 0);
    cell.classList.toggle("mistake", wrong.has(i));
    cell.classList.toggle("pencil", !given && !entry && state.pencil.has(i));
    const should = state.mode === "solve" && wrong.has(i) ? `, should be ${state.solution[i]}` : "";
    cell.title = state.flagged.has(i)
      ? state.flagged.get(i)
      : wrong.has(i)
      ? `your ${entry} is wrong${should}`
      : entry && state.unclear.has(i)
        ? `read as ${entry}, but the reading is unsure: look for yourself`
        : state.corrected.get(i) || (state.low[i] && origin === "photo" ? "unsure reading" : "");
  }
}

function puzzleLine() {
  return state.givens.map((v) => (v ? String(v) : ".")).join("");
}

// ---- the photo -------------------------------------------------------------------------

// ---- a board other than the plain 9x9 (issue 49): 6x6, 16x16, diagonal ----------------

const LINE_ALPHABET = "123456789ABCDEFG"; // how the server writes a board's symbols
const PRINTED = {
  "1-16": (v) => String(v),
  "A-P": (v) => "ABCDEFGHIJKLMNOP"[v - 1],
};

function otherBoardOf(result) {
  return Boolean(result && result.givens && ((result.size && result.size !== 9) || (result.variant && result.variant !== "standard")));
}

function printedSymbol(ch, result) {
  // the server's line symbol as the board prints it (a 16x16's "12" or "L")
  if (ch === "." || (result.size === 9 && ch === "0")) return "";
  const printed = PRINTED[result.convention];
  return printed ? printed(LINE_ALPHABET.indexOf(ch) + 1) : ch;
}

function showOtherBoard(result) {
  // read and solved, shown as the board prints it; its cells are not edited here
  const size = result.size || 9;
  const box = { 6: [2, 3], 16: [4, 4] }[size] || [3, 3];
  otherBoard.replaceChildren();
  otherBoard.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  const shown = result.solution || result.givens;
  for (let i = 0; i < size * size; i++) {
    const r = Math.floor(i / size), c = i % size;
    const cell = document.createElement("span");
    cell.setAttribute("role", "cell");
    cell.textContent = printedSymbol(shown[i], result);
    if (printedSymbol(result.givens[i], result)) cell.classList.add("given");
    if (result.variant === "diagonal" && (r === c || r + c === size - 1)) cell.classList.add("diagonal");
    if ((c + 1) % box[1] === 0 && c + 1 < size) cell.classList.add("box-right");
    if ((r + 1) % box[0] === 0 && r + 1 < size) cell.classList.add("box-below");
    otherBoard.appendChild(cell);
  }
  board.hidden = true;
  otherBoard.hidden = false;
}

function loadReading(result) {
  if (otherBoardOf(result)) {
    showOtherBoard(result);
    return;
  }
  board.hidden = false;
  otherBoard.hidden = true;
  const givens = result.givens || "0".repeat(N);
  state.givens = Array.from(givens, (ch) => Number(ch) || 0);
  state.origin = state.givens.map((v) => (v ? "photo" : ""));
  const confidence = result.confidence || [];
  state.low = state.givens.map((_, i) => confidence[i] !== undefined && confidence[i] < LOW_CONFIDENCE);
  for (const name of result.suspects || []) {
    const i = cellIndex(name);
    if (i >= 0) state.low[i] = true;
  }
  state.corrected = new Map();
  for (const fix of result.corrections || []) {
    state.corrected.set(fix.index, `read ${fix.read || "empty"}, the rules made it ${fix.now || "empty"}`);
  }
  // several solutions: the cells where one tapped digit makes the puzzle unique
  for (const c of result.completions || []) {
    state.low[c.index] = true;
    state.corrected.set(c.index, `a digit here (${c.digits.join(" or ")}) would make the puzzle unique`);
  }
  state.entries = Array.from(result.entries || "0".repeat(N), (ch) => Number(ch) || 0);
  state.pencil = new Set((result.candidates || []).map((c) => c.index));
  // an entry read as a wrong digit that may be the right one: neither right nor wrong
  state.unclear = new Set((result.unclear || []).map((m) => m.index));
  for (const i of state.unclear) state.low[i] = true;
  // why each flagged entry is flagged: "r3c4 and r3c6 both hold 2", "r5c9: 4 or 9?"
  state.flagged = new Map([...(result.mistakes || []), ...(result.unclear || [])].map((m) => [m.index, m.said]));
  state.solution = result.solution ? Array.from(result.solution, Number) : null;
  state.conflicts = new Set();
  state.hinted = new Set();
  hintText.hidden = true;
  draw();
}

async function shrink(file) {
  // Phone photos of 12+ MP take long to upload; a 2560 px JPEG reads just as well.
  if (file.size <= BIG_UPLOAD || !window.createImageBitmap) return file;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
    return blob || file;
  } catch (error) {
    return file; // the server copes with the original
  }
}

const UPLOAD_ERRORS = {
  400: "The upload was malformed",
  408: "The upload was too slow",
  413: "That photo is too large",
  415: "That file is not a photo this app can read",
  500: "Something went wrong on the server",
  503: "The server is busy",
  504: "The photo took too long to solve",
};

async function upload(file, attempt = 1) {
  if (!file) return;
  state.lastFile = file;
  say("Reading the photo…", "busy");
  hintText.hidden = true;
  let response, body;
  try {
    const form = new FormData();
    form.append("image", await shrink(file), file.name || "photo.jpg");
    const url = state.mode === "solve" ? "/v1/solve" : `/v1/solve?mode=${state.mode}`;
    response = await fetch(url, {
      method: "POST",
      body: form,
      headers: { Accept: "application/json" },
    });
    body = await response.json().catch(() => ({}));
  } catch (error) {
    say("Could not reach the server. Check the connection and try again.", "error");
    return;
  }
  if (response.ok) {
    loadReading(body);
    if (body.output) {
      photo.hidden = false;
      solvedImage.src = body.output;
      solvedImage.alt = {
        solve: "the photo with the solution drawn in",
        check: "the photo with your wrong entries struck out",
        hint: "the photo with the next step marked",
      }[state.mode];
      download.href = body.output;
      download.hidden = false;
    } else {
      showOwnPhoto(file); // nothing drawn: only printed solutions on it
    }
    showHint(body.hint);
    const grids = body.grids || [];
    showGrids(grids, firstPuzzle(grids));
    const lead = grids.length > 1 ? pageSummary(grids) : sentence(body.message);
    say(otherBoardOf(body) ? lead : `${lead} Tap a cell to fix a digit.`, "ok");
    return;
  }
  const error = body.error || { message: response.statusText, code: "" };
  if (response.status === 422) {
    showOwnPhoto(file);
    loadReading(error.result || {});
    const grids = (error.result && error.result.grids) || [];
    showGrids(grids, firstPuzzle(grids));
    const fix = !(error.result && error.result.givens)
      ? " You can type the puzzle into the board below."
      : state.low.some(Boolean)
        ? " Fix the highlighted cells below and it solves at once."
        : " Compare the board with your photo, add or fix digits, and it solves at once.";
    say(`Could not solve the photo: ${sentence(error.message)}${fix}`, "error");
    return;
  }
  if (response.status === 503 && attempt < 3) {
    const wait = Number(response.headers.get("Retry-After")) || 2;
    say(`The server is busy; trying again in ${wait} s…`, "busy");
    setTimeout(() => upload(file, attempt + 1), wait * 1000);
    return;
  }
  const lead = UPLOAD_ERRORS[response.status] || `The server answered ${response.status}`;
  const id = response.headers.get("X-Request-ID");
  say(`${lead}: ${sentence(error.message)}${response.status >= 500 && id ? ` (request ${id})` : ""}`, "error");
}

function showHint(hint) {
  // the next step of the grid on the board (hint mode): its cells shaded, its sentence below
  if (!hint) return;
  state.hinted = new Set([...(hint.cells || []), ...(hint.placements || []).map((p) => p.cell)].map(cellIndex));
  hintText.textContent = `${hint.technique}: ${sentence(hint.sentence)}`;
  hintText.hidden = false;
  draw();
}

// ---- a page of several grids (a puzzle book's, a newspaper's beside yesterday's solution) --

function firstPuzzle(grids) {
  // the grid the result's own fields describe, and so the board: the first puzzle
  const first = grids.find((g) => g.kind === "puzzle") || grids[0];
  return first ? first.number : 0;
}

function pageSummary(grids) {
  const puzzles = grids.filter((g) => g.kind === "puzzle");
  const solved = puzzles.filter((g) => g.status === "solved").length;
  const printed = grids.filter((g) => g.kind === "solution").length;
  const cut = grids.filter((g) => g.kind === null).length;
  const parts = [
    puzzles.length
      ? `${solved} of ${puzzles.length} ${puzzles.length === 1 ? "puzzle" : "puzzles"} solved`
      : "no puzzle to solve",
  ];
  if (printed) parts.push(`${printed} printed ${printed === 1 ? "solution" : "solutions"}`);
  if (cut) parts.push(`${cut} running off the edge`);
  return `${grids.length} grids on the photo: ${parts.join(", ")}.`;
}

function gridWords(grid, count) {
  // one grid's line, in the words the page uses for a single grid
  const head = `Grid ${grid.number} of ${count}: `;
  if (grid.kind === "solution") return `${head}a printed solution.`;
  if (grid.kind === null) return `${head}runs off the edge of the photo; take it whole to solve it.`;
  if (grid.status === "solved") return head + sentence(grid.message).replace(/^S/, "s");
  return `${head}not solved: ${sentence(grid.message).replace(/^([A-Z])(?=[a-z])/, (c) => c.toLowerCase())}`;
}

function showGrids(grids, onBoard) {
  // a line per grid when the photo holds more than one; one grid: nothing (the page as ever)
  gridList.replaceChildren();
  gridList.hidden = grids.length < 2;
  if (gridList.hidden) return;
  for (const grid of grids) {
    const item = document.createElement("li");
    item.dataset.grid = String(grid.number);
    const done = grid.status === "solved" || grid.status === "complete";
    item.className = grid.kind === null ? "" : done ? grid.status : "unsolved";
    const said = document.createElement("span");
    said.className = "said";
    said.textContent = gridWords(grid, grids.length);
    item.appendChild(said);
    if (grid.number === onBoard) {
      item.setAttribute("aria-current", "true");
      const where = document.createElement("span");
      where.className = "where";
      where.textContent = "on the board";
      item.appendChild(where);
    } else if (grid.kind === "puzzle" && grid.givens) {
      const show = document.createElement("button");
      show.type = "button";
      show.className = "button small";
      show.textContent = "Show on the board";
      show.addEventListener("click", () => {
        loadReading(grid);
        showHint(grid.hint);
        showGrids(grids, grid.number);
        say(`Grid ${grid.number} is on the board: tap a cell to fix a digit.`, done ? "ok" : "error");
      });
      item.appendChild(show);
    }
    if (grid.hint) {
      const hint = document.createElement("span");
      hint.className = "hint";
      hint.textContent = `${grid.hint.technique}: ${sentence(grid.hint.sentence)}`;
      item.appendChild(hint);
    }
    gridList.appendChild(item);
  }
}

let ownPhotoUrl = null;

function showOwnPhoto(file) {
  // Not solved: show the user's own photo (from the phone, not the server) to compare.
  if (ownPhotoUrl) URL.revokeObjectURL(ownPhotoUrl);
  ownPhotoUrl = URL.createObjectURL(file);
  solvedImage.src = ownPhotoUrl;
  solvedImage.alt = "your photo (not solved)";
  download.hidden = true;
  photo.hidden = false;
}

function sentence(text) {
  text = String(text || "").trim();
  if (!text) return "";
  if (!/^r\d+c\d+/.test(text)) text = text[0].toUpperCase() + text.slice(1); // keep "r3c5"
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

for (const id of ["camera", "library"]) {
  const input = document.getElementById(id);
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    input.value = ""; // choosing the same photo again still fires
    upload(file);
  });
}

// ---- the board -------------------------------------------------------------------------

function editCell(i, text) {
  const digit = Number(String(text).replace(/[^1-9]/g, "").slice(-1)) || 0;
  if (!state.givens[i] && state.entries[i]) {
    // the user's own entry: fix what was read, the puzzle stays as it is
    state.entries[i] = digit;
    state.unclear.delete(i); // the user has said what it is
    state.flagged.delete(i);
    state.low[i] = false;
    cells[i].value = digit ? String(digit) : "";
    draw();
    return;
  }
  if (digit === state.givens[i] && state.origin[i] !== "") {
    draw();
    return;
  }
  state.givens[i] = digit;
  state.origin[i] = "edited";
  state.hinted = new Set();
  hintText.hidden = true;
  cells[i].value = digit ? String(digit) : "";
  resolveSoon();
}

let pending = null;
let generation = 0;

function resolveSoon() {
  clearTimeout(pending);
  pending = setTimeout(resolve, 120);
}

async function postGrid(extra = {}) {
  const response = await fetch("/v1/grid", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ puzzle: puzzleLine(), limit: 2, ...extra }),
  });
  const body = await response.json().catch(() => ({}));
  return { response, body };
}

async function resolve() {
  const mine = ++generation;
  say("Solving…", "busy");
  let answer;
  try {
    answer = await postGrid();
  } catch (error) {
    say("Could not reach the server. Check the connection and try again.", "error");
    return;
  }
  if (mine !== generation) return; // a newer edit is already on its way
  const { response, body } = answer;
  state.conflicts = new Set();
  state.solution = null;
  if (!response.ok) {
    const error = body.error || {};
    say(`${UPLOAD_ERRORS[response.status] || "Could not solve"}: ${sentence(error.message)}`, "error");
    draw();
    return;
  }
  if (body.status === "unique") {
    state.solution = Array.from(body.solutions[0], Number);
    say(`${modeSummary()} (The photo above still shows the first reading.)`, "ok");
  } else if (body.status === "multiple") {
    say("These digits allow more than one solution: a digit is probably missing.", "error");
  } else if (body.status === "invalid") {
    for (const text of body.conflicts || []) {
      for (const name of text.match(/r\dc\d/g) || []) state.conflicts.add(cellIndex(name));
    }
    say(`Two equal digits share a row, column or box: ${(body.conflicts || []).join("; ")}.`, "error");
  } else {
    say(`No solution: ${sentence(body.reason) || "a digit is probably misread."}`, "error");
  }
  draw();
}

function modeSummary() {
  // what the board says now, in the words of the chosen mode
  const wrongCells = mistakes();
  const wrong = wrongCells.size;
  const written = state.entries.filter((v, i) => v && !state.givens[i]).length;
  const left = state.givens.filter((v, i) => !v && !(state.entries[i] && !wrongCells.has(i))).length;
  if (state.mode === "solve") return wrong ? `Solved; ${wrong} of your entries are wrong (red).` : "Solved.";
  if (!written) return `${left} cells left.`;
  if (!wrong && !left) return "Finished, and every entry is right.";
  return `${wrong} wrong ${wrong === 1 ? "entry" : "entries"}, ${left} cells left.`;
}

function stateLine() {
  // the printed digits plus the right entries: where a hint starts from
  return state.givens
    .map((v, i) => {
      const e = state.entries[i];
      const right = e && state.solution && e === state.solution[i];
      return v ? String(v) : right ? String(e) : ".";
    })
    .join("");
}

function setKind(kind) {
  const i = state.lastCell;
  if (i < 0) return;
  const digit = state.givens[i] || state.entries[i] || Number(cells[i].value) || 0;
  state.givens[i] = kind === "p" ? digit : 0;
  state.entries[i] = kind === "w" ? digit : 0;
  state.origin[i] = "edited";
  state.pencil.delete(i);
  state.unclear.delete(i);
  state.flagged.delete(i);
  state.hinted = new Set();
  resolveSoon();
}

for (const button of document.querySelectorAll("#cell-tools [data-kind]")) {
  button.addEventListener("click", () => setKind(button.dataset.kind));
}

for (const button of document.querySelectorAll(".modes .mode")) {
  button.addEventListener("click", () => {
    state.mode = button.dataset.mode;
    for (const other of document.querySelectorAll(".modes .mode")) {
      other.setAttribute("aria-checked", String(other === button));
    }
    hintText.hidden = true;
    state.hinted = new Set();
    draw();
    if (state.lastFile) upload(state.lastFile);
  });
}

hintButton.addEventListener("click", async () => {
  let answer;
  try {
    answer = await postGrid({ explain: true, limit: 2, puzzle: stateLine() });
  } catch (error) {
    say("Could not reach the server. Check the connection and try again.", "error");
    return;
  }
  const { response, body } = answer;
  const steps = response.ok && body.explanation ? body.explanation.steps || [] : [];
  const step = steps.find((s) => s.technique !== "guess") || steps[0];
  if (!step) {
    const why = response.ok
      ? body.status === "unique" || body.status === "multiple"
        ? "The board is already full."
        : "No hint: the digits on the board have no solution yet; fix them first."
      : sentence((body.error || {}).message);
    hintText.textContent = why;
    hintText.hidden = false;
    return;
  }
  state.hinted = new Set([
    ...(step.cells || []),
    ...(step.placements || []).map((p) => p.cell),
  ].map(cellIndex).filter((i) => i >= 0));
  const graded = body.explanation.grade;
  const er = graded && graded.rating != null ? ` (ER ${graded.rating.toFixed(1)})` : "";
  const grade = graded ? ` (puzzle grade: ${graded.level}${er})` : "";
  hintText.textContent = `${step.technique}: ${sentence(step.text)}${grade}`;
  hintText.hidden = false;
  draw();
});

document.getElementById("clear").addEventListener("click", () => {
  loadReading({});
  photo.hidden = true;
  showGrids([], 0);
  say("Board cleared: type a puzzle into it, or take a photo.");
});

draw();
