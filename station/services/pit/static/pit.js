// The pit's pages: the floor (a tile per table, the alert list) and a table's page. They show
// what the pit's API says and send what a pit boss asks; they decide nothing about a game:
// every state, reason and word of a table comes in the API's JSON (its "say" in the page's
// language, station.services.pit.words). Live over /api/events (SSE) with reconnect. docs/pit.md, The pages.
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RED = { H: 1, D: 1 };
const PAUSE_CODES = ["card_dropped", "card_exposed", "misdeal", "dispute", "equipment", "other"];
const REFETCH_MS = 250;
const ALERTS_SHOWN = 300; // the list's length at most (open ones first: the rest is history) // at most one refetch of a body per this long (SSE bursts)
const ANSWER_CLOSE_MS = 1500;
// The pit sends an event at least every 5 s (a ping when nothing changes): a stream silent
// this long is dead even if no error says so (a network lost without a close).
const STALE_MS = 12000; // a dialog whose command was applied closes after this long
const LABELS = {
  en: {
    title: "Pit", tables: (n, need) => `${n} tables, ${need} need someone`,
    live: "LIVE", down: "RECONNECTING", noBroker: "NO BROKER", enableSound: "ENABLE SOUND", soundOn: "SOUND ON",
    muted: "MUTED", otherLang: "中文", stats: "STATISTICS", alerts: (n) => `Alerts (${n} open)`,
    online: "online", offline: "OFFLINE", unknown: "not seen yet",
    round: (n) => `round ${n}`, noRound: "no round", shoe: "shoe",
    lag: (s) => `lag ${s} s`, seconds: (s) => `${s} s`, pen: (p) => `cut ${p}%`, cutOut: "cut card out",
    dealer: (d) => `dealer ${d}`, noDealer: "no dealer",
    result: (r) => r.status === "void" ? `R${r.round} VOID` :
      `R${r.round} ${({ banker: "BANKER", player: "PLAYER", tie: "TIE" })[r.winner] || ""} ` +
      `P${r.player_total} B${r.banker_total}`,
    resultLong: (r) => r.status === "void" ? `#${r.round} VOID` :
      `#${r.round} ${({ banker: "BANKER", player: "PLAYER", tie: "TIE" })[r.winner] || ""} ` +
      `P${r.player_total} B${r.banker_total}`,
    ago: "ago", raisedBy: (w) => `raised by ${w}`, ackedBy: (w) => `acknowledged by ${w}`,
    cleared: "cleared at the table", ack: "ACKNOWLEDGE", ackTitle: "Acknowledge the alert",
    ackAll: (n) => `ACKNOWLEDGE ALL ${n}`, ackAllTitle: "Acknowledge every open alert of a kind",
    ackAllWhat: (kind, n) => `${kind}: ${n} open alerts, on every table`,
    ackedN: (n) => `acknowledged ${n} alert${n === 1 ? "" : "s"}`,
    name: "Your name", pin: "PIN or badge", send: "SEND", cancel: "CLOSE",
    reason: "Reason (required)", code: "Why", note: "Note", dealerId: "New dealer's id",
    needName: "Give your name and PIN", needReason: "A void needs a reason",
    needNote: "OTHER needs a note saying what happened",
    sending: "sending...", acked: "acknowledged",
    state: { applied: "APPLIED", refused: "REFUSED", sent: "SENT, NO ANSWER YET",
      unanswered: "NO ANSWER", not_sent: "NOT SENT" },
    noAnswer: (s) => `NO ANSWER after ${s} s`, notSent: "NOT SENT: the table is offline",
    lastKnown: (p) => `last known: ${p}`, offlineFor: "OFFLINE", pausedFor: "PAUSED",
    offlineSince: (d, t) => `OFFLINE for ${d} (since ${t})`,
    offlineActions: "The table is offline: commands cannot reach it and are not sent. " +
      "A dealer change is noted in the pit's journal only.",
    status: { 401: "wrong name or PIN", 423: "PINs locked: wait and try again",
      409: "nothing to do: acknowledged already",
      404: "unknown table or alert", 400: "not a valid request", 0: "the pit does not answer" },
    back: "FLOOR", notPaused: "Not paused", paused: "PAUSED", since: (t) => `for ${t}`,
    noCards: "no card of a round in play", player: "PLAYER", banker: "BANKER",
    results: "Results of the shoe (newest first)", roads: "Roads",
    actions: "Pit boss's actions", answers: "Commands and their answers",
    tableAlerts: "This table's alerts", noAnswers: "none yet",
    action: { resume: "RESUME", void: "VOID", confirm_shuffle: "CONFIRM SHUFFLE",
      close_shoe: "CLOSE SHOE", pause: "PAUSE", dealer_change: "NOTE DEALER CHANGE" },
    ask: { resume: "Resume the table", void: "Void", confirm_shuffle: "Confirm the shuffle",
      close_shoe: "Close the shoe", pause: "Pause the table",
      dealer_change: "Note a dealer change" },
    noted: "noted in the pit's journal",
    codes: { card_dropped: "card dropped", card_exposed: "card exposed", misdeal: "misdeal",
      dispute: "dispute", equipment: "equipment problem", other: "other (write a note)" },
    facts: { phase: "Phase", shoe: "Shoe", round: "Round", dealer: "Dealer", mode: "Mode",
      last: "Last result", pen: "Penetration", lag: "Lag", seen: "Last message" },
    none: "-",
  },
  zh: {
    title: "赌场巡场", tables: (n, need) => `共 ${n} 桌，${need} 桌需要处理`,
    live: "已连接", down: "重新连接中", noBroker: "消息服务器断开", enableSound: "开启声音", soundOn: "声音开",
    muted: "静音", otherLang: "English", stats: "统计", alerts: (n) => `警报（${n} 条未处理）`,
    online: "在线", offline: "离线", unknown: "尚未收到",
    round: (n) => `第 ${n} 局`, noRound: "未开局", shoe: "牌靴",
    lag: (s) => `延迟 ${s} 秒`, seconds: (s) => `${s} 秒`, pen: (p) => `切牌 ${p}%`, cutOut: "切牌已出",
    dealer: (d) => `荷官 ${d}`, noDealer: "无荷官",
    result: (r) => r.status === "void" ? `第${r.round}局 作废` :
      `第${r.round}局 ${({ banker: "庄赢", player: "闲赢", tie: "和局" })[r.winner] || ""} ` +
      `闲${r.player_total} 庄${r.banker_total}`,
    resultLong: (r) => r.status === "void" ? `第${r.round}局 作废` :
      `第${r.round}局 ${({ banker: "庄赢", player: "闲赢", tie: "和局" })[r.winner] || ""} ` +
      `闲${r.player_total} 庄${r.banker_total}`,
    ago: "前", raisedBy: (w) => `发起：${w}`, ackedBy: (w) => `已确认：${w}`,
    cleared: "牌桌已解除", ack: "确认", ackTitle: "确认警报",
    ackAll: (n) => `全部确认（${n} 条）`, ackAllTitle: "确认同类全部未处理警报",
    ackAllWhat: (kind, n) => `${kind}：所有牌桌共 ${n} 条未处理警报`,
    ackedN: (n) => `已确认 ${n} 条警报`,
    name: "姓名", pin: "密码或工牌", send: "发送", cancel: "关闭",
    reason: "原因（必填）", code: "原因", note: "说明", dealerId: "新荷官编号",
    needName: "请填写姓名和密码", needReason: "作废须填写原因",
    needNote: "选择“其他”须填写说明",
    sending: "发送中...", acked: "已确认",
    state: { applied: "已执行", refused: "被拒绝", sent: "已发送，尚无应答",
      unanswered: "无应答", not_sent: "未发送" },
    noAnswer: (s) => `${s} 秒内无应答`, notSent: "未发送：牌桌离线",
    lastKnown: (p) => `最后已知：${p}`, offlineFor: "离线", pausedFor: "暂停",
    offlineSince: (d, t) => `离线 ${d}（自 ${t}）`,
    offlineActions: "牌桌离线：指令无法送达，不会发送。更换荷官只记入巡场日志。",
    status: { 401: "姓名或密码错误", 423: "密码已锁定：请稍后再试",
      409: "无需处理：已被确认",
      404: "未知牌桌或警报", 400: "请求无效", 0: "巡场服务无响应" },
    back: "返回总览", notPaused: "未暂停", paused: "暂停", since: (t) => `${t}`,
    noCards: "当前无进行中的牌局", player: "闲家", banker: "庄家",
    results: "本牌靴结果（最新在前）", roads: "路单",
    actions: "巡场操作", answers: "指令及应答", tableAlerts: "本桌警报", noAnswers: "暂无",
    action: { resume: "恢复", void: "作废", confirm_shuffle: "确认洗牌", close_shoe: "结束牌靴",
      pause: "暂停", dealer_change: "登记更换荷官" },
    ask: { resume: "恢复牌桌", void: "作废", confirm_shuffle: "确认洗牌", close_shoe: "结束牌靴",
      pause: "暂停牌桌", dealer_change: "登记更换荷官" },
    noted: "已记入巡场日志",
    codes: { card_dropped: "掉牌", card_exposed: "露牌", misdeal: "派错牌", dispute: "争议",
      equipment: "设备故障", other: "其他（须填写说明）" },
    facts: { phase: "状态", shoe: "牌靴", round: "局数", dealer: "荷官", mode: "类型",
      last: "上局结果", pen: "切牌位置", lag: "延迟", seen: "最新消息" },
    none: "-",
  },
};

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// The pit sends a page asked without ?lang= to its pit.language: the address says it.
const asked = params.get("lang");
const lang = asked in LABELS ? asked : "en";
const L = LABELS[lang];
const page = document.body.classList.contains("floor") ? "floor" : "table";
const tableId = page === "table" ? decodeURIComponent(location.pathname.split("/").pop()) : null;
let serverOffset = 0; // the pit's clock minus this browser's, from each body's "ts"
let audio = null;
let soundOn = false;
let muted = false;
let source = null;
let lastName = "";
let lastByte = Date.now();
let openCount = -1; // the tiles' open alerts, summed: the list is refetched when it changes
window.__beeps = []; // the alerts a sound was played for (the browser tests read it)
window.__renders = 0;
window.__alertRenders = 0;
window.__drops = 0; // the times the event stream broke (the browser tests read it)

