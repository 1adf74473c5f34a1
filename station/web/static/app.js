// The dealer's page. It shows what the station says and sends what the dealer presses;
// it decides nothing about the game: every instruction, reason and allowed button comes in
// the station's view (GET /api/state, and the /api/events stream). docs/display.md.
"use strict";

const OFFLINE_AFTER_MS = 1500; // the server sends a byte at least every 250 ms
const LABELS = {
  en: {
    round: "ROUND", shoe: "SHOE", dealt: "dealt", left: "left", lastRound: "LAST ROUND",
    player: "PLAYER", banker: "BANKER", new_shoe: "NEW SHOE (N)",
    open_betting: "OPEN BETTING (O)", close_betting: "CLOSE BETTING (C)",
    resume: "RESUME", void: "VOID", paused: "PAUSED", pin: "Supervisor PIN or badge",
    offline: "STATION OFFLINE - DO NOT DEAL",
    offlineWhy: "The station is not answering. Stop dealing; this page comes back by itself.",
    connecting: "CONNECTING...", mute: "SOUND ON (M)", muted: "MUTED (M)",
    upstream: "upstream", connected: "connected", disconnected: "DISCONNECTED", noShoe: "no shoe",
    tie: "TIE", wins: "WINS", void_: "VOID", needPin: "Enter the supervisor PIN first",
    refused: "Refused", done: "Done", ok: "OK", lost: "LOST",
    dealer: "DEALER", noDealer: "no dealer signed in", dealerLabel: "Dealer id",
    sign_in: "SIGN IN", sign_out: "SIGN OUT", changeAsked: "another dealer asked for",
    reveal: "REVEAL (R)", skip: "SKIP ROUND", request_new_shoe: "NEW SHOE REQUEST",
    request_dealer: "ANOTHER DEALER", vipTitle: "VIP player's requests",
    vipPin: "Supervisor PIN", closesIn: "BETTING CLOSES IN", opensIn: "BETTING OPENS IN",
    revealBy: "opens by itself in", faceDown: "face down",
    byTimer: (s) => `Betting runs on the station's countdown (${s} s)`,
    byUpstream: "The game server opens and closes betting",
  },
  zh: {
    round: "局", shoe: "牌靴", dealt: "已发", left: "剩余", lastRound: "最后一局",
    player: "闲家", banker: "庄家", new_shoe: "新牌靴 (N)", open_betting: "开始下注 (O)",
    close_betting: "停止下注 (C)", resume: "恢复", void: "作废", paused: "暂停",
    pin: "主管密码或工牌", offline: "工作站离线 - 请勿派牌",
    offlineWhy: "工作站无响应。请停止派牌；本页面会自动恢复。", connecting: "连接中...",
    mute: "声音开 (M)", muted: "静音 (M)", upstream: "上游", connected: "已连接",
    disconnected: "断开", noShoe: "无牌靴", tie: "和", wins: "赢", void_: "作废",
    needPin: "请先输入主管密码", refused: "拒绝", done: "完成", ok: "正常", lost: "断开",
    dealer: "荷官", noDealer: "无荷官签到", dealerLabel: "荷官编号", sign_in: "签到",
    sign_out: "签退", changeAsked: "已请求更换荷官",
    reveal: "开牌 (R)", skip: "飞牌", request_new_shoe: "请求新牌靴", request_dealer: "更换荷官",
    vipTitle: "包桌玩家请求", vipPin: "主管密码", closesIn: "停止下注倒计时",
    opensIn: "开始下注倒计时", revealBy: "自动开牌倒计时", faceDown: "牌面朝下",
    byTimer: (s) => `由工作站倒计时控制下注（${s}秒）`,
    byUpstream: "由游戏服务器开始和停止下注",
  },
};
const KEYS = { n: "new_shoe", o: "open_betting", c: "close_betting", r: "reveal" };
const DEALER_ACTIONS = { new_shoe: 1, open_betting: 1, close_betting: 1, reveal: 1 };

let lang = "en";
let L = LABELS.en;
let state = null;
let lastByte = 0;
let offline = false;
let source = null;
let roadsVersion = -1;
let lastPromptSeq = -1;
let lastKind = "";
let muted = localStorage.getItem("station.muted") === "1";
let audio = null;
// The station's clock minus this page's (seconds): a countdown is counted on the station's
// clock, re-synced by every heartbeat and every fresh view (docs/display.md).
let clockOffset = null;
let clockSyncedAt = 0;

// What the tests and the benchmark read: every instruction received, in order, and the
// latency from the station applying an event to this page's DOM showing it.
window.__prompts = [];
window.__latencies = [];
window.__offlineAt = null;
window.__beeps = [];
window.__onlineAt = null;

const $ = (id) => document.getElementById(id);

function t(key) { return L[key] || LABELS.en[key] || key; }

