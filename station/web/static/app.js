// The dealer's page. It shows what the station says and sends what the dealer presses;
// it decides nothing about the game: every instruction, reason and allowed button comes in
// the station's view (GET /api/state, and the /api/events stream). docs/display.md.
"use strict";

const OFFLINE_AFTER_MS = 1500; // the server sends a byte at least every 250 ms
// The instruction's smallest type, as a share of the viewport's height: 5% is 54 px at 1080
// and 40 px at 800 lines, capitals about 11 mm on a 24" 1080p screen: read at 2 m. Fitting a
// long instruction into its band never goes below it (docs/display.md; the layout test).
const MIN_INSTRUCTION_VH = 5;
const MAX_INSTRUCTION_VH = 8;
const NOTICE_MS = 6000; // a station's notice stays this long in the message line
const VOID_ARMED_MS = 5000; // VOID asks again; a second press within this voids
const VIP_OPEN_MS = 60000; // the VIP requests close by themselves after this long unused
const PICKER_OPEN_MS = 60000; // the pause's reason picker closes by itself after this long
// A pedal held this long asks for the dealer's pause (its reason picker) instead of the one
// dealer command a short press sends (docs/display.md, keys).
const PEDAL_HOLD_MS = 1000;
// The dealer's pause codes in the order the picker shows them, keys 1-6 (station.table.procedures).
const PAUSE_CODES = ["card_dropped", "card_exposed", "misdeal", "dispute", "equipment", "other"];
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
// The page's labels in every language: the catalogues' (station/web/locale/<tag>/pages.po),
// inlined by the server (#words, station.web.catalogue.page_words); none are kept here.
// A label with parameters becomes a function of them, in the order ARGS names them; a
// label with plural forms picks one by the catalogue's own plural expression.
const WORDS = JSON.parse(document.getElementById("words").textContent);
const ARGS = {
  shoeState: ["dealt", "left", "pct"], resumeNot: ["why"], deviceLost: ["name"], voided: ["n"],
  wrongPin: ["n"], lockedFor: ["s"], seconds: ["n"], stands: ["n"], pausedFor: ["t"],
  "voidAsk.refund": ["n"], "voidAsk.shoe": [], "voidAsk.aside": [], byTimer: ["s"],
  packs: ["list"], cutAt: ["pct"], roundNo: ["n"], offlineWhyMore: ["why"],
  result: ["n", "p", "b", "head"],
};
// `{x}` takes the parameter x, `{X}` the same in capitals.
function fill(text, args) {
  return text.replace(/\{(\w+)\}/g, (all, k) => {
    const v = args[k] ?? args[k.toLowerCase()];
    if (v === undefined) return all;
    return k === k.toLowerCase() ? String(v) : String(v).toUpperCase();
  });
}
function labelsOf(cat) {
  // The plural expression is the catalogue's Plural-Forms (C syntax, valid as a script's).
  const plural = new Function("n", `return Number(${cat.plural});`);
  const out = {};
  for (const [key, said] of Object.entries(cat.words)) {
    const names = ARGS[key];
    let value = said;
    if (names) {
      value = (...given) => {
        const args = Object.fromEntries(names.map((n, i) => [n, given[i]]));
        const text = Array.isArray(said) ? said[Math.min(plural(args.n), said.length - 1)] : said;
        return fill(text, args);
      };
    }
    const path = key.split(".");
    let at = out;
    for (const part of path.slice(0, -1)) at = at[part] = at[part] || {};
    at[path[path.length - 1]] = value;
  }
  const result = out.result;
  out.result = (n, p, b, head, nat) => result(n, p, b, head) + (nat ? out.resultNatural : "");
  return out;
}
const LABELS = Object.fromEntries(Object.entries(WORDS).map(([tag, cat]) => [tag, labelsOf(cat)]));
// The devices' names per language: the station's one declaration (station.web.devicenames),
// inlined by the server into the page (#device-names); none are kept here.
const DEVICE_NAMES = JSON.parse(document.getElementById("device-names").textContent);
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
let noticeSeq = null;
let noticeUntil = 0;
let lockedUntil = 0;
let lockedWhere = null;
let voidArmedUntil = 0;
let vipOpenUntil = 0;
let pickerOpenUntil = 0;
let pedalTimer = null;
let pedalLong = false;
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
window.__minInstructionVh = MIN_INSTRUCTION_VH;

const $ = (id) => document.getElementById(id);

function t(key) { return L[key] ?? LABELS.en[key] ?? key; }