function say(obj) { return (obj && obj.say && (obj.say[lang] || obj.say.en)) || {}; }
function setText(el, text) { if (el.textContent !== text) el.textContent = text; }
function now() { return Date.now() + serverOffset; }
function syncClock(ts) {
  const t = Date.parse(ts);
  if (!Number.isNaN(t)) serverOffset = t - Date.now();
}
function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${two(m)}:${two(r)}`;
}
function since(iso) { return duration(now() - Date.parse(iso)); }
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function sinceEl(iso, fmt) {
  const e = el("span", "since");
  e.dataset.at = iso;
  e.dataset.fmt = fmt || "";
  tickOne(e);
  return e;
}
function clockOf(iso) {
  const d = new Date(Date.parse(iso));
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
// A ticking duration, from a timestamp of the JSON: no round trip to the pit.
function tickOne(e) {
  const t = since(e.dataset.at);
  const fmt = e.dataset.fmt;
  setText(e, fmt === "paused" ? L.since(t) : fmt === "for" ? t :
    fmt === "offline" ? L.offlineSince(t, clockOf(e.dataset.at)) :
    lang === "zh" ? `${t}${L.ago}` : `${t} ${L.ago}`);
}

function applyLanguage() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  const other = lang === "zh" ? "en" : "zh";
  $("other-lang").textContent = L.otherLang;
  $("other-lang").href = `?lang=${other}`;
  $("sound-enable").textContent = L.enableSound;
  $("mute").textContent = muted ? L.muted : L.soundOn;
  $("name-label").textContent = L.name;
  $("pin-label").textContent = L.pin;
  $("reason-label").textContent = L.reason;
  $("code-label").textContent = L.code;
  $("note-label").textContent = L.note;
  $("dealer-label").textContent = L.dealerId;
  $("ask-send").textContent = L.send;
  $("ask-cancel").textContent = L.cancel;
  const codes = $("ask-code");
  codes.textContent = "";
  for (const c of PAUSE_CODES) {
    const o = el("option", "", L.codes[c]);
    o.value = c;
    codes.appendChild(o);
  }
  if (page === "floor") {
    document.title = L.title;
    $("stats-link").textContent = L.stats;
    $("stats-link").href = `/stats?lang=${lang}`;
  } else {
    $("back").textContent = L.back;
    $("back").href = `/?lang=${lang}`;
    $("player-title").textContent = L.player;
    $("banker-title").textContent = L.banker;
    $("results-title").textContent = L.results;
    $("roads-title").textContent = L.roads;
    $("actions-title").textContent = L.actions;
    $("answers-title").textContent = L.answers;
    $("alerts-title").textContent = L.tableAlerts;
    for (const b of document.querySelectorAll("#actions button")) {
      b.textContent = L.action[b.dataset.action];
    }
  }
}

// --- sound -----------------------------------------------------------------------------
// The browser may refuse to play before a click: the first click on ENABLE SOUND makes the
// audio context; from then on a new alert beeps (unless muted).
function enableSound() {
  try {
    audio = audio || new AudioContext();
    audio.resume();
  } catch (e) { /* no audio device: the list still shows the alert */ }
  soundOn = true;
  $("sound-enable").hidden = true;
  $("mute").hidden = false;
}
$("sound-enable").addEventListener("click", enableSound);
$("mute").addEventListener("click", () => {
  muted = !muted;
  $("mute").setAttribute("aria-pressed", String(muted));
  $("mute").textContent = muted ? L.muted : L.soundOn;
});
function beep(alert) {
  window.__beeps.push(alert.id);
  if (!soundOn || muted || !audio) return;
  try {
    // A falling pair, twice: unlike the dealer page's sounds, so the two are not confused.
    const notes = [[880, 0], [660, 0.2], [880, 0.5], [660, 0.7]];
    for (const [freq, at] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      osc.type = "triangle";
      gain.gain.value = 0.25;
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + at);
      osc.stop(audio.currentTime + at + 0.18);
    }
  } catch (e) { /* no audio device: the list still shows the alert */ }
}

// --- fetching ----------------------------------------------------------------------------
const timers = {};
// For the browser tests: the floor has had its first floor and no refetch is waiting.
window.__idle = () => openCount >= 0 && !Object.values(timers).some(Boolean);
function later(name, fn) {
  // One refetch per name in flight; a burst of events costs one request.
  if (timers[name]) return;
  timers[name] = setTimeout(async () => {
    try { await fn(); } finally { timers[name] = null; }
  }, REFETCH_MS);
}
async function getJSON(url) {
  const resp = await fetch(url, { cache: "no-store" });
  if (!resp.ok) throw new Error(`${resp.status}`);
  return resp.json();
}
async function loadTables() {
  renderFloor(await getJSON("/api/tables"));
}
async function loadAlerts() { renderAlerts((await getJSON("/api/alerts")).alerts, $("alert-list")); }
async function loadTable() {
  const body = await getJSON(`/api/tables/${encodeURIComponent(tableId)}`);
  renderTable(body);
}

function connect() {
  if (source) source.close();
  lastByte = Date.now();
  source = new EventSource(`/api/events?lang=${lang}`);
  for (const name of ["tables", "alert", "table", "ping"]) {
    source.addEventListener(name, () => { lastByte = Date.now(); });
  }
  source.addEventListener("ping", (ev) => {
    try { syncClock(JSON.parse(ev.data).ts); } catch (e) { /* a heartbeat all the same */ }
  });
  source.onopen = () => {
    streamLive = true;
    renderConn();
    refresh();
  };
  source.addEventListener("tables", (ev) => {
    if (page !== "floor") return;
    const body = JSON.parse(ev.data);
    renderFloor(body);
    // An ack or a clear changes the open alerts' count as well as the list: refetch the
    // list then (a new alert comes as its own event), not on every move of every table.
    const open = body.tables.reduce((n, t) => n + t.open_alerts, 0);
    if (open !== openCount) {
      openCount = open;
      later("alerts", loadAlerts);
    }
  });
  source.addEventListener("alert", (ev) => {
    const alert = JSON.parse(ev.data);
    if (page === "floor" || alert.table === tableId) beep(alert);
    if (page === "floor") later("alerts", loadAlerts);
    else if (alert.table === tableId) later("table", loadTable);
  });
  source.addEventListener("table", (ev) => {
    if (page === "table" && JSON.parse(ev.data).table === tableId) later("table", loadTable);
  });
  source.onerror = () => {
    down();
    // EventSource retries by itself; after a refused answer it stops: start again.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
  };
}
function down() {
  window.__drops += 1;
  streamLive = false;
  renderConn();
}
setInterval(() => {
  if (Date.now() - lastByte > STALE_MS) {
    down();
    connect();
  }
}, 1000);
function refresh() {
  if (page === "floor") {
    later("tables", loadTables);
    later("alerts", loadAlerts);
  } else {
    later("table", loadTable);
  }
}

// --- the floor -----------------------------------------------------------------------------
const tiles = new Map();
function tileEl(id) {
  let t = tiles.get(id);
  if (t) return t;
  const a = el("a", "tile");
  a.href = `/tables/${encodeURIComponent(id)}?lang=${lang}`;
  a.dataset.table = id;
  const head = el("div", "head");
  head.append(el("span", "id", id), el("span", "count num"), el("span", "online"));
  a.append(head, el("div", "needs fit"), el("div", "phase fit"), el("div", "row r1 fit"),
    el("div", "row r2 fit"), el("div", "row shoe num fit"));
  t = { a, parts: {
    count: a.querySelector(".count"), online: a.querySelector(".online"),
    needs: a.querySelector(".needs"), phase: a.querySelector(".phase"),
    r1: a.querySelector(".r1"), r2: a.querySelector(".r2"), shoe: a.querySelector(".shoe") } };
  tiles.set(id, t);
  return t;
}
function onlineWord(online) { return online === true ? L.online : online === false ? L.offline : L.unknown; }
function renderTile(tile) {
  const t = tileEl(tile.table);
  const s = say(tile);
  const p = t.parts;
  t.a.href = `/tables/${encodeURIComponent(tile.table)}?lang=${lang}`;
  t.a.className = ["tile", ...tile.needs.map((n) => `need-${n}`)].join(" ");
  // The badge: online, or OFFLINE / PAUSED and for how long (ticking on the pit's clock).
  const off = tile.online === false;
  const since = off ? tile.offline_since : tile.pause ? tile.pause.since : null;
  const badge = off ? L.offlineFor : tile.pause ? L.pausedFor : onlineWord(tile.online);
  if (p.online.dataset.key !== `${badge}|${since}`) {
    p.online.dataset.key = `${badge}|${since}`;
    p.online.textContent = since ? `${badge} ` : badge;
    if (since) p.online.append(sinceEl(since, "for"));
  }
  p.online.className = "online" + (off ? " off" : tile.pause ? " paused" :
    tile.online === null ? " unknown" : "");
  setText(p.count, tile.open_alerts ? `${tile.open_alerts}` : "");
  p.count.hidden = !tile.open_alerts;
  // The needs (but offline: the badge says it), then what still stands though acknowledged
  // (a note, in the tile's own colour).
  const needs = (s.needs || []).filter((_, i) => !off || tile.needs[i] !== "offline");
  p.needs.textContent = "";
  if (needs.length) p.needs.append(el("span", "need", needs.join(" · ")));
  for (const n of s.notes || []) p.needs.append(el("span", "note", n));
  const pause = s.pause;
  const phase = pause ? (pause.reason || s.phase) : (s.phase || L.unknown);
  // An offline table's phase is what it said last, not what it is doing.
  setText(p.phase, off && (pause || s.phase) ? L.lastKnown(phase) : phase);
  p.phase.classList.toggle("stale", off);
  p.r1.textContent = "";
  p.r1.append(el("span", "num", tile.round ? L.round(tile.round) : L.noRound),
    el("span", "", tile.dealer ? L.dealer(tile.dealer) : L.noDealer),
    el("span", "", s.mode || ""));
  p.r2.textContent = "";
  const last = tile.last_result;
  if (last) p.r2.append(el("span", `res num ${last.status === "void" ? "void" : last.winner}`, L.result(last)));
  if (tile.cut_card_out) {
    p.r2.append(el("span", "num", tile.penetration !== null ?
      L.pen((tile.penetration * 100).toFixed(1)) : L.cutOut));
  }
  if (tile.lag_s !== null && tile.lag_s !== undefined) p.r2.append(el("span", "num", L.lag(tile.lag_s.toFixed(1))));
  setText(p.shoe, tile.shoe ? `${L.shoe} ${tile.shoe}` : "");
}
// The floor fits its region: the tiles shrink with their number and the window (a grid
// computed here, the tile's contents scaled with its font size), down to MIN_SCALE, below
// which the region scrolls. A text still too long for its line is set smaller (fitText).
const TILE_W = 256, TILE_H = 150, GAP = 8, MIN_SCALE = 0.5, MAX_SCALE = 1.6;
let laidOut = "";
function layoutFloor() {
  const box = $("tiles");
  const n = Math.max(1, box.children.length);
  const W = box.clientWidth - 2 * GAP, H = box.clientHeight - 2 * GAP;
  const key = `${n}|${W}|${H}`;
  if (key === laidOut) return false;
  laidOut = key;
  let best = null;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = Math.floor((W - (cols - 1) * GAP) / cols), h = Math.floor((H - (rows - 1) * GAP) / rows);
    const scale = Math.min(w / TILE_W, h / TILE_H);
    if (!best || scale > best.scale) best = { cols, w, h, scale };
  }
  let { cols, w, h, scale } = best;
  if (scale > MAX_SCALE) { scale = MAX_SCALE; w = TILE_W * scale; h = TILE_H * scale; }
  if (scale < MIN_SCALE) {
    scale = MIN_SCALE; w = TILE_W * scale; h = TILE_H * scale;
    cols = Math.max(1, Math.floor((W + GAP) / (w + GAP)));
  }
  box.style.gridTemplateColumns = `repeat(${cols}, ${Math.floor(w)}px)`;
  box.style.gridAutoRows = `${Math.floor(h)}px`;
  box.style.setProperty("--scale", scale.toFixed(4));
  return true;
}
function fitText(e) {
  const key = `${e.textContent}|${laidOut}`;
  if (e.dataset.fitted === key) return;
  e.dataset.fitted = key;
  e.style.fontSize = "";
  const full = parseFloat(getComputedStyle(e).fontSize);
  let size = full;
  while ((e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight) && size > full * 0.6) {
    size *= 0.92;
    e.style.fontSize = `${size.toFixed(2)}px`;
  }
  e.title = size < full ? e.textContent : "";
}
function fitFloor() {
  layoutFloor();
  for (const e of document.querySelectorAll("#tiles .fit")) fitText(e);
}
window.addEventListener("resize", fitFloor);
// The pit's own link to the broker: a banner while it is lost, and the tiles marked stale
// once it has been lost past the keep-alive (on the pit's clock, ticking).
let link = null;
// The bar's badge: the page's own stream first, then the pit's link to the broker, so it
// never says LIVE while the banner says the floor is not updated.
let streamLive = false;
function renderConn() {
  const lost = !!link && !link.connected;
  $("conn").classList.toggle("down", !streamLive || lost);
  setText($("conn"), !streamLive ? L.down : lost ? L.noBroker : L.live);
}
function renderLink() {
  const banner = $("link-lost");
  renderConn();
  if (!banner) return;
  const lost = !!link && !link.connected;
  const moved = document.body.classList.contains("link-lost") !== lost;
  banner.hidden = !lost;
  document.body.classList.toggle("link-lost", lost);
  if (lost) {
    setText(banner, (link.say && (link.say[lang] || link.say.en)) || "");
    fitText(banner);
  }
  const stale = lost && (link.stale ||
    (link.lost_since && now() - Date.parse(link.lost_since) > link.stale_after_s * 1000));
  for (const [, t] of tiles) t.a.classList.toggle("link-stale", stale);
  if (moved) fitFloor();
}
function renderFloor(body) {
  syncClock(body.ts);
  window.__renders += 1;
  link = body.broker || null;
  setText($("pit-name"), body.pit || L.title);
  const need = body.tables.filter((x) => x.needs.length).length;
  setText($("summary"), L.tables(body.tables.length, need));
  const box = $("tiles");
  const seen = new Set();
  body.tables.forEach((tile, i) => {
    renderTile(tile);
    seen.add(tile.table);
    const a = tiles.get(tile.table).a;
    if (box.children[i] !== a) box.insertBefore(a, box.children[i] || null);
  });
  for (const [id, t] of tiles) {
    if (!seen.has(id)) { t.a.remove(); tiles.delete(id); }
  }
  renderLink();
  fitFloor();
}

// The alert list: open ones with the acknowledge control, the others greyed.
function renderAlerts(alerts, list) {
  window.__alertRenders += 1;
  // Built apart and swapped in at once: the list is never empty in between, so a list the
  // pit boss scrolled down stays where it is.
  const items = document.createDocumentFragment();
  let open = 0;
  // The open alerts of each kind over the whole floor: a kind open more than once is
  // acknowledged with one name and PIN (ACKNOWLEDGE ALL), on the floor's list.
  const ofKind = {};
  for (const a of alerts) {
    if (a.acked_by === null && a.cleared_at === null) ofKind[a.kind] = (ofKind[a.kind] || 0) + 1;
  }
  alerts.forEach((a, i) => {
    const isOpen = a.acked_by === null && a.cleared_at === null;
    open += isOpen ? 1 : 0;
    if (i < ALERTS_SHOWN) items.append(alertEl(a, isOpen, page === "floor" ? ofKind[a.kind] : 0));
  });
  list.replaceChildren(items);
  if (page === "floor") setText($("alerts-title"), L.alerts(open));
}
function alertEl(a, isOpen, sameKind) {
  const s = say(a);
  const li = el("li", "alert" + (isOpen ? "" : " done"));
  li.dataset.id = a.id;
  const what = el("span", "what");
  what.append(el("span", "table", `${a.table} `), document.createTextNode(s.kind || a.kind));
  li.append(what, sinceEl(a.raised_at));
  if (s.detail) li.append(el("div", "detail", s.detail));
  if (s.by) li.append(el("div", "who", L.raisedBy(s.by)));
  const ack = el("div", "ack");
  if (a.acked_by !== null) ack.append(el("span", "", L.ackedBy(a.acked_by)));
  else if (a.cleared_at !== null) ack.append(el("span", "", L.cleared));
  if (a.acked_by === null) {
    const b = el("button", "", L.ack);
    b.type = "button";
    b.addEventListener("click", (ev) => {
      ev.preventDefault();
      openAsk({ kind: "ack", title: L.ackTitle, what: `${a.table}: ${s.kind || a.kind}`, id: a.id });
    });
    ack.append(b);
  }
  if (isOpen && sameKind > 1) {
    const all = el("button", "ack-all", L.ackAll(sameKind));
    all.type = "button";
    all.addEventListener("click", (ev) => {
      ev.preventDefault();
      openAsk({ kind: "ack_kind", title: L.ackAllTitle, what: L.ackAllWhat(s.kind || a.kind, sameKind),
        alertKind: a.kind });
    });
    ack.append(all);
  }
  li.append(ack);
  return li;
}

// --- a table's page ------------------------------------------------------------------------
function cardEl(code) {
  if (code === null) return el("span", "card back");
  const rank = code[0] === "T" ? "10" : code.slice(0, -1);
  const suit = code.slice(-1);
  const c = el("span", "card" + (RED[suit] ? " red" : ""));
  c.append(el("span", "", rank), el("span", "", SUITS[suit] || suit));
  return c;
}
let lastRoads = "";
function fact(name, value) {
  const d = el("div");
  d.append(el("b", "", L.facts[name]), el("span", "num", value));
  return d;
}
function renderTable(body) {
  window.__renders += 1;
  const s = say(body);
  document.title = `${L.title}: ${body.table}`;
  setText($("table-id"), body.table);
  const off = body.online === false;
  const onlineBox = $("online");
  const needs = [...(s.needs || []).filter((_, i) => !off || body.needs[i] !== "offline"),
    ...(s.notes || [])];
  const onlineKey = `${off}|${body.offline_since}|${lang}|${needs.join(" · ")}`;
  if (onlineBox.dataset.key !== onlineKey) {
    onlineBox.dataset.key = onlineKey;
    onlineBox.textContent = "";
    // Offline: since when, and for how long (ticking); the needs say the rest.
    if (off && body.offline_since) onlineBox.append(sinceEl(body.offline_since, "offline"));
    else onlineBox.append(document.createTextNode(onlineWord(body.online)));
    if (needs.length) onlineBox.append(document.createTextNode(` · ${needs.join(" · ")}`));
  }
  onlineBox.classList.toggle("off", off);
  // An offline table's station commands are not sent: the buttons say so before a PIN.
  for (const b of document.querySelectorAll("#actions button")) {
    b.disabled = off && b.dataset.action !== "dealer_change";
  }
  setText($("actions-why"), off ? L.offlineActions : "");
  const facts = $("facts");
  facts.textContent = "";
  const last = body.last_result;
  facts.append(
    fact("phase", off && s.phase ? L.lastKnown(s.phase) : s.phase || L.none),
    fact("round", body.round ? `${body.round}` : L.none),
    fact("dealer", body.dealer || L.none), fact("mode", s.mode || L.none),
    fact("last", last ? L.result(last) : L.none),
    fact("pen", body.cut_card_out ? (body.penetration !== null ?
      `${(body.penetration * 100).toFixed(1)}%` : L.cutOut) : L.none),
    fact("lag", body.lag_s !== null ? L.seconds(body.lag_s.toFixed(1)) : L.none),
    fact("seen", L.none),
  );
  if (body.last_seen) {
    const seenEl = facts.lastChild.lastChild;
    seenEl.replaceWith(sinceEl(body.last_seen));
  }
  const shoe = el("div", "shoe");
  shoe.style.gridColumn = "1 / span 4";
  shoe.append(el("b", "", L.facts.shoe), el("span", "num", body.shoe || L.none));
  facts.append(shoe);
  // The open pause, and what resume and void will do, in the station's own words.
  const panel = $("pause-panel");
  panel.classList.toggle("on", body.pause !== null);
  const title = $("pause-title");
  title.textContent = "";
  if (body.pause) {
    title.append(document.createTextNode(`${L.paused} `), sinceEl(body.pause.since, "paused"));
    const ps = s.pause || {};
    setText($("pause-reason"), ps.reason || body.pause.reason);
    const who = [ps.raised_by && L.raisedBy(ps.raised_by), ps.code,
      body.pause.note && `${L.note}: ${body.pause.note}`].filter(Boolean);
    setText($("pause-who"), who.join(" · "));
    // The station's words begin with the action ("resume continues the round"); one line
    // when it says one thing of both ("resume or void sets the card aside").
    setText($("on-resume"), s.on_resume || "");
    setText($("on-void"), s.on_void && s.on_void !== s.on_resume ? s.on_void : "");
  } else {
    title.textContent = L.notPaused;
    for (const id of ["pause-reason", "pause-who", "on-resume", "on-void"]) setText($(id), "");
  }
  for (const hand of ["player", "banker"]) {
    const box = $(`${hand}-cards`);
    box.textContent = "";
    for (const c of body.cards[hand]) box.append(cardEl(c));
    if (!body.cards[hand].length) box.append(el("span", "empty", L.noCards));
  }
  const results = $("results");
  results.textContent = "";
  for (const r of body.results.slice(-10).reverse()) {
    const li = el("li", `res num ${r.status === "void" ? "void" : r.winner}`, L.resultLong(r));
    const why = (s.void_reasons || {})[String(r.round)];
    if (why) li.title = why;
    results.append(li);
  }
  const svg = body.roads && body.roads.svg ? (body.roads.svg[lang] || body.roads.svg.en) : "";
  if (svg !== lastRoads) {
    lastRoads = svg;
    $("roads").src = svg ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` : "";
  }
  const answers = $("answers");
  answers.textContent = "";
  const commands = body.commands || [];
  if (!commands.length) answers.append(el("li", "", L.noAnswers));
  for (const c of commands) answers.append(answerEl(c));
  // The dialog follows the command it sent: a late answer, or none within the pit's wait.
  const mine = asking && asking.cid ? commands.find((c) => c.id === asking.cid) : null;
  if (mine && mine.state !== asking.state) {
    asking.state = mine.state;
    answer(answerText(mine), mine.state);
  }
  renderAlerts(body.alerts, $("table-alerts"));
}
// A command's answer in words: the state, and the table's words (or the pit's own: not sent
// to an offline table, no answer within pit.answer_timeout_s).
function answerText(c) {
  if (c.state === "unanswered" && c.after_s !== null && c.after_s !== undefined) return L.noAnswer(c.after_s);
  if (c.state === "not_sent") return L.notSent;
  const detail = (say(c).detail !== undefined ? say(c).detail : lang === "en" ? c.detail : "") || "";
  return `${L.state[c.state] || c.state}${detail ? ` - ${detail}` : ""}`;
}
function answerEl(c) {
  const li = el("li", `answer-${c.state}`);
  li.dataset.id = c.id;
  const what = L.action[c.action] || c.action;
  li.textContent = `${what} (${c.by}): ${answerText(c)}`;
  return li;
}