function syncClock(serverTs) {
  if (typeof serverTs !== "number" || serverTs < clockSyncedAt) return;
  clockSyncedAt = serverTs;
  clockOffset = serverTs - Date.now() / 1000;
}

function stationNow() { return Date.now() / 1000 + (clockOffset ?? 0); }

function setOffline(on, why) {
  if (on === offline) return;
  offline = on;
  document.body.classList.toggle("offline", on);
  $("offline").hidden = !on;
  if (on) {
    window.__offlineAt = Date.now();
    $("offline-why").textContent = t("offlineWhy") + (why ? ` (${why})` : "");
  } else {
    window.__onlineAt = Date.now();
  }
}

function connect() {
  if (source) source.close();
  source = new EventSource("/api/events");
  source.addEventListener("state", (ev) => {
    lastByte = Date.now();
    const env = JSON.parse(ev.data);
    syncClock(env.applied);
    render(env.state);
    setOffline(false);
    window.__latencies.push(Date.now() - env.applied * 1000);
  });
  source.addEventListener("ping", (ev) => {
    lastByte = Date.now();
    try { syncClock(JSON.parse(ev.data).ts); } catch (e) { /* a heartbeat all the same */ }
  });
  source.onerror = () => {
    setOffline(true, "connection lost");
    // EventSource retries by itself (retry: 500), except after a refused answer.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
  };
}

const pageStart = Date.now();
setInterval(() => {
  if (lastByte === 0 && !offline && Date.now() - pageStart > OFFLINE_AFTER_MS) {
    setOffline(true, "no answer");
  }
  if (lastByte && Date.now() - lastByte > OFFLINE_AFTER_MS && !offline) {
    setOffline(true, "no heartbeat");
    connect();
  }
}, 100);

function beep(kind) {
  if (muted || !state || state.sound === false) return;
  window.__beeps.push(kind);
  try {
    audio = audio || new AudioContext();
    // Two distinct sounds: a rising pair for a third card, a low repeated one for a pause.
    const notes = kind === "pause" ? [[330, 0], [330, 0.35], [330, 0.7]] : [[660, 0], [880, 0.18]];
    for (const [freq, at] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      osc.type = kind === "pause" ? "square" : "sine";
      gain.gain.value = 0.2;
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + at);
      osc.stop(audio.currentTime + at + 0.25);
    }
  } catch (e) { /* no audio device: the screen still says it */ }
}

function cardEl(code) {
  const el = document.createElement("span");
  el.className = "card" + (/[HD]$/.test(code) ? " red" : "");
  el.textContent = code.replace(/^T/, "10");
  return el;
}

// A card dealt face down: its back. The station never sent its value (docs/modes.md).
function backEl() {
  const el = document.createElement("span");
  el.className = "card back";
  el.title = t("faceDown");
  el.setAttribute("aria-label", t("faceDown"));
  el.textContent = "?";
  return el;
}

// The countdowns, counted here between views on the station's clock: betting's (large), and
// a reveal's deadline (the squeeze's, or the VIP table's system opening the cards).
function tick() {
  const s = state;
  const box = $("countdown");
  const b = s && !s.paused && s.betting;
  const at = b ? (b.closes_at ?? b.opens_at) : null;
  if (at == null || clockOffset === null) {
    box.hidden = true;
  } else {
    const left = Math.max(0, at - stationNow());
    box.hidden = false;
    $("countdown-label").textContent = b.closes_at != null ? t("closesIn") : t("opensIn");
    $("countdown-s").textContent = `${Math.ceil(left - 0.05)} s`;
    box.classList.toggle("last", left <= 3);
    window.__countdown = left;
  }
  const rv = s && !s.paused && s.reveal;
  const by = $("reveal-by");
  if (!rv || rv.auto_at == null || clockOffset === null) {
    by.hidden = true;
  } else {
    by.hidden = false;
    by.textContent = `${t("revealBy")} ${Math.ceil(Math.max(0, rv.auto_at - stationNow()) - 0.05)} s`;
  }
}
setInterval(tick, 100);