// Text fitted to its fixed box: the largest size from `maxVh` down to `minVh` (of the
// viewport's height) at which it shows whole. The box never grows; nothing else moves.
// `widthOnly`: for a box whose height follows its text (the countdown's figures).
function fit(el, maxVh, minVh, widthOnly = false) {
  const vh = window.innerHeight / 100;
  let size = maxVh * vh;
  const min = minVh * vh;
  el.style.fontSize = `${size}px`;
  const over = () => el.scrollWidth > el.clientWidth + 1 ||
    (!widthOnly && el.scrollHeight > el.clientHeight + 1);
  while (size > min && over()) {
    size = Math.max(min, size * 0.92);
    el.style.fontSize = `${size}px`;
  }
}

// The instruction and its reason share the band: the instruction as large as it fits (never
// under MIN_INSTRUCTION_VH), the reason under it on as many lines as the band leaves it. A
// long reason (a VIP reveal's: the round, who opens the cards, when the system does) is kept
// at DETAIL_READ_VH at least by giving up some of the instruction's size, never its minimum.
const VIP_WHY_MAX_VH = 2.2;
const VIP_WHY_MIN_VH = 1.6;
const DETAIL_MAX_VH = 4.6;
const DETAIL_READ_VH = 3;
const DETAIL_MIN_VH = 2.4;
function fitTexts() {
  const ins = $("instruction");
  const detail = $("detail");
  const vh = window.innerHeight / 100;
  let max = MAX_INSTRUCTION_VH;
  for (;;) {
    fit(ins, max, MIN_INSTRUCTION_VH);
    fit(detail, DETAIL_MAX_VH, DETAIL_MIN_VH);
    const insVh = parseFloat(ins.style.fontSize) / vh;
    if (parseFloat(detail.style.fontSize) / vh >= DETAIL_READ_VH - 0.01 ||
        insVh <= MIN_INSTRUCTION_VH + 0.01) return;
    max = Math.max(MIN_INSTRUCTION_VH, insVh * 0.92);
  }
}

// The header band. What it says shrinks (from BAR_MAX_VH to BAR_ONE_LINE_VH of the height)
// to fit the width the clock and the sound button leave it; when it has more to say than
// that line holds, it takes two lines, fitted to the band (BAR_MIN_VH at the least). The
// clock and the sound button never shrink or move.
const BAR_MAX_VH = 3.2;
const BAR_ONE_LINE_VH = 2.4;
const BAR_MIN_VH = 1.4;
function fitBar() {
  const info = $("bar-info");
  info.classList.remove("two");
  fit(info, BAR_MAX_VH, BAR_ONE_LINE_VH, true);
  if (info.scrollWidth > info.clientWidth + 1) {
    info.classList.add("two");
    fit(info, BAR_ONE_LINE_VH * 1.1, BAR_MIN_VH);
  }
  fit($("mute"), 2.2, 1.4, true);
}

function fitAll() {
  fitTexts();
  fit($("pause-reason"), 5, 2.4);
  fit($("pause-todo"), 3.8, 2);
  fit($("pause-choice"), 3, 1.8);
  fit($("last-result"), 3.4, 1.6);
  fit($("message"), 3.4, 1.4);
  fit($("alerts"), 3.4, 1.6);
  fit($("betting-how"), 3, 1.6);
  fit($("pause-message"), 2.6, 1.4);
  fit($("vip-message"), 2.2, 1.2);
  fit($("picker-title"), 4, 2);
  fit($("picker-message"), 2.6, 1.4);
  for (const b of document.querySelectorAll("#picker .reason")) fit(b, 3.6, 1.8);
  fit($("shuffle-packs"), 2.2, 1.2);
  fit($("confirm-shuffle"), 2.6, 1.4);
  fit($("shuffle-message"), 2.2, 1.2);
  fit($("dealer-when"), 1.8, 1.0);  // the sign-in rule: whole, on the lines its box has
  // Button labels: one line, whole, in their fixed boxes (a longer language shrinks them).
  for (const b of document.querySelectorAll("#controls button.cmd")) fit(b, 3.4, 1.8);
  for (const b of document.querySelectorAll("#vip .vipcmd")) fit(b, 2.2, 1.2);
  // Why a VIP request is greyed out: up to two lines under its button, as large as they fit.
  for (const w of document.querySelectorAll("#vip .why")) fit(w, VIP_WHY_MAX_VH, VIP_WHY_MIN_VH);
  fitBar();
}
window.addEventListener("resize", fitAll);

