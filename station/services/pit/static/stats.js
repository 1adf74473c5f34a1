// The pit's statistics page: the period's figures per table and per dealer from
// GET /api/stats, and links to the same as CSV (GET /api/stats.csv). It computes nothing:
// every figure is the API's; the columns' and reasons' words are the answer's "say"
// (station.services.pit.words). docs/pit.md, Statistics.
"use strict";

const RETRY_MS = 2000; // the pit computes one request's statistics at a time (503: ask again)
const LABELS = {
  en: {
    title: "Statistics", back: "FLOOR", otherLang: "中文", shift: "THIS SHIFT (8 H)",
    today: "TODAY", custom: "CUSTOM", from: "From", to: "to", apply: "SHOW",
    csvTable: "CSV BY TABLE", csvDealer: "CSV BY DEALER", tables: "Tables", dealers: "Dealers",
    loading: "computing...", ready: "", empty: "nothing in this period",
    noDealer: "(no dealer)", failed: "the pit does not answer", bad: "not a valid period",
    busy: "busy, asking again", typeTimes: "Type both times as 2026-01-01 08:00",
  },
  zh: {
    title: "统计", back: "牌桌总览", otherLang: "English", shift: "本班次（8小时）",
    today: "今天", custom: "自定义", from: "从", to: "至", apply: "显示",
    csvTable: "按牌桌导出表格", csvDealer: "按荷官导出表格", tables: "牌桌", dealers: "荷官",
    loading: "计算中...", ready: "", empty: "此时段内无记录",
    noDealer: "（无荷官）", failed: "巡场服务无应答", bad: "时段无效",
    busy: "正忙，稍后重试", typeTimes: "请按 2026-01-01 08:00 的格式填写起止时间",
  },
};
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const lang = params.get("lang") in LABELS ? params.get("lang") : "en";
const L = LABELS[lang];
let pick = params.has("from") || params.has("to") ? "custom" : "shift";
// The custom period as the address gives it (exact), until the pit boss picks another.
const custom = { from: params.get("from"), to: params.get("to") };
window.__renders = 0;
window.__stats = null; // the body shown (the browser tests read it)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function duration(s) {
  const t = Math.floor(s); // whole seconds, as the clocks elsewhere
  const two = (n) => String(n).padStart(2, "0");
  return `${Math.floor(t / 3600)}:${two(Math.floor((t % 3600) / 60))}:${two(t % 60)}`;
}
// Times are typed and shown as "YYYY-MM-DD HH:MM" in this browser's time zone: a text
// field, not the browser's date picker, whose words are the browser's language, not the page's.
function local(iso) {
  const d = new Date(iso);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}`;
}
function shown(iso) { return local(iso); }
function typed(text) { // "YYYY-MM-DD HH:MM" (or a date alone: its midnight), local; or null
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const d = new Date(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

// The query of the period picked: none for this shift (the pit's default, its last 8 h).
function query() {
  const q = new URLSearchParams();
  if (pick === "today") {
    const now = new Date();
    q.set("from", new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString());
    q.set("to", now.toISOString());
  } else if (pick === "custom") {
    for (const k of ["from", "to"]) if (custom[k]) q.set(k, custom[k]);
  }
  return q;
}

function applyLanguage() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.title = L.title;
  $("stats-title").textContent = L.title;
  $("back").textContent = L.back;
  $("back").href = `/?lang=${lang}`;
  $("other-lang").textContent = L.otherLang;
  $("pick-shift").textContent = L.shift;
  $("pick-today").textContent = L.today;
  $("pick-custom").textContent = L.custom;
  $("from-label").textContent = L.from;
  $("to-label").textContent = L.to;
  $("apply").textContent = L.apply;
  $("csv-table").textContent = L.csvTable;
  $("csv-dealer").textContent = L.csvDealer;
  $("tables-title").textContent = L.tables;
  $("dealers-title").textContent = L.dealers;
}

function links(q) {
  const other = new URLSearchParams(q);
  other.set("lang", lang === "zh" ? "en" : "zh");
  $("other-lang").href = `?${other}`;
  for (const by of ["table", "dealer"]) {
    const c = new URLSearchParams(q);
    c.set("by", by);
    $(`csv-${by}`).href = `/api/stats.csv?${c}`;
  }
}

function show() {
  for (const b of document.querySelectorAll("#chooser [data-pick]")) {
    b.classList.toggle("on", b.dataset.pick === pick);
    b.setAttribute("aria-pressed", String(b.dataset.pick === pick));
  }
}

async function load() {
  show();
  const q = query();
  links(q);
  if (pick === "custom") {
    const page = new URLSearchParams(q);
    page.set("lang", lang);
    history.replaceState(null, "", `?${page}`);
  }
  $("state").textContent = L.loading;
  let resp;
  try {
    resp = await fetch(`/api/stats?${q}`, { cache: "no-store" });
  } catch (e) {
    $("state").textContent = L.failed;
    return;
  }
  const body = await resp.json().catch(() => ({}));
  if (resp.status === 503 && resp.headers.get("Retry-After")) {
    $("state").textContent = L.busy;
    setTimeout(load, RETRY_MS);
    return;
  }
  if (!resp.ok) {
    $("state").textContent = resp.status === 400 ? L.bad : L.failed;
    $("problem").hidden = false;
    $("problem").textContent = lang === "en" && body.error ? body.error : (resp.status === 400 ? L.bad : L.failed);
    return;
  }
  $("problem").hidden = true;
  $("state").textContent = L.ready;
  render(body);
}

const COLUMNS = ["rounds", "complete", "void", "rounds_per_hour", "dealing_s", "pauses",
  "paused_s", "voids"];
function cell(col, value) {
  const td = el("td", "num");
  td.dataset.col = col;
  td.dataset.value = value === null || value === undefined ? "" : String(value);
  if (value === null || value === undefined) td.textContent = "-";
  else if (col.endsWith("_s")) td.textContent = duration(value);
  else if (col === "rounds_per_hour") td.textContent = value.toFixed(1);
  else td.textContent = String(value);
  return td;
}
function renderGroups(table, groups, by, say) {
  table.textContent = "";
  const head = el("tr");
  head.appendChild(el("th", "name", say.columns[by]));
  if (by === "dealer") head.appendChild(el("th", "tables", say.columns.tables));
  for (const c of COLUMNS) head.appendChild(el("th", "num", say.columns[c]));
  table.appendChild(el("thead")).appendChild(head);
  const tbody = table.appendChild(el("tbody"));
  if (!groups.length) {
    const tr = tbody.appendChild(el("tr", "empty"));
    const td = tr.appendChild(el("td", "", L.empty));
    td.colSpan = COLUMNS.length + (by === "dealer" ? 2 : 1);
  }
  for (const g of groups) {
    const name = by === "table" ? g.table : g.dealer === null ? L.noDealer : g.dealer;
    const tr = tbody.appendChild(el("tr", "group"));
    tr.dataset.key = by === "table" ? g.table : g.dealer === null ? "" : g.dealer;
    tr.appendChild(el("td", "name", name));
    if (by === "dealer") tr.appendChild(el("td", "tables", g.tables.join(" ")));
    for (const c of COLUMNS) tr.appendChild(cell(c, g[c]));
    for (const r of g.reasons) {
      const rr = tbody.appendChild(el("tr", "reason"));
      rr.dataset.key = tr.dataset.key;
      rr.dataset.reason = `${r.raised}/${r.reason}`;
      const what = `${say.raised[r.raised] || r.raised}${lang === "zh" ? "：" : ": "}` +
        `${say.reasons[r.reason] || r.reason}`;
      const td = rr.appendChild(el("td", "name", what));
      td.colSpan = 1 + (by === "dealer" ? 1 : 0) + COLUMNS.indexOf("pauses");
      for (const c of ["pauses", "paused_s", "voids"]) rr.appendChild(cell(c, r[c]));
    }
  }
}
function render(body) {
  const say = body.say[lang] || body.say.en;
  $("period-shown").textContent = `${shown(body.from)} - ${shown(body.to)}`;
  $("from").value = local(body.from);
  $("to").value = local(body.to);
  renderGroups($("by-table"), body.tables, "table", say);
  renderGroups($("by-dealer"), body.dealers, "dealer", say);
  window.__stats = body;
  window.__renders += 1;
}

for (const b of document.querySelectorAll("#chooser [data-pick]")) {
  b.addEventListener("click", () => { pick = b.dataset.pick; if (pick !== "custom") load(); else show(); });
}
$("apply").addEventListener("click", () => {
  const from = typed($("from").value), to = typed($("to").value);
  if (!from || !to) {
    $("problem").hidden = false;
    $("problem").textContent = L.typeTimes;
    return;
  }
  pick = "custom";
  custom.from = from;
  custom.to = to;
  load();
});
applyLanguage();
load();