function render(s) {
  state = s;
  if (s.language !== lang) {
    lang = s.language in LABELS ? s.language : "en";
    L = LABELS[lang];
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    labels();
  }
  document.body.classList.remove("connecting");
  for (const [seq, text, detail] of s.recent_prompts) {
    if (seq > lastPromptSeq || (lastPromptSeq === -1)) {
      window.__prompts.push({ seq, text, detail });
      lastPromptSeq = seq;
    }
  }
  const p = s.prompt;
  const zh = lang === "zh" && p.zh ? p.zh : null;
  $("table-id").textContent = s.table;
  $("instruction").textContent = zh ? zh.text : p.text;
  $("detail").textContent = zh ? zh.detail : p.detail;
  document.body.classList.toggle("third", p.kind === "third_card");
  document.body.classList.toggle("betting", p.kind === "betting");
  if (p.kind !== lastKind && (p.kind === "third_card" || p.kind === "pause")) beep(p.kind);
  lastKind = p.kind;
  const r = s.round;
  $("round-no").textContent = r.no ? (lang === "zh" ? `第${r.no}${t("round")}` : `${t("round")} ${r.no}`) : "";
  const shoe = s.shoe;
  $("shoe-state").textContent = shoe
    ? `${t("shoe")}: ${shoe.drawn} ${t("dealt")} / ${shoe.left} ${t("left")}` : t("noShoe");
  $("last-round").hidden = !(shoe && shoe.last_round);
  for (const side of ["player", "banker"]) {
    const box = $(side);
    box.querySelector(".total").textContent = r[`${side}_total`] ?? "";
    const cards = box.querySelector(".cards");
    const down = Array.from({ length: r[`${side}_down`] || 0 }, backEl);
    cards.replaceChildren(...r[side].map(cardEl), ...down);
  }
  renderDealer(s.dealer);
  renderModes(s);
  const devs = $("devices");
  devs.replaceChildren(...s.devices.map((d) => {
    const el = document.createElement("span");
    el.className = "dev " + (d.ok ? "ok" : "bad");
    el.textContent = `${d.name} ${d.ok ? t("ok") : t("lost")}`;
    el.title = d.reason;
    return el;
  }));
  const up = s.upstream;
  const upEl = $("upstream");
  upEl.className = up.connected === false ? "bad" : "ok";
  upEl.textContent = `${t("upstream")} ${up.type}` +
    (up.connected === null ? "" : ` ${up.connected ? t("connected") : t("disconnected")}`);
  for (const b of document.querySelectorAll("#controls button.cmd")) {
    const allowed = s.actions.includes(b.dataset.action);
    b.disabled = !allowed;
    b.classList.toggle("ready", allowed);
  }
  $("results").replaceChildren(...s.results.slice().reverse().map((res) => {
    const li = document.createElement("li");
    li.className = res.status === "void" ? "void" : res.winner;
    if (res.status === "void") li.textContent = `${res.round}: ${t("void_")}`;
    else {
      const head = res.winner === "tie" ? t("tie")
        : `${res.winner === "player" ? "P" : "B"} ${t("wins")}`;
      li.textContent = `${res.round}: ${head} P${res.player_total} B${res.banker_total}`;
    }
    return li;
  }));
  if (s.roads_version !== roadsVersion) {
    roadsVersion = s.roads_version;
    const img = document.createElement("img");
    img.alt = "roads";
    img.src = `/api/roads.svg?v=${roadsVersion}`;
    $("roads").replaceChildren(img);
  }
  const paused = s.paused;
  const pause = $("pause");
  if (paused) {
    $("pause-title").textContent = t("paused");
    $("pause-reason").textContent = zh && zh.reason ? zh.reason : (p.reason || p.text);
    $("pause-todo").textContent = zh && zh.todo ? zh.todo : (p.todo || "");
    $("pause-choice").textContent = zh ? zh.detail : p.detail;
    for (const b of document.querySelectorAll("#supervisor button.cmd")) {
      b.disabled = !s.actions.includes(b.dataset.action);
    }
  } else if (!pause.hidden) {
    $("pin").value = "";
    $("pause-message").textContent = "";
  }
  pause.hidden = !paused;
  tick();
}

// The table modes (docs/display.md): betting buttons only where the dealer drives betting,
// REVEAL on a face-down table, the VIP requests greyed out with the station's reason, and
// the alerts, on screen until what clears them happens.
function renderModes(s) {
  const mode = s.mode || "standard";
  const bet = s.betting ? s.betting.mode : "dealer";
  for (const a of ["open_betting", "close_betting"]) {
    document.querySelector(`#controls button[data-action=${a}]`).hidden = bet !== "dealer";
  }
  document.querySelector("#controls button[data-action=reveal]").hidden =
    mode !== "squeeze" && mode !== "vip";
  const how = $("betting-how");
  how.hidden = bet === "dealer";
  how.textContent = bet === "timer" ? t("byTimer")(s.betting.betting_s)
    : bet === "upstream" ? t("byUpstream") : "";
  document.body.classList.toggle("reveal", !!s.reveal);
  const vip = s.vip;
  $("vip").hidden = !vip;
  if (vip) {
    for (const b of document.querySelectorAll("#vip button.vipcmd")) {
      const req = vip.requests[b.dataset.action];
      b.disabled = !req.ok;
      const why = document.querySelector(`#vip .why[data-why=${b.dataset.action}]`);
      why.textContent = req.ok ? "" : (lang === "zh" && req.zh ? req.zh : req.why);
    }
  }
  const alerts = s.alerts || [];
  $("alerts").hidden = alerts.length === 0;
  $("alerts").replaceChildren(...alerts.map((a) => {
    const el = document.createElement("div");
    el.className = "alert";
    el.dataset.alert = a.alert;
    el.textContent = lang === "zh" && a.zh ? a.zh : a.text;
    return el;
  }));
}