// A card as rank and suit: 10 for T, the suit's symbol (hearts and diamonds red), and the
// suit's letter small, so colour is never the only signal.
function cardParts(code) {
  const m = /^(10|[2-9TJQKA])([SHDC])$/.exec(code);
  if (!m) return null;
  return { rank: m[1] === "T" ? "10" : m[1], suit: m[2] };
}

function cardEl(code) {
  const el = document.createElement("span");
  const parts = cardParts(code);
  el.className = "card";
  el.dataset.code = code;
  if (!parts) { el.textContent = code; return el; }
  el.classList.toggle("red", parts.suit === "H" || parts.suit === "D");
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = parts.rank;
  const suit = document.createElement("span");
  suit.className = "suit-sym";
  suit.textContent = SUITS[parts.suit];
  const letter = document.createElement("span");
  letter.className = "sl";
  letter.textContent = t("suitLetter")[parts.suit];
  el.append(rank, suit, letter);
  return el;
}

// The station's words with every card code drawn as rank and suit (TS -> 10♠, red suits
// red): the same card reads the same in the instruction as on its tile.
const CODE_RE = /(?<![A-Za-z0-9])(10|[2-9TJQKA])([SHDC])(?![A-Za-z0-9])/g;
function setText(el, text) {
  const nodes = [];
  let at = 0;
  for (const m of (text || "").matchAll(CODE_RE)) {
    nodes.push(document.createTextNode(text.slice(at, m.index)));
    const span = document.createElement("span");
    span.className = "suit" + (m[2] === "H" || m[2] === "D" ? " red" : "");
    span.textContent = (m[1] === "T" ? "10" : m[1]) + SUITS[m[2]];
    nodes.push(span);
    at = m.index + m[0].length;
  }
  nodes.push(document.createTextNode((text || "").slice(at)));
  el.replaceChildren(...nodes);
}

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
    const said = why ? t("why")[why] : "";
    $("offline-why").textContent = t("offlineWhy") +
      (!said ? "" : t("offlineWhyMore")(said));
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
    setOffline(true, "lost");
    // EventSource retries by itself (retry: 500), except after a refused answer.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
  };
}

