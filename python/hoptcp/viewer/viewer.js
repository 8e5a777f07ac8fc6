// hoptcp view: replays a run's air trace on a canvas, with a linked time-series plot.
// Everything the page needs is in it: columns packed by hoptcp/viewer/__init__.py.
(async function () {
  "use strict";
  const meta = JSON.parse(document.getElementById("meta").textContent);
  const V = (window.hoptcpViewer = { ready: false, t: 0, playing: false, draws: 0, cursorX: -1, meta });
  const $ = (id) => document.getElementById(id);

  // --- data --------------------------------------------------------------------------------
  const b64 = document.getElementById("blob").textContent.trim();
  const raw = atob(b64);
  const bin = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bin[i] = raw.charCodeAt(i);
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream("deflate"));
  const buf = await new Response(stream).arrayBuffer();
  const TYPES = { float32: Float32Array, float64: Float64Array, uint32: Uint32Array, int32: Int32Array, uint16: Uint16Array, uint8: Uint8Array };
  const col = {};
  for (const [name, [dt, off, n]] of Object.entries(meta.columns)) col[name] = new TYPES[dt](buf, off, n);

  const span = meta.to - meta.from;
  const nNodes = meta.x.length;
  const nF = col["f.start"].length;
  const fStart = new Float64Array(nF), fEnd = new Float64Array(nF);
  let acc = 0, maxAir = 0;
  for (let i = 0; i < nF; i++) {
    acc += col["f.start"][i];
    fStart[i] = acc / 1e6;
    const a = col["f.air"][i] / 1e6;
    fEnd[i] = fStart[i] + a;
    if (a > maxAir) maxAir = a;
  }
  // lost frames at receivers, by the time their loss shows (the frame's end)
  const nL = col["l.frame"].length;
  const lostOrder = Array.from({ length: nL }, (_, i) => i).sort((a, b) => fEnd[col["l.frame"][a]] - fEnd[col["l.frame"][b]]);
  const lostEnd = Float64Array.from(lostOrder, (i) => fEnd[col["l.frame"][i]]);
  // retry-limit drops: frames so flagged, by end
  const rd = [];
  for (let i = 0; i < nF; i++) if (col["f.flags"][i] & 2) rd.push(i);
  const rdEnd = Float64Array.from(rd, (i) => fEnd[i]);
  const dropT = col["d.t"];
  const dropTimes = Float64Array.from([...dropT, ...rdEnd]).sort();

  // per-id step series in CSR form: ids -> slices of (t, v)
  function bySeries(prefix, nIds) {
    const dt = col[prefix + ".t"], id = col[prefix + ".id"], v = col[prefix + ".v"];
    const t = new Float64Array(dt.length);
    let acc = 0;
    for (let i = 0; i < dt.length; i++) { acc += dt[i]; t[i] = acc / 1e6; }
    let maxId = nIds - 1;
    for (let i = 0; i < id.length; i++) if (id[i] > maxId) maxId = id[i];
    const count = new Uint32Array(maxId + 2);
    for (let i = 0; i < id.length; i++) count[id[i] + 1]++;
    for (let k = 1; k < count.length; k++) count[k] += count[k - 1];
    const fill = count.slice(), ts = new Float64Array(id.length), vs = new Float32Array(id.length);
    for (let i = 0; i < id.length; i++) { const p = fill[id[i]]++; ts[p] = t[i]; vs[p] = v[i]; }
    const present = [];
    for (let k = 0; k <= maxId; k++) if (count[k + 1] > count[k]) present.push(k);
    return { off: count, t: ts, v: vs, ids: present };
  }
  function at(s, k, time, dflt) {
    if (k + 1 >= s.off.length) return dflt;
    let lo = s.off[k], hi = s.off[k + 1];
    if (lo === hi || s.t[lo] > time) return dflt;
    while (hi - lo > 1) { const m = (lo + hi) >> 1; if (s.t[m] <= time) lo = m; else hi = m; }
    return s.v[lo];
  }
  const S = { cwnd: bySeries("cwnd", 0), good: bySeries("good", 0), queue: bySeries("queue", nNodes), mac: bySeries("mac", nNodes) };
  function upper(arr, x) { let lo = 0, hi = arr.length; while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] <= x) lo = m + 1; else hi = m; } return lo; }
  function lower(arr, x) { let lo = 0, hi = arr.length; while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] < x) lo = m + 1; else hi = m; } return lo; }

  // --- drawing -------------------------------------------------------------------------------
  const KIND = ["RTS", "CTS", "DATA", "ACK", "routing"];
  const KCOL = ["#8e44ad", "#2980b9", "#27ae60", "#e67e22", "#7f8c8d"];
  const STATE = ["idle", "backoff", "defer", "tx", "rx"];
  const SCOL = ["#d9d9d9", "#f6c85f", "#9dd866", "#ca472f", "#0b84a5"];
  const FLOWCOL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const topo = $("topo"), plot = $("plot"), tip = $("tip");
  const tctx = topo.getContext("2d"), pctx = plot.getContext("2d");
  let W = 0, H = 0, PW = 0, PH = 0, dpr = 1, sx = 1, ox = 0, oy = 0, hover = -1, speed = 0.1;
  const xs = meta.x, ys = meta.y;
  let minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
  let rNode = 6;
  const px = new Float64Array(nNodes), py = new Float64Array(nNodes);
  const airState = new Uint8Array(nNodes);

  function layout() {
    dpr = window.devicePixelRatio || 1;
    // fit the topology: the canvas as tall as the network drawn across its width needs
    // (a chain is a strip, not a mostly empty page), between 180 px and 62% of the window
    {
      const w = topo.clientWidth, m0 = 40, sX = Math.max(maxX - minX, 1), sY = Math.max(maxY - minY, 0);
      const want = sY <= 0 ? 180 : ((w - 2 * m0) / sX) * sY + 2 * m0;
      topo.style.height = `${Math.round(Math.max(180, Math.min(window.innerHeight * 0.62, want)))}px`;
    }
    W = topo.clientWidth; H = topo.clientHeight; PW = plot.clientWidth; PH = plot.clientHeight;
    for (const [c, w, h] of [[topo, W, H], [plot, PW, PH]]) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const m = 40, spanX = Math.max(maxX - minX, 1), spanY = Math.max(maxY - minY, 1);
    sx = Math.min((W - 2 * m) / spanX, (H - 2 * m) / spanY); // one scale: the topology to scale
    ox = (W - spanX * sx) / 2; oy = (H - spanY * sx) / 2;
    for (let i = 0; i < nNodes; i++) { px[i] = ox + (xs[i] - minX) * sx; py[i] = oy + (maxY - ys[i]) * sx; }
    // about a quarter of the mean spacing between nodes, so that a dense network stays readable
    const area = Math.max(spanX * sx * spanY * sx, (Math.max(spanX, spanY) * sx) ** 2 / 4); // a chain is a line
    rNode = Math.max(2, Math.min(9, 0.25 * Math.sqrt(area / Math.max(1, nNodes))));
    plotCache = null;
  }

  function persist() { return Math.max(span / 2000, speed * 0.4); }

  function drawTopo() {
    const t = V.t, c = tctx;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, W, H);
    // scale bar
    const bar = Math.pow(10, Math.floor(Math.log10(Math.max(1, 120 / sx))));
    c.fillStyle = "#666"; c.fillRect(10, H - 14, bar * sx, 2); c.font = "11px sans-serif"; c.fillText(`${bar} m`, 10, H - 18);
    if (hover >= 0) {
      c.strokeStyle = "rgba(0,0,0,.45)"; c.setLineDash([]);
      c.beginPath(); c.arc(px[hover], py[hover], meta.tx_range * sx, 0, 2 * Math.PI); c.stroke();
      c.setLineDash([5, 4]); c.beginPath(); c.arc(px[hover], py[hover], meta.cs_range * sx, 0, 2 * Math.PI); c.stroke();
      c.setLineDash([]);
    }
    // each flow's path (the route of its first delivered data packet), in the flow's colour,
    // side by side where paths share a link
    c.lineCap = "round"; c.lineJoin = "round";
    let drawnPaths = 0;
    meta.flows.forEach((f, k) => {
      const p = (f.path || []).filter((n) => n < nNodes);
      if (p.length < 2) return;
      const off = (k - (meta.flows.length - 1) / 2) * Math.min(4, rNode * 0.5);
      c.strokeStyle = FLOWCOL[k % FLOWCOL.length]; c.globalAlpha = 0.35; c.lineWidth = Math.max(3, rNode * 0.7);
      c.beginPath();
      p.forEach((n, i) => { if (i === 0) c.moveTo(px[n] + off, py[n] + off); else c.lineTo(px[n] + off, py[n] + off); });
      c.stroke(); c.globalAlpha = 1;
      const a = p[0];
      c.fillStyle = c.strokeStyle; c.font = "bold 11px sans-serif";
      if (meta.flows.length <= 12) c.fillText(`flow ${f.id}`, px[a] - rNode - 4, py[a] - rNode - 6 - 12 * (k % 3));
      drawnPaths++;
    });
    c.lineWidth = 1; c.lineCap = "butt";
    V.pathsDrawn = drawnPaths;
    // frames on the air now (without the mac series: they give each node's tx/rx state)
    const hi = upper(fStart, t);
    let lo = lower(fStart, t - maxAir);
    let onAir = 0;
    if (!meta.mac_states) airState.fill(0);
    for (let i = lo; i < hi; i++) {
      if (fEnd[i] <= t) continue;
      onAir++;
      const k = col["f.kind"][i], a = col["f.tx"][i], b = col["f.ra"][i];
      if (!meta.mac_states) { airState[a] = 3; if (b >= 0 && airState[b] === 0) airState[b] = 4; }
      c.strokeStyle = KCOL[k]; c.fillStyle = KCOL[k];
      if (b < 0) {
        c.globalAlpha = 0.18; c.beginPath(); c.arc(px[a], py[a], meta.tx_range * sx, 0, 2 * Math.PI); c.fill(); c.globalAlpha = 1;
        continue;
      }
      const f = (t - fStart[i]) / (fEnd[i] - fStart[i]);
      c.lineWidth = k === 2 ? 3 : 2; c.globalAlpha = 0.55;
      c.beginPath(); c.moveTo(px[a], py[a]); c.lineTo(px[b], py[b]); c.stroke(); c.globalAlpha = 1;
      c.beginPath(); c.arc(px[a] + (px[b] - px[a]) * f, py[a] + (py[b] - py[a]) * f, Math.max(2.5, rNode * 0.6), 0, 2 * Math.PI); c.fill();
      if (col["f.flags"][i] & 1) { c.font = "10px sans-serif"; c.fillText("retry", (px[a] + px[b]) / 2 + 4, (py[a] + py[b]) / 2 - 4); }
    }
    c.lineWidth = 1;
    // nodes: MAC state colour, queue bar
    const ql = Math.max(1, meta.queue_limit);
    for (let n = 0; n < nNodes; n++) {
      const s = meta.mac_states ? at(S.mac, n, t, 0) : airState[n];
      c.fillStyle = SCOL[s] || SCOL[0];
      c.beginPath(); c.arc(px[n], py[n], rNode, 0, 2 * Math.PI); c.fill();
      if (nNodes <= 200) { c.strokeStyle = "#555"; c.stroke(); }
      const q = at(S.queue, n, t, 0);
      if (q > 0) {
        const h = Math.max(2, (3 * rNode + 6) * Math.min(1, q / ql));
        c.fillStyle = q >= ql ? "#c0392b" : "#34495e";
        c.fillRect(px[n] + rNode + 2, py[n] + rNode - h, Math.max(2, rNode * 0.6), h);
      }
      if (nNodes <= 40) { c.fillStyle = "#222"; c.font = "11px sans-serif"; c.fillText(String(n), px[n] - 3, py[n] + rNode + 13); }
    }
    // losses at receivers (collided, captured, ...) and drops, shown for a moment after they happen
    const p = persist();
    c.lineWidth = 2;
    for (let j = lower(lostEnd, t - p), e = upper(lostEnd, t); j < e; j++) {
      const i = lostOrder[j], n = col["l.node"][i], r = rNode + 3;
      c.strokeStyle = col["l.fate"][i] === 1 ? "#e74c3c" : "#e67e22";
      c.beginPath(); c.moveTo(px[n] - r, py[n] - r); c.lineTo(px[n] + r, py[n] + r); c.moveTo(px[n] + r, py[n] - r); c.lineTo(px[n] - r, py[n] + r); c.stroke();
    }
    for (let j = lower(rdEnd, t - p), e = upper(rdEnd, t); j < e; j++) {
      const a = col["f.tx"][rd[j]];
      c.strokeStyle = "#c0392b"; c.lineWidth = 3; c.beginPath(); c.arc(px[a], py[a], rNode + 7, 0, 2 * Math.PI); c.stroke();
      c.fillStyle = "#c0392b"; c.font = "bold 11px sans-serif"; c.fillText("retry drop", px[a] + rNode + 9, py[a] - rNode - 6);
    }
    for (let j = lower(dropT, t - p), e = upper(dropT, t); j < e; j++) {
      const n = col["d.node"][j];
      c.fillStyle = "#c0392b"; c.font = "bold 11px sans-serif";
      c.fillText("drop: " + meta.drop_causes[col["d.cause"][j]], px[n] + rNode + 9, py[n] + rNode + 12);
    }
    c.lineWidth = 1;
    V.onAir = onAir;
  }

  // linked plot: the curves drawn once per mode and size, the cursor on top each frame
  let plotCache = null, mode = "cwnd";
  const PM = { l: 52, r: 70, t: 18, b: 32 };
  function niceTicks(max, n) { // about n round ticks from 0 to max
    const raw = max / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    const step = [1, 2, 2.5, 5, 10].map((k) => k * p).find((k) => k >= raw) || raw;
    const out = [];
    for (let v = 0; v <= max * 1.0001; v += step) out.push(+v.toPrecision(12));
    return out;
  }
  function xOf(t) { return PM.l + (t / span) * (PW - PM.l - PM.r); }
  function tOf(x) { return Math.min(span, Math.max(0, ((x - PM.l) / (PW - PM.l - PM.r)) * span)); }
  function renderPlot() {
    const off = document.createElement("canvas");
    off.width = plot.width; off.height = plot.height;
    const c = off.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.fillStyle = "#fff"; c.fillRect(0, 0, PW, PH);
    const lines = [];
    let ymax = 1, label = "";
    if (mode === "cwnd") {
      label = "window min(cwnd, MaxWin) (packets); dashed: MaxWin";
      for (const f of S.cwnd.ids) {
        const a = S.cwnd.off[f], b = S.cwnd.off[f + 1], pts = [];
        for (let i = a; i < b; i++) { pts.push([S.cwnd.t[i], S.cwnd.v[i]]); ymax = Math.max(ymax, S.cwnd.v[i]); }
        const fl = meta.flows.find((x) => x.id === f), cap = fl && fl.max_window != null ? fl.max_window : null;
        if (cap !== null) ymax = Math.max(ymax, cap);
        lines.push({ id: f, pts, step: true, cap });
      }
    } else if (mode === "queue") {
      label = "queue (packets)";
      const ids = S.queue.ids.slice(0, 24); // the first nodes; a thousand lines would say nothing
      for (const n of ids) {
        const a = S.queue.off[n], b = S.queue.off[n + 1], pts = [];
        for (let i = a; i < b; i++) { pts.push([S.queue.t[i], S.queue.v[i]]); ymax = Math.max(ymax, S.queue.v[i]); }
        lines.push({ id: n, pts, step: true });
      }
    } else {
      label = "goodput (kb/s)";
      const bins = 200, dt = span / bins;
      for (const f of S.good.ids) {
        const pts = [];
        let prev = at(S.good, f, 0, 0);
        for (let k = 1; k <= bins; k++) {
          const cur = at(S.good, f, k * dt, prev);
          const rate = ((cur - prev) * 8) / dt / 1e3;
          pts.push([(k - 1) * dt, rate]); pts.push([k * dt, rate]);
          ymax = Math.max(ymax, rate); prev = cur;
        }
        lines.push({ id: f, pts, step: false });
      }
    }
    const y0 = PH - PM.b, yOf = (v) => y0 - (v / (ymax * 1.08)) * (y0 - PM.t);
    c.strokeStyle = "#bbb"; c.beginPath(); c.moveTo(PM.l, PM.t); c.lineTo(PM.l, y0); c.lineTo(PW - PM.r, y0); c.stroke();
    c.fillStyle = "#444"; c.font = "11px sans-serif"; c.textAlign = "right";
    const yt = niceTicks(ymax, Math.max(4, Math.floor((y0 - PM.t) / 24)));
    for (const v of yt) {
      const y = yOf(v);
      c.strokeStyle = "#eee"; c.beginPath(); c.moveTo(PM.l, y); c.lineTo(PW - PM.r, y); c.stroke();
      c.fillText(String(v), PM.l - 4, y + 4);
    }
    c.textAlign = "center";
    const xt = niceTicks(span, Math.max(2, Math.floor((PW - PM.l - PM.r) / 90)));
    for (const v of xt) { const x = xOf(v); c.strokeStyle = "#bbb"; c.beginPath(); c.moveTo(x, y0); c.lineTo(x, y0 + 4); c.stroke(); c.fillText(String(+(meta.from + v).toPrecision(6)), x, y0 + 15); }
    c.fillText("time (s)", PM.l + (PW - PM.l - PM.r) / 2, PH - 3);
    c.textAlign = "left"; c.font = "bold 11px sans-serif";
    c.fillText(label, PM.l + 6, PM.t - 5);
    c.font = "11px sans-serif";
    V.plotTicks = { y: yt.length, x: xt.length };
    lines.forEach((ln, k) => {
      c.strokeStyle = FLOWCOL[k % FLOWCOL.length]; c.lineWidth = 1.2; c.beginPath();
      ln.pts.forEach(([t, v], i) => {
        const x = xOf(t), y = yOf(v);
        if (i === 0) c.moveTo(x, y);
        else if (ln.step) { c.lineTo(x, yOf(ln.pts[i - 1][1])); c.lineTo(x, y); } else c.lineTo(x, y);
      });
      if (ln.step && ln.pts.length) c.lineTo(xOf(span), yOf(ln.pts[ln.pts.length - 1][1]));
      c.stroke();
      if (ln.cap != null) { // the flow's MaxWin, dashed in its colour
        c.setLineDash([4, 3]); c.beginPath(); c.moveTo(PM.l, yOf(ln.cap)); c.lineTo(PW - PM.r, yOf(ln.cap)); c.stroke(); c.setLineDash([]);
      }
      if (k < Math.floor((y0 - PM.t) / 13)) { c.fillStyle = c.strokeStyle; c.fillText((mode === "queue" ? "node " : "flow ") + ln.id, PW - PM.r + 8, PM.t + 8 + 13 * k); }
    });
    plotCache = off;
  }
  function drawPlot() {
    if (!plotCache) renderPlot();
    const c = pctx;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.drawImage(plotCache, 0, 0);
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    const x = xOf(V.t);
    c.strokeStyle = "#c0392b"; c.lineWidth = 1.5; c.beginPath(); c.moveTo(x, PM.t); c.lineTo(x, PH - PM.b); c.stroke(); c.lineWidth = 1;
    V.cursorX = x;
  }

  function draw() {
    drawTopo();
    drawPlot();
    $("clock").textContent = `${(meta.from + V.t).toFixed(6)} s`;
    $("scrub").value = String(Math.round((V.t / span) * 100000));
    V.draws++;
  }

  // --- controls ------------------------------------------------------------------------------
  let last = null;
  function frame(now) {
    if (!V.playing) { last = null; return; }
    if (last !== null) {
      V.t = Math.min(span, V.t + ((now - last) / 1000) * speed);
      if (V.t >= span) V.playing = false, ($("play").innerHTML = "&#9654;");
    }
    last = now;
    draw();
    if (V.playing) requestAnimationFrame(frame);
  }
  V.play = () => { if (!V.playing) { V.playing = true; $("play").innerHTML = "&#10074;&#10074;"; requestAnimationFrame(frame); } };
  V.pause = () => { V.playing = false; $("play").innerHTML = "&#9654;"; draw(); };
  V.seek = (t) => { V.t = Math.min(span, Math.max(0, t)); draw(); };
  V.nextDrop = () => {
    const j = upper(dropTimes, V.t + 1e-9);
    if (j < dropTimes.length) { V.pause(); V.seek(dropTimes[j] + 1e-7); return true; }
    return false;
  };
  V.setMode = (m) => { mode = m; $("plotmode").value = m; plotCache = null; draw(); };
  V.setSpeed = (s) => { speed = s; };
  $("play").onclick = () => (V.playing ? V.pause() : V.play());
  $("speed").onchange = (e) => (speed = parseFloat(e.target.value));
  $("scrub").oninput = (e) => V.seek((parseInt(e.target.value, 10) / 100000) * span);
  $("nextdrop").onclick = () => V.nextDrop();
  $("plotmode").onchange = (e) => V.setMode(e.target.value);
  plot.onclick = (e) => V.seek(tOf(e.offsetX));
  document.addEventListener("keydown", (e) => {
    if (e.key === " ") { e.preventDefault(); V.playing ? V.pause() : V.play(); }
    if (e.key === "n") V.nextDrop();
  });
  topo.onmousemove = (e) => {
    let best = -1, bd = 12 * 12;
    for (let n = 0; n < nNodes; n++) { const d = (px[n] - e.offsetX) ** 2 + (py[n] - e.offsetY) ** 2; if (d < bd) { bd = d; best = n; } }
    hover = best;
    if (best >= 0) {
      tip.style.display = "block"; tip.style.left = `${e.offsetX + 14}px`; tip.style.top = `${e.offsetY + 10}px`;
      const st = meta.mac_states ? STATE[at(S.mac, best, V.t, 0)] : `${STATE[airState[best]]} (on the air)`;
      tip.textContent = `node ${best}  (${xs[best].toFixed(0)}, ${ys[best].toFixed(0)}) m\nMAC ${st}\nqueue ${at(S.queue, best, V.t, 0)}\n` +
        `tx range ${meta.tx_range} m (solid), carrier sense ${meta.cs_range} m (dashed)`;
    } else tip.style.display = "none";
    if (!V.playing) draw();
  };
  topo.onmouseleave = () => { hover = -1; tip.style.display = "none"; if (!V.playing) draw(); };
  window.addEventListener("resize", () => { layout(); draw(); });
  $("legend").innerHTML =
    KIND.map((k, i) => `<span class="k" style="background:${KCOL[i]}"></span>${k}`).join("") +
    (meta.mac_states ? " &nbsp;|&nbsp; MAC:" : " &nbsp;|&nbsp; on the air (no mac series):") +
    STATE.map((s, i) => (meta.mac_states || i === 0 || i >= 3 ? `<span class="k" style="background:${SCOL[i]};border-radius:5px"></span>${s}` : "")).join("") +
    ` &nbsp;|&nbsp; <b style="color:#e74c3c">&#10005;</b> lost at receiver, <b style="color:#c0392b">&#9711;</b> retry-limit drop` +
    ` &nbsp;|&nbsp; ${meta.name}, seed ${meta.seed}, ${nNodes} nodes, ${nF.toLocaleString()} frames, hoptcp ${meta.version}` +
    "<br>" + meta.flows.slice(0, 24).map((f, k) => `<span class="k" style="background:${FLOWCOL[k % FLOWCOL.length]}"></span>` +
      `flow ${f.id}: ${f.src} &rarr; ${f.dst}` + (f.path && f.path.length ? ` via ${f.path.length - 1} hops` : "") +
      (f.max_window != null ? `, MaxWin ${f.max_window}` : "")).join("") +
    (meta.flows.length > 24 ? ` &hellip; and ${meta.flows.length - 24} more flows` : "");
  layout();
  // open at the middle of the first frame on the air, not at an empty t = 0
  if (nF > 0) V.t = Math.min(span, (fStart[0] + fEnd[0]) / 2);
  draw();
  V.ready = true;
})().catch((e) => { document.body.insertAdjacentHTML("afterbegin", `<pre style="color:#c00">hoptcp view: ${e}</pre>`); window.hoptcpViewer = { error: String(e) }; });
