// sudoku-lens live mode: the rear camera, frames to WebSocket /v1/live, the solution drawn
// onto the paper in the video. Protocol: docs/live.md. Plain JavaScript, no build step.
"use strict";

(() => {
  const LONG_SIDE = 640; // frames go to the server about this size (JPEG)
  const QUALITY = 0.8;
  const DIGIT_HEIGHT = 0.62; // of a cell side, when the server measured no print
  const COLOURS = {
    outline: "rgba(46, 125, 50, 0.9)",
    digit: "rgb(21, 101, 192)",
    pencilDigit: "rgba(21, 101, 192, 0.55)", // over the player's pencil candidates: paler
    hint: "rgba(255, 214, 0, 0.35)",
    hintDigit: "rgb(123, 31, 162)",
    mistake: "rgb(198, 40, 40)",
  };

  const view = {
    section: document.getElementById("live"),
    video: document.getElementById("live-video"),
    canvas: document.getElementById("live-canvas"),
    frozen: document.getElementById("live-frozen"),
    status: document.getElementById("live-status"),
    others: document.getElementById("live-others"),
    othersSaid: document.getElementById("live-others-said"),
    photo: document.getElementById("live-photo"),
    freeze: document.getElementById("live-freeze"),
    hint: document.getElementById("live-hint"),
    check: document.getElementById("live-check"),
    save: document.getElementById("live-save"),
    back: document.getElementById("live-back"),
    start: document.getElementById("live-start"),
  };

  const live = {
    stream: null,
    socket: null,
    mode: "solve",
    maxFps: 30,
    lastSent: 0,
    scale: 1, // video pixels -> frame pixels
    grids: new Map(), // id -> the grid message (digits, hint, mistakes)
    frozen: false,
    waiting: false, // a frame is out: the next goes only after its answer
    timer: 0,
    fresh: true, // the video has a frame not sent yet
    lastTime: -1, // the video time of the last frame sent (without requestVideoFrameCallback)
    known: false, // a grid was solved on this connection: the status speaks of it
  };
  // Chromium and Safari say when the video shows a new frame: a frame is sent only then, so a
  // 15-frames-a-second camera is not sent the same picture twice
  const FRAME_CALLBACK = "requestVideoFrameCallback" in HTMLVideoElement.prototype;
  const grab = document.createElement("canvas"); // the downscaled frame, encoded as JPEG

  function say(text, kind = "") {
    view.status.textContent = text;
    view.status.className = kind;
  }

  // ---- geometry: the homography of the grid, computed here from its four corners --------

  // The 3x3 matrix mapping the 9x9 grid square (0..9, 0..9) to the corners TL, TR, BR, BL.
  function homography(corners) {
    const square = [[0, 0], [9, 0], [9, 9], [0, 9]];
    const a = [];
    const b = [];
    for (let i = 0; i < 4; i++) {
      const [x, y] = square[i];
      const [u, v] = corners[i];
      a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
      b.push(u);
      a.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
      b.push(v);
    }
    const h = solve(a, b);
    return h ? [...h, 1] : null;
  }

  // Gaussian elimination with partial pivoting: a x = b, a 8x8.
  function solve(a, b) {
    const n = b.length;
    const m = a.map((row, i) => [...row, b[i]]);
    for (let col = 0; col < n; col++) {
      let pivot = col;
      for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
      if (Math.abs(m[pivot][col]) < 1e-12) return null;
      [m[col], m[pivot]] = [m[pivot], m[col]];
      for (let r = 0; r < n; r++) {
        if (r === col) continue;
        const f = m[r][col] / m[col][col];
        for (let k = col; k <= n; k++) m[r][k] -= f * m[col][k];
      }
    }
    return m.map((row, i) => row[n] / row[i]);
  }

  function project(h, x, y) {
    const w = h[6] * x + h[7] * y + h[8];
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
  }

  // Draw in a cell's own coordinates (0..100 across it): the affine map that agrees with
  // the homography at three of the cell's corners, so digits lean and shrink with the paper.
  function inCell(ctx, h, r, c, draw) {
    const [x0, y0] = project(h, c, r);
    const [x1, y1] = project(h, c + 1, r);
    const [x2, y2] = project(h, c, r + 1);
    const [x3, y3] = project(h, c + 1, r + 1);
    // the cell's mean edges: the far corner counts too, halving the affine error
    const ax = (x1 - x0 + x3 - x2) / 200;
    const ay = (y1 - y0 + y3 - y2) / 200;
    const bx = (x2 - x0 + x3 - x1) / 200;
    const by = (y2 - y0 + y3 - y1) / 200;
    const [cx, cy] = project(h, c + 0.5, r + 0.5);
    ctx.setTransform(ax, ay, bx, by, cx - 50 * (ax + bx), cy - 50 * (ay + by));
    draw();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  // ---- drawing ----------------------------------------------------------------------

  function drawAnswer(message) {
    const ctx = view.canvas.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, view.canvas.width, view.canvas.height);
    if (!message.corners) return;
    const corners = message.corners.map(([x, y]) => [x / live.scale, y / live.scale]);
    ctx.lineWidth = Math.max(2, view.canvas.width / 320);
    ctx.strokeStyle = COLOURS.outline;
    ctx.beginPath();
    corners.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.stroke();
    const grid = message.grid !== null ? live.grids.get(message.grid) : null;
    const h = homography(corners);
    if (!grid || !h) return;
    // cells the server saw covered (a hand, a pen, a shadow) or changed: nothing is drawn
    // into them, so the digits stay under the hand rather than on it
    const hidden = (i) => message.hidden?.[i] === "1";
    const digits = new Array(81).fill(0);
    let colour = COLOURS.digit;
    if (grid.solution) {
      for (let i = 0; i < 81; i++) if (grid.givens[i] === "0" && !Number(grid.entries?.[i])) digits[i] = Number(grid.solution[i]);
    }
    if (grid.hint) {
      colour = COLOURS.hintDigit;
      for (const name of grid.hint.cells || []) {
        const i = cellOf(name);
        if (i < 0 || hidden(i)) continue;
        inCell(ctx, h, Math.floor(i / 9), i % 9, () => {
          ctx.fillStyle = COLOURS.hint;
          ctx.fillRect(0, 0, 100, 100);
        });
      }
      for (const p of grid.hint.placements || []) digits[cellOf(p.cell)] = p.digit;
    }
    ctx.fillStyle = colour;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    const height = Math.min(0.8, Math.max(0.3, grid.digit_height || DIGIT_HEIGHT));
    const size = Math.round(100 * height * 1.38);
    digits.forEach((d, i) => {
      if (!d || hidden(i)) return;
      // a cell with the player's pencil candidates: the digit smaller, paler and low in the
      // cell, so the candidates (written along its top) stay readable
      const pencil = grid.kinds?.[i] === "c";
      ctx.fillStyle = pencil ? COLOURS.pencilDigit : colour;
      ctx.font = `500 ${pencil ? Math.round(size * 0.6) : size}px system-ui, "DejaVu Sans", sans-serif`;
      inCell(ctx, h, Math.floor(i / 9), i % 9, () => ctx.fillText(String(d), pencil ? 62 : 50, pencil ? 70 : 56));
    });
    for (const m of grid.mistakes || []) {
      if (hidden(m.index)) continue;
      inCell(ctx, h, Math.floor(m.index / 9), m.index % 9, () => {
        ctx.strokeStyle = COLOURS.mistake;
        ctx.lineWidth = 8;
        ctx.beginPath();
        ctx.arc(50, 50, 40, 0, 2 * Math.PI);
        ctx.stroke();
      });
    }
  }

  function cellOf(name) {
    const m = /^r(\d)c(\d)$/.exec(name);
    return m ? (Number(m[1]) - 1) * 9 + Number(m[2]) - 1 : -1;
  }

  function describe(grid) {
    if (grid.mode === "hint" && grid.hint) return `Hint: ${grid.hint.sentence}`;
    if (grid.mode === "check") {
      const wrong = (grid.mistakes || []).length;
      if (!grid.entries) return "Check: no hand-written entries could be read on this grid.";
      if (wrong) return `Check: ${wrong} wrong ${wrong === 1 ? "entry" : "entries"}, ringed in red.`;
      return "Check: every entry of yours is right.";
    }
    return "Solved: the missing digits are drawn on the paper.";
  }

  // What the status line says after a frame: once a grid is solved, only what the user can
  // act on (it is solved; hold steady; move closer), never a reading error of a covered frame.
  function status(message) {
    const grid = message.grid !== null ? live.grids.get(message.grid) : null;
    if (grid) {
      live.known = true;
      const cell = message.corners ? cellSide(message.corners) / live.scale : Infinity;
      const small = cell < view.canvas.width / 40;
      return [small ? `${describe(grid)} Move closer for a steadier picture.` : describe(grid), "ok"];
    }
    if (live.known) {
      if (message.state === "lost") return ["Solved. Hold steady with the whole grid in view.", "ok"];
      return ["Hold steady: finding the grid again…", ""];
    }
    if (message.state === "reading") {
      return [message.message ? `Reading… ${message.message}` : "Reading… hold still.", ""];
    }
    return ["Point the camera at a sudoku.", ""];
  }

  // A page of several grids: the one nearest the middle of the picture is followed, and the
  // others in view (counted by the server when it searched the frame) are named, with the way
  // to solve them all: a photo of the page.
  function others(count) {
    const n = Number(count) || 0;
    view.others.hidden = n < 1;
    if (n < 1) return;
    view.othersSaid.textContent = `${n} more ${n === 1 ? "grid" : "grids"} in view: take a photo to solve them all.`;
  }

  function cellSide(corners) {
    let side = 0;
    for (let i = 0; i < 4; i++) {
      const [x0, y0] = corners[i];
      const [x1, y1] = corners[(i + 1) % 4];
      side += Math.hypot(x1 - x0, y1 - y0) / 36;
    }
    return side;
  }

  // ---- frames out, answers in ---------------------------------------------------------

  function onVideoFrame() {
    if (!live.stream) return;
    live.fresh = true;
    if (!live.waiting && !live.timer) sendFrame();
    view.video.requestVideoFrameCallback(onVideoFrame);
  }

  function sendFrame() {
    live.timer = 0;
    if (live.frozen || live.waiting || !live.socket || live.socket.readyState !== WebSocket.OPEN) return;
    const video = view.video;
    if (!video.videoWidth) {
      live.timer = setTimeout(sendFrame, 100);
      return;
    }
    const wait = live.lastSent + 1000 / live.maxFps - performance.now();
    if (wait > 0) {
      live.timer = setTimeout(sendFrame, wait);
      return;
    }
    if (!FRAME_CALLBACK && video.currentTime !== live.lastTime) live.fresh = true;
    if (!live.fresh) {
      // the picture was sent already: wait for the next (the frame callback sends it)
      if (!FRAME_CALLBACK) live.timer = setTimeout(sendFrame, 15);
      return;
    }
    live.fresh = false;
    live.lastTime = video.currentTime;
    if (view.canvas.width !== video.videoWidth || view.canvas.height !== video.videoHeight) {
      view.canvas.width = video.videoWidth;
      view.canvas.height = video.videoHeight;
    }
    const scale = Math.min(1, LONG_SIDE / Math.max(video.videoWidth, video.videoHeight));
    grab.width = Math.round(video.videoWidth * scale);
    grab.height = Math.round(video.videoHeight * scale);
    grab.getContext("2d").drawImage(video, 0, 0, grab.width, grab.height);
    live.waiting = true;
    live.lastSent = performance.now();
    grab.toBlob(
      (blob) => {
        if (!blob || !live.socket || live.socket.readyState !== WebSocket.OPEN) {
          live.waiting = false;
          return;
        }
        live.scale = scale;
        live.socket.send(blob);
      },
      "image/jpeg",
      QUALITY,
    );
  }

  function onMessage(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "ready") {
      live.maxFps = Math.max(1, Math.min(30, message.limits?.max_fps || 30));
      if (live.mode !== "solve") live.socket.send(JSON.stringify({ type: "mode", mode: live.mode }));
      say("Point the camera at a sudoku.");
      sendFrame();
      return;
    }
    if (message.type === "mode") return;
    if (message.type === "grid") {
      live.grids.set(message.id, message);
      if (message.solution || message.hint || message.mode === "check") say(describe(message), "ok");
      return;
    }
    live.waiting = false;
    if (message.type === "error") {
      const again = message.code === "busy" ? message.retry_after_ms || 1000 : 300;
      say(message.message, "error");
      live.timer = setTimeout(sendFrame, again);
      return;
    }
    if (!live.frozen) drawAnswer(message);
    document.body.dataset.liveState = message.state;
    say(...status(message));
    others(message.others_in_view);
    sendFrame();
  }

  async function start() {
    if (!navigator.mediaDevices?.getUserMedia) {
      say("This browser gives no camera here: open the page over HTTPS (or on localhost).", "error");
      return;
    }
    document.body.classList.add("live-on");
    view.section.hidden = false;
    // start in the mode chosen above the photo buttons (solve, check or hint)
    live.mode = document.querySelector('.modes .mode[aria-checked="true"]')?.dataset.mode || "solve";
    view.hint.setAttribute("aria-pressed", String(live.mode === "hint"));
    view.check.setAttribute("aria-pressed", String(live.mode === "check"));
    say("Starting the camera…");
    try {
      // the device's own aspect: a phone held upright films upright (asking 1280x720 of it
      // had the browser crop its 720x1280 picture to a square)
      const upright = matchMedia("(orientation: portrait)").matches;
      live.stream = await navigator.mediaDevices.getUserMedia({
        video: {
          facingMode: { ideal: "environment" },
          width: { ideal: upright ? 720 : 1280 },
          height: { ideal: upright ? 1280 : 720 },
          resizeMode: { ideal: "none" },
        },
        audio: false,
      });
    } catch (error) {
      say(`No camera: ${error.message || error.name}. Allow the camera, or use a photo.`, "error");
      return;
    }
    view.video.srcObject = live.stream;
    await view.video.play().catch(() => {});
    if (FRAME_CALLBACK) view.video.requestVideoFrameCallback(onVideoFrame);
    connect();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    live.socket = new WebSocket(`${scheme}://${location.host}/v1/live`);
    live.waiting = false;
    live.grids.clear(); // grid ids are per connection
    live.known = false;
    live.socket.addEventListener("message", onMessage);
    live.socket.addEventListener("close", (event) => {
      if (!view.section.hidden && event.code !== 1000) {
        say(`The live connection closed${event.reason ? `: ${event.reason}` : ""}. Tap Live to start again.`, "error");
      }
    });
  }

  function stop() {
    clearTimeout(live.timer);
    if (live.socket) live.socket.close(1000);
    live.socket = null;
    for (const track of live.stream?.getTracks() || []) track.stop();
    live.stream = null;
    view.video.srcObject = null;
    unfreeze();
    view.section.hidden = true;
    view.others.hidden = true;
    document.body.classList.remove("live-on");
  }

  function takePhoto() {
    // the camera's own photo, at its full size, of the whole page: every grid solved at once
    stop();
    document.getElementById("camera").click();
  }

  function freeze() {
    if (live.frozen) {
      unfreeze();
      // a long freeze outlasts the server's idle limit: then start a new connection
      if (!live.socket || live.socket.readyState !== WebSocket.OPEN) connect();
      else sendFrame();
      return;
    }
    live.frozen = true;
    const picture = document.createElement("canvas");
    picture.width = view.canvas.width || view.video.videoWidth;
    picture.height = view.canvas.height || view.video.videoHeight;
    const ctx = picture.getContext("2d");
    ctx.drawImage(view.video, 0, 0, picture.width, picture.height);
    ctx.drawImage(view.canvas, 0, 0);
    picture.toBlob(
      (blob) => {
        if (!blob) return;
        const url = URL.createObjectURL(blob);
        view.frozen.src = url;
        view.frozen.hidden = false;
        view.save.href = url;
        view.save.hidden = false;
      },
      "image/jpeg",
      0.92,
    );
    view.video.pause();
    view.freeze.textContent = "Resume";
  }

  function unfreeze() {
    live.frozen = false;
    view.frozen.hidden = true;
    view.save.hidden = true;
    if (view.save.href) URL.revokeObjectURL(view.save.href);
    view.save.removeAttribute("href");
    view.video.play().catch(() => {});
    view.freeze.textContent = "Freeze";
  }

  function setMode(mode) {
    live.mode = live.mode === mode ? "solve" : mode; // a second tap goes back to solving
    view.hint.setAttribute("aria-pressed", String(live.mode === "hint"));
    view.check.setAttribute("aria-pressed", String(live.mode === "check"));
    live.grids.clear();
    live.known = false;
    if (live.socket && live.socket.readyState === WebSocket.OPEN) {
      live.socket.send(JSON.stringify({ type: "mode", mode: live.mode }));
    }
    say(live.mode === "solve" ? "Solving…" : live.mode === "hint" ? "Looking for the next step…" : "Checking your entries…");
  }

  view.start.addEventListener("click", start);
  view.back.addEventListener("click", stop);
  view.photo.addEventListener("click", takePhoto);
  view.freeze.addEventListener("click", freeze);
  view.hint.addEventListener("click", () => setMode("hint"));
  view.check.addEventListener("click", () => setMode("check"));
})();