const pageStart = Date.now();
setInterval(() => {
  if (lastByte === 0 && !offline && Date.now() - pageStart > OFFLINE_AFTER_MS) {
    setOffline(true, "none");
  }
  if (lastByte && Date.now() - lastByte > OFFLINE_AFTER_MS && !offline) {
    setOffline(true, "quiet");
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

// A card dealt face down: its back. The station never sent its value (docs/modes.md).
function backEl() {
  const el = document.createElement("span");
  el.className = "card back";
  el.title = t("faceDown");
  el.setAttribute("aria-label", t("faceDown"));
  el.textContent = "?";
  return el;
}

function secs(left) { return Math.ceil(Math.max(0, left) - 0.05); }

function clockText(s) {
  const m = Math.floor(s / 60);
  const r = String(Math.floor(s % 60)).padStart(2, "0");
  return `${m}:${r}`;
}

// Everything that counts, counted here between views on the station's clock: betting's
// countdown (large), a reveal's deadline, the clock, the time paused, the PIN lockout, the
// notice's few seconds and VOID's confirmation.
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
    const n = secs(left);
    const shown = t("seconds")(n);
    const cd = $("countdown-s");
    if (cd.textContent !== shown) {
      // The figure large, its unit small: one line in the band's timer column.
      const unit = document.createElement("span");
      unit.className = "unit";
      const head = shown.slice(0, shown.indexOf(" ") + 1) || String(n);
      unit.textContent = shown.slice(head.length);
      cd.replaceChildren(document.createTextNode(head), unit);
      cd.setAttribute("aria-label", shown);
      fit(box, 11, 4, true);
    }
    box.classList.toggle("last", left <= 3);
    window.__countdown = left;
  }
  const ns = s && !s.paused && s.betting && s.betting.new_shoe_by;
  const nsBox = $("new-shoe-by");
  if (ns == null || clockOffset === null) {
    nsBox.hidden = true;
  } else {
    nsBox.hidden = false;
    nsBox.textContent = `${t("newShoeBy")} ${t("seconds")(secs(ns - stationNow()))}`;
  }
  const rv = s && !s.paused && s.reveal;
  const by = $("reveal-by");
  if (!rv || rv.auto_at == null || clockOffset === null) {
    by.hidden = true;
  } else {
    by.hidden = false;
    by.textContent = `${t("revealBy")} ${t("seconds")(secs(rv.auto_at - stationNow()))}`;
  }
  const now = new Date(stationNow() * 1000);
  $("clock").textContent = now.toLocaleTimeString("en-GB", { hour12: false });
  if (s && s.paused && s.paused_at != null) {
    $("pause-since").textContent = t("pausedFor")(clockText(Math.max(0, stationNow() - s.paused_at)));
  } else {
    $("pause-since").textContent = "";
  }
  if (noticeUntil && Date.now() > noticeUntil) {
    noticeUntil = 0;
    $("message").textContent = "";
  }
  if (lockedUntil) {
    const left = secs((lockedUntil - Date.now()) / 1000);
    const out = $(lockedWhere);
    if (left <= 0) { lockedUntil = 0; out.textContent = ""; }
    else out.textContent = `${t("refused")}: ${t("lockedFor")(left)}`;
  }
  // The timers' column only while one counts: the instruction has the band's width else.
  const timing = !box.hidden || !by.hidden || !nsBox.hidden;
  if (timing !== document.body.classList.contains("timing")) {
    document.body.classList.toggle("timing", timing);
    fitTexts();
    if (!box.hidden) fit(box, 11, 4, true);
  }
  if (voidArmedUntil && Date.now() > voidArmedUntil) disarmVoid();
  if (vipOpenUntil && Date.now() > vipOpenUntil) openVip(false);
  if (pickerOpenUntil && Date.now() > pickerOpenUntil) openPicker(false);
}
setInterval(tick, 100);

// The VIP player's requests are a supervisor's, made now and then: behind one button, open
// until used or for a minute, so the dealer's panel is not a PIN field all shoe long.
function openVip(on) {
  vipOpenUntil = on ? Date.now() + VIP_OPEN_MS : 0;
  $("vip-body").hidden = !on;
  document.body.classList.toggle("vip-open", on);  // the panel's row is theirs meanwhile
  $("vip-toggle").setAttribute("aria-expanded", String(on));
  $("vip-toggle").textContent = on ? t("vipClose") : t("vipOpen");
  if (!on) $("vip-pin").value = "";
  fitAll();
}

// The dealer's own pause (seed 000): PAUSE, key P or a long press of the pedal opens the
// reason picker over the instruction band; a reason posts the pause, the station answers.
// It stays open until a reason is chosen, CANCEL, or a minute passes: a pause the station
// raised meanwhile makes the dealer's refused, with the station's words.
function openPicker(on) {
  pickerOpenUntil = on ? Date.now() + PICKER_OPEN_MS : 0;
  $("picker").hidden = !on;
  document.body.classList.toggle("picking", on);
  $("picker-message").textContent = "";
  if (!on) $("picker-note").value = "";
  fitAll();
}

function choosePause(code) {
  const note = $("picker-note").value.trim();
  if (code === "other" && !note) {  // refused here: the station would refuse it too
    // Said, never focused for the dealer: the note takes keys only once the dealer opens it
    // (a click, a tab), else the next number key would be typed into it, not choose.
    setText($("picker-message"), t("needNote"));
    fit($("picker-message"), 2.6, 1.4);
    return;
  }
  const body = { actor: "dealer", reason: code };
  if (note) body.note = note;
  openPicker(false);
  send("pause", body, "message");
}

function disarmVoid() {
  voidArmedUntil = 0;
  $("void").classList.remove("armed");
  if ($("pause-message").dataset.ask === "void") {
    $("pause-message").textContent = "";
    delete $("pause-message").dataset.ask;
  }
}

function showNotice(text, good) {
  setText($("message"), text);
  $("message").classList.toggle("good", !!good);
  noticeUntil = Date.now() + NOTICE_MS;
  fit($("message"), 3.4, 1.4);
}

function render(s) {
  state = s;
  if (s.language !== lang) {
    lang = s.language in LABELS ? s.language : "en";
    L = LABELS[lang];
    document.documentElement.lang = WORDS[lang].html;
    $("message").textContent = "";  // said in the other language: not shown again
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
  const zh = p.zh || null;
  document.body.classList.toggle("checking", !!s.shuffle_check && !s.paused);
  $("table-id").textContent = s.table;
  // One countdown per timer: while one counts, the instruction without its fixed figure.
  const said = p.live || p.said || (zh ? zh : p);
  setText($("instruction"), said.text);
  setText($("detail"), said.detail);
  document.body.classList.toggle("third", p.kind === "third_card");
  document.body.classList.toggle("betting", p.kind === "betting");
  document.body.classList.toggle("paused", !!s.paused);
  if (p.kind !== lastKind && (p.kind === "third_card" || p.kind === "pause")) beep(p.kind);
  lastKind = p.kind;
  const r = s.round;
  // Between rounds the instruction is about the next round (ROUND 5: OPEN BETTING): so is
  // the header, never one behind it.
  const no = s.phase === "between_rounds" && s.shoe ? r.no + 1 : r.no;
  $("round-no").textContent = no ? t("roundNo")(no) : "";
  const shoe = s.shoe;
  if (shoe) {
    const total = shoe.drawn + shoe.left;
    const pct = total ? Math.round((100 * shoe.drawn) / total) : 0;
    $("shoe-state").textContent = t("shoeState")(shoe.drawn, shoe.left, pct);
  } else {
    $("shoe-state").textContent = t("noShoe");
  }
  // LAST ROUND once the cut card is out (or the shoe's end was asked for: who asked); once
  // the shoe is closed, why it closed.
  const ended = s.shoe_end ? t("shoeEnd")[s.shoe_end] : "";
  const why = shoe && shoe.last_round ? t("lastRoundWhy")[shoe.last_round_why] : "";
  $("last-round").textContent = ended || why || t("lastRound");
  $("last-round").hidden = !ended && !(shoe && shoe.last_round);
  // Where the cut card was, once it is out: the shoe's penetration.
  const pen = shoe && shoe.penetration != null ? Math.round(100 * shoe.penetration) : null;
  $("cut-at").hidden = pen === null;
  $("cut-at").textContent = pen === null ? "" : t("cutAt")(pen);
  renderHands(s);
  renderDealer(s.dealer);
  renderModes(s);
  renderStatus(s);
  renderNotices(s);
  for (const b of document.querySelectorAll("#controls button.cmd")) {
    const allowed = s.actions.includes(b.dataset.action);
    b.disabled = !allowed;
    b.classList.toggle("ready", allowed && b.dataset.action !== "pause");
  }
  renderShuffle(s);
  const last = s.results.length ? s.results[s.results.length - 1] : null;
  $("last-result").textContent = !last ? "" : last.status === "void" ? t("voided")(last.round)
    : t("result")(last.round, last.player_total, last.banker_total, t("heads")[last.winner],
                  last.natural);
  drawRoads(s.roads_version);
  const paused = s.paused;
  const pause = $("pause");
  if (paused) {
    $("pause-title").textContent = t("paused");
    const plain = p.plain || [p.reason || p.text];
    setText($("pause-reason"), plain.join(t("join")));
    setText($("pause-todo"), zh && zh.todo ? (zh.todo_now ?? zh.todo) : (p.todo_now ?? p.todo ?? ""));
    setText($("pause-choice"), zh ? zh.detail : p.detail);
    // What the station would refuse now (a device still lost) is shown disabled, with why
    // beside it in the message line unless an answer to the supervisor is showing there.
    const refusedNow = (s.refused_now_zh || s.refused_now) || {};
    for (const b of document.querySelectorAll("#supervisor button.cmd")) {
      b.disabled = !s.actions.includes(b.dataset.action);
      b.title = refusedNow[b.dataset.action] || "";
    }
    const msg = $("pause-message");
    const why = refusedNow.resume ? t("resumeNot")(refusedNow.resume) : "";
    const shown = msg.textContent === msg.dataset.why;  // nothing else written there since
    if (why && (!msg.textContent || shown)) {
      msg.textContent = msg.dataset.why = why;
    } else if (!why && shown && msg.dataset.why) {
      msg.textContent = "";
    }
    if (!why) delete msg.dataset.why;
  } else if (!pause.hidden) {
    $("pin").value = "";
    $("pause-message").textContent = "";
    disarmVoid();
  }
  pause.hidden = !paused;
  $("supervisor").hidden = !paused;
  tick();
  fitAll();
}

// The shuffle check (table.shuffle_check: supervisor): the supervisor's PIN and CONFIRM
// SHUFFLE in the panel, with the packs registered so far.
function renderShuffle(s) {
  const check = s.shuffle_check;
  const on = !!check && !s.paused;
  if (!on && !$("shuffle").hidden) {
    $("shuffle-pin").value = "";
    $("shuffle-message").textContent = "";
  }
  $("shuffle").hidden = !on;
  $("confirm-shuffle").disabled = !s.actions.includes("confirm_shuffle");
  const packs = check ? check.packs : [];
  $("shuffle-packs").textContent = packs.length ? t("packs")(packs.join(", ")) : t("noPacks");
}

// The roads, drawn by the station to this panel's size and in the page's language: again
// after each round and when the panel's size changes.
let roadsShape = "";
function drawRoads(version) {
  const box = $("roads");
  const shape = `w=${box.clientWidth}&h=${box.clientHeight}&lang=${lang}`;
  if (version === roadsVersion && shape === roadsShape) return;
  roadsVersion = version;
  roadsShape = shape;
  const img = document.createElement("img");
  img.alt = "";
  img.src = `/api/roads.svg?v=${version}&${shape}`;
  box.replaceChildren(img);
}
window.addEventListener("resize", () => { if (state) drawRoads(state.roads_version); });

// The hands: cards as rank and suit, backs for those face down, the totals, and the
// call-outs NATURAL and "stands on N" (a hand of two cards once the round is over, or once
// the banker's third card is due).
function renderHands(s) {
  const r = s.round;
  const last = s.results.length ? s.results[s.results.length - 1] : null;
  const over = last && last.round === r.no && last.status === "complete";
  // A voided round's cards are not left beside the next OPEN BETTING: they were refunded.
  const voided = last && last.round === r.no && last.status === "void";
  const natural = !voided && [r.player_total, r.banker_total].some((x) => x >= 8) &&
    r.player.length === 2 && r.banker.length === 2 && !r.player_down && !r.banker_down &&
    (over || s.phase === "between_rounds");
  for (const side of ["player", "banker"]) {
    const box = $(side);
    const total = voided ? null : r[`${side}_total`];
    box.querySelector(".total").textContent = total ?? "";
    const cards = box.querySelector(".cards");
    const down = Array.from({ length: voided ? 0 : r[`${side}_down`] || 0 }, backEl);
    cards.replaceChildren(...(voided ? [] : r[side].map(cardEl)), ...down);
    let call = box.querySelector(".call");
    if (!call) {
      call = document.createElement("span");
      call.className = "call";
      box.querySelector(".total").before(call);
    }
    const stood = total != null && !voided && r[side].length === 2 && !natural &&
      (over || (side === "player" && s.phase === "banker_3"));
    call.textContent = natural && total >= 8 ? t("natural") : stood ? t("stands")(total) : "";
  }
}

// Devices and upstream: a small strip that turns red only when something is wrong.
function renderStatus(s) {
  const bad = s.devices.filter((d) => !d.ok);
  // English names a device by its id (SCANNER LOST); another language by its words.
  const name = (n) => (lang === "en" ? n : (DEVICE_NAMES[n] || {})[lang] || n);
  const devs = $("devices");
  if (bad.length === 0) {
    const el = document.createElement("span");
    el.className = "dev ok";
    el.textContent = t("devicesOk");
    devs.replaceChildren(el);
  } else {
    devs.replaceChildren(...bad.map((d) => {
      const el = document.createElement("span");
      el.className = "dev bad";
      el.dataset.device = d.name;
      el.textContent = t("deviceLost")(name(d.name));
      return el;
    }));
  }
  const up = $("upstream");
  up.hidden = s.upstream.connected !== false;
  up.className = "bad";
  up.textContent = t("upstreamDown");
}

// The station's notices (refusals, a device restored, a badge refused, what a supervisor
// did): each new one in the message line for a few seconds, in the page's language. A page
// that connects shows none of those before it: they are not news.
function renderNotices(s) {
  const seq = s.notice_seq ?? 0;
  if (noticeSeq === null || seq < noticeSeq) { noticeSeq = seq; return; }
  if (seq === noticeSeq) return;
  const fresh = Math.min(seq - noticeSeq, s.notices.length);
  noticeSeq = seq;
  // The station's words for the page (a refused PIN in plain words, in the page's language).
  const list = s.notices_page || s.notices_zh || s.notices;
  const text = list.slice(-fresh).join(t("join"));
  const good = s.notices.slice(-fresh).every((n) => !/refused|lost|not due/.test(n));
  showNotice(text, good);
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
  document.body.classList.toggle("vip", !!s.vip);
  const vip = s.vip;
  $("vip").hidden = !vip;
  if (vip) {
    for (const b of document.querySelectorAll("#vip button.vipcmd")) {
      const req = vip.requests[b.dataset.action];
      b.disabled = !req.ok;
      const why = document.querySelector(`#vip .why[data-why=${b.dataset.action}]`);
      why.textContent = req.ok ? "" : (req.zh || req.why);
      why.title = why.textContent;
    }
  }
  const alerts = s.alerts || [];
  $("alerts").hidden = alerts.length === 0;
  $("alerts").replaceChildren(...alerts.map((a, i) => {
    const el = document.createElement("span");
    el.className = "alert";
    el.dataset.alert = a.alert;
    const said = a.zh || a.text;
    // Several at once: each one's headline (what comes before its colon), so all show whole.
    const head = alerts.length > 1 ? said.split(/[:：]/)[0] : said;
    el.textContent = (i ? " \u00b7 " : "") + head;
    el.title = said;
    return el;
  }));
}

// Who deals (docs/dealers.md): the id signed in, and the sign-in form, usable only when the
// station takes a sign-in now (otherwise it says when).
function renderDealer(dl) {
  if (!dl) return;
  $("dealer-id").textContent = dl.id ? `${t("dealer")} ${dl.id}` : t("noDealer");
  $("dealer-id").className = "fit " + (dl.id ? "ok" : "bad");
  if (dl.change_requested) $("dealer-id").textContent += t("changeAsked");
  $("sign-in").disabled = !dl.can_sign;
  $("sign-out").disabled = !dl.can_sign || !dl.id;
  $("dealer-when").textContent = dl.zh ? dl.zh.when : dl.when;
}

function labels() {
  for (const b of document.querySelectorAll("button.cmd")) b.textContent = t(b.dataset.action);
  $("pin-label").textContent = t("pin");
  $("dealer-label").textContent = t("dealerLabel");
  $("sign-in").textContent = t("sign_in");
  $("sign-out").textContent = t("sign_out");
  $("offline-title").textContent = t("offline");
  $("offline-why").textContent = t("offlineWhy");
  $("player").querySelector(".letter").textContent = t("P");
  $("banker").querySelector(".letter").textContent = t("B");
  $("player").querySelector(".name").textContent = t("player");
  $("banker").querySelector(".name").textContent = t("banker");
  $("mute").textContent = muted ? t("muted") : t("mute");
  for (const b of document.querySelectorAll("#vip button.vipcmd")) b.textContent = t(b.dataset.action);
  $("vip-pin-label").textContent = t("vipPin");
  $("vip-toggle").textContent = vipOpenUntil ? t("vipClose") : t("vipOpen");
  $("shuffle-pin-label").textContent = t("pin");
  $("picker-title").textContent = t("pickTitle");
  PAUSE_CODES.forEach((code, i) => {
    document.querySelector(`#picker .reason[data-code=${code}]`).textContent =
      `${i + 1} ${t("codes")[code]}`;
  });
  $("picker-note-label").textContent = t("noteLabel");
  $("picker-cancel").textContent = t("cancel");
  $("mute").setAttribute("aria-pressed", String(muted));
}

// A refusal of the PIN in the page's language, the lockout counted down live.
function refusalText(answer, where) {
  const err = answer.error || "";
  const locked = /locked for (\d+) s/.exec(err);
  if (locked) {
    lockedUntil = Date.now() + Number(locked[1]) * 1000;
    lockedWhere = where;
    return `${t("refused")}: ${t("lockedFor")(Number(locked[1]))}`;
  }
  const wrong = /^wrong PIN \((\d+) tries left\)$/.exec(err);
  if (wrong) return `${t("refused")}: ${t("wrongPin")(Number(wrong[1]))}`;
  if (/^no supervisor has a PIN yet|^no display\.credentials_file/.test(err)) {
    return `${t("refused")}: ${t("noPins")}`;
  }
  return `${t("refused")}: ${answer.zh || err}`;
}

async function send(action, body, where) {
  const out = $(where);
  try {
    const resp = await fetch(`/api/commands/${action.replace(/_/g, "-")}`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await resp.json();
    if (answer.ok) {
      if (where !== "message") out.textContent = "";
    } else {
      noticeUntil = where === "message" ? Date.now() + NOTICE_MS : noticeUntil;
      setText(out, refusalText(answer, where));
      out.classList.remove("good");
    }
    fitAll();
    return answer.ok === true;
  } catch (e) {
    out.textContent = `${t("refused")}: ${e}`;
    return false;
  }
}

for (const b of document.querySelectorAll("#controls button.cmd")) {
  if (b.dataset.action === "pause") b.addEventListener("click", () => openPicker(true));
  else b.addEventListener("click", () => send(b.dataset.action, { actor: "dealer" }, "message"));
}
for (const b of document.querySelectorAll("#picker .reason")) {
  b.addEventListener("click", () => choosePause(b.dataset.code));
}
$("picker-cancel").addEventListener("click", () => openPicker(false));
$("picker-note").addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") openPicker(false);
  else if (ev.key === "Enter") { ev.preventDefault(); choosePause("other"); }
});
$("shuffle").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const pin = $("shuffle-pin").value;
  if (!pin) { $("shuffle-message").textContent = t("needPin"); return; }
  $("shuffle-pin").value = "";
  send("confirm_shuffle", { actor: "supervisor", pin }, "shuffle-message");
});

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
  disarmVoid();
  send(action, { actor: "supervisor", pin }, "pause-message");
}
$("supervisor").addEventListener("submit", (ev) => { ev.preventDefault(); supervise("resume"); });
// The VIP player's requests, made for the player by a supervisor (docs/display.md).
for (const b of document.querySelectorAll("#vip button.vipcmd")) {
  b.addEventListener("click", () => {
    const pin = $("vip-pin").value;
    if (!pin) { $("vip-message").textContent = t("needPin"); return; }
    $("vip-pin").value = "";
    send(b.dataset.action, { actor: "supervisor", pin }, "vip-message").then((ok) => {
      if (ok) openVip(false);
    });
  });
}
$("vip-toggle").addEventListener("click", () => openVip(!vipOpenUntil));
$("vip-pin").addEventListener("input", () => { if (vipOpenUntil) vipOpenUntil = Date.now() + VIP_OPEN_MS; });
$("vip").addEventListener("submit", (ev) => ev.preventDefault());
// VOID refunds every bet of the round: the first press asks, naming what is refunded; a
// second press within a few seconds voids.
$("void").addEventListener("click", () => {
  if (voidArmedUntil && Date.now() <= voidArmedUntil) { supervise("void"); return; }
  const detail = state && state.prompt ? state.prompt.detail : "";
  const ask = /void refunds it/.test(detail) ? t("voidAsk").refund(state.round.no)
    : /void abandons the shoe/.test(detail) ? t("voidAsk").shoe() : t("voidAsk").aside();
  voidArmedUntil = Date.now() + VOID_ARMED_MS;
  $("void").classList.add("armed");
  const out = $("pause-message");
  out.textContent = ask;
  out.dataset.ask = "void";
  fit(out, 2.6, 1.4);
});
$("mute").addEventListener("click", () => {
  muted = !muted;
  localStorage.setItem("station.muted", muted ? "1" : "0");
  labels();
  fitBar();
});