// Who deals (docs/dealers.md): the id signed in, and the sign-in form, usable only when the
// station takes a sign-in now (otherwise it says when).
function renderDealer(dl) {
  if (!dl) return;
  $("dealer-id").textContent = dl.id ? `${t("dealer")} ${dl.id}` : t("noDealer");
  $("dealer-id").className = dl.id ? "ok" : "bad";
  if (dl.change_requested) $("dealer-id").textContent += ` (${t("changeAsked")})`;
  $("sign-in").disabled = !dl.can_sign;
  $("sign-out").disabled = !dl.can_sign || !dl.id;
  $("dealer-when").textContent = lang === "zh" && dl.zh ? dl.zh.when : dl.when;
}

function labels() {
  for (const b of document.querySelectorAll("button.cmd")) b.textContent = t(b.dataset.action);
  $("pin-label").textContent = t("pin");
  $("dealer-label").textContent = t("dealerLabel");
  $("sign-in").textContent = t("sign_in");
  $("sign-out").textContent = t("sign_out");
  $("offline-title").textContent = t("offline");
  $("offline-why").textContent = t("offlineWhy");
  $("player").querySelector(".name").textContent = t("player");
  $("banker").querySelector(".name").textContent = t("banker");
  $("last-round").textContent = t("lastRound");
  $("mute").textContent = muted ? t("muted") : t("mute");
  for (const b of document.querySelectorAll("#vip button.vipcmd")) b.textContent = t(b.dataset.action);
  $("vip-title").textContent = t("vipTitle");
  $("vip-pin-label").textContent = t("vipPin");
  $("mute").setAttribute("aria-pressed", String(muted));
}

async function send(action, body, where) {
  const out = $(where);
  try {
    const resp = await fetch(`/api/commands/${action.replace(/_/g, "-")}`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await resp.json();
    const why = lang === "zh" && answer.zh ? answer.zh : answer.error;
    out.textContent = answer.ok ? "" : `${t("refused")}: ${why}`;
    return answer.ok === true;
  } catch (e) {
    out.textContent = `${t("refused")}: ${e}`;
    return false;
  }
}

for (const b of document.querySelectorAll("#controls button.cmd")) {
  b.addEventListener("click", () => send(b.dataset.action, { actor: "dealer" }, "message"));
}

$("dealer").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const id = $("dealer-input").value.trim();
  if (!id) return;
  if (await send("sign_in", { actor: "dealer", dealer: id }, "message")) $("dealer-input").value = "";
});
$("sign-out").addEventListener("click", () => send("sign_out", { actor: "dealer" }, "message"));

function supervise(action) {
  const pin = $("pin").value;
  if (!pin) { $("pause-message").textContent = t("needPin"); return; }
  $("pin").value = "";
  send(action, { actor: "supervisor", pin }, "pause-message");
}
$("supervisor").addEventListener("submit", (ev) => { ev.preventDefault(); supervise("resume"); });
// The VIP player's requests, made for the player by a supervisor (docs/display.md).
for (const b of document.querySelectorAll("#vip button.vipcmd")) {
  b.addEventListener("click", () => {
    const pin = $("vip-pin").value;
    if (!pin) { $("vip-message").textContent = t("needPin"); return; }
    $("vip-pin").value = "";
    send(b.dataset.action, { actor: "supervisor", pin }, "vip-message");
  });
}
$("vip").addEventListener("submit", (ev) => ev.preventDefault());
$("void").addEventListener("click", () => supervise("void"));
$("mute").addEventListener("click", () => {
  muted = !muted;
  localStorage.setItem("station.muted", muted ? "1" : "0");
  labels();
});

// Keys for a USB keypad or a foot pedal: N, O, C, and Enter or Space for the one dealer
// action the station takes now. Never while typing a PIN or offline; while paused only M.
document.addEventListener("keydown", (ev) => {
  if (ev.target instanceof HTMLInputElement || !state || offline) return;
  const key = ev.key.toLowerCase();
  if (key === "m") { $("mute").click(); return; }
  if (state.paused) return;
  let action = KEYS[key];
  if (!action && (key === "enter" || key === " ")) {
    const dealer = state.actions.filter((a) => a in DEALER_ACTIONS);
    if (dealer.length === 1) action = dealer[0];
  }
  if (action) {
    ev.preventDefault();
    send(action, { actor: "dealer (key)" }, "message");
  }
});

labels();
$("instruction").textContent = t("connecting");
connect();