// --- asking a pit boss's name and PIN --------------------------------------------------------
let asking = null;
function openAsk(what) {
  asking = what;
  $("ask-title").textContent = what.title;
  $("ask-what").textContent = what.what || "";
  $("reason-row").hidden = what.kind !== "void";
  $("code-row").hidden = what.kind !== "pause";
  $("dealer-row").hidden = what.kind !== "dealer_change";
  $("note-row").hidden = !(what.kind === "pause" || what.kind === "dealer_change");
  for (const id of ["ask-reason", "ask-note", "ask-dealer", "ask-pin"]) $(id).value = "";
  $("ask-name").value = lastName;
  $("ask-answer").textContent = "";
  $("ask-answer").className = "";
  $("ask-send").disabled = false;
  $("ask").hidden = false;
  (lastName ? $("ask-pin") : $("ask-name")).focus();
}
function closeAsk() { $("ask").hidden = true; asking = null; }
$("ask-cancel").addEventListener("click", closeAsk);
document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && asking) closeAsk(); });
function answer(text, cls) {
  const a = $("ask-answer");
  a.textContent = text;
  a.className = cls ? `answer-${cls}` : "";
}
$("ask-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!asking) return;
  const name = $("ask-name").value.trim();
  const pin = $("ask-pin").value;
  if (name) lastName = name;
  if (!name || !pin) { answer(L.needName, "refused"); return; }
  const body = { name, pin };
  let url;
  const kind = asking.kind;
  if (kind === "ack") {
    url = `/api/alerts/${asking.id}/ack`;
  } else if (kind === "ack_kind") {
    url = "/api/alerts/ack";
    body.kind = asking.alertKind;
  } else if (kind === "dealer_change") {
    url = `/api/tables/${encodeURIComponent(tableId)}/dealer-change`;
    if ($("ask-dealer").value.trim()) body.dealer = $("ask-dealer").value.trim();
    if ($("ask-note").value.trim()) body.note = $("ask-note").value.trim();
  } else {
    url = `/api/tables/${encodeURIComponent(tableId)}/commands/${kind}`;
    if (kind === "void") {
      body.reason = $("ask-reason").value.trim();
      if (!body.reason) { answer(L.needReason, "refused"); return; }
    }
    if (kind === "pause") {
      body.reason = $("ask-code").value;
      if ($("ask-note").value.trim()) body.note = $("ask-note").value.trim();
      if (body.reason === "other" && !body.note) { answer(L.needNote, "refused"); return; }
    }
  }
  answer(L.sending, "sent");
  $("ask-send").disabled = true;
  let resp = null;
  let said = {};
  try {
    resp = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    said = await resp.json().catch(() => ({}));
  } catch (e) { resp = null; }
  $("ask-send").disabled = false;
  $("ask-pin").value = "";
  if (!resp || !resp.ok) {
    const code = resp ? resp.status : 0;
    const why = L.status[code] || `${code}`;
    answer(lang === "en" && said.error ? `${why}: ${said.error}` : why, "refused");
    return;
  }
  let state = "applied";
  if (kind === "ack") {
    answer(L.acked, "applied");
  } else if (kind === "ack_kind") {
    answer(L.ackedN(said.acknowledged || 0), "applied");
  } else if (kind === "dealer_change") {
    answer(L.noted, "applied");
  } else {
    const c = said.command || {};
    state = c.state || "sent";
    if (asking) { asking.cid = c.id; asking.state = state; }
    answer(answerText({ ...c, state }), state);
  }
  refresh();
  if (state === "applied") setTimeout(() => { if (asking && asking.kind === kind) closeAsk(); }, ANSWER_CLOSE_MS);
});
if (page === "table") {
  for (const b of document.querySelectorAll("#actions button")) {
    b.addEventListener("click", () => openAsk({ kind: b.dataset.action,
      title: `${L.ask[b.dataset.action]}: ${tableId}`, what: "" }));
  }
}

// --- the clock: the pit's time, and every "time since" ticking --------------------------------
function tick() {
  const d = new Date(now());
  const two = (n) => String(n).padStart(2, "0");
  setText($("clock"), `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`);
  for (const e of document.querySelectorAll(".since")) tickOne(e);
  if (page === "floor") renderLink();
}
applyLanguage();
setText($("conn"), L.down);
tick();
setInterval(tick, 1000);
connect();
refresh();