// Keys for a USB keypad or a foot pedal: N, O, C, R, P, and Enter or Space for the one dealer
// action the station takes now (sent when the key is let go; held a second, the pedal asks
// for the dealer's pause instead). Never while typing a PIN or offline; while paused only M.
// With the reason picker open: 1-6 choose a reason, Escape closes it.
function dealerKeys(ev) {
  return !(ev.target instanceof HTMLInputElement) && state && !offline;
}
const PEDAL = (key) => key === "enter" || key === " ";

document.addEventListener("keydown", (ev) => {
  if (!dealerKeys(ev)) return;
  const key = ev.key.toLowerCase();
  if (key === "m") { $("mute").click(); return; }
  if (state.paused) return;
  if (pickerOpenUntil) {
    // Keys choose; they never type (choosePause never moves the focus into the note).
    const n = /^[1-9]$/.test(key) ? Number(key) : 0;
    if (n >= 1 && n <= PAUSE_CODES.length) choosePause(PAUSE_CODES[n - 1]);
    else if (key === "escape") openPicker(false);
    if (PEDAL(key)) ev.preventDefault();
    return;
  }
  if (key === "p") {
    if (state.actions.includes("pause")) openPicker(true);
    return;
  }
  if (PEDAL(key)) {
    ev.preventDefault();  // never a click on the button that has the focus
    if (ev.repeat || pedalTimer !== null) return;
    pedalLong = false;
    pedalTimer = setTimeout(() => {
      pedalLong = true;
      if (state && !state.paused && !offline && state.actions.includes("pause")) openPicker(true);
    }, PEDAL_HOLD_MS);
    return;
  }
  const action = KEYS[key];
  if (action) {
    ev.preventDefault();
    send(action, { actor: "dealer (key)" }, "message");
  }
});
document.addEventListener("keyup", (ev) => {
  const key = ev.key.toLowerCase();
  if (!PEDAL(key) || pedalTimer === null) return;
  clearTimeout(pedalTimer);
  pedalTimer = null;
  if (pedalLong || !dealerKeys(ev) || state.paused || pickerOpenUntil) return;
  ev.preventDefault();
  const dealer = state.actions.filter((a) => a in DEALER_ACTIONS);
  if (dealer.length === 1) send(dealer[0], { actor: "dealer (key)" }, "message");
});

labels();
$("instruction").textContent = t("connecting");
connect();
