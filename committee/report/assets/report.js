// The report page: decodes the embedded data, draws the charts and runs the
// item explorer.  Everything is computed here from the columnar arrays of
// committee.htmlreport.encode; nothing is fetched.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const PAGE_SIZES = [25, 50, 100, 250, 1000];
  // a table cell of more characters than this wraps its text
  const LONG_TEXT = 30;
  // the figures' colours (committee.report.plots.COLORS); bars past the last colour
  // repeat them hatched, so that no bar looks exactly like another
  const COLORS = DATA.palette.colors, PATTERNS = DATA.palette.patterns;
  // each trace its own colour, marker and dash, so that lines lying on each other stay apart
  const SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down"];
  const DASHES = ["solid", "solid", "solid", "dash", "dash", "dash", "dot", "dashdot"];
  const OUT_COLORS = { correct: "#2e8540", split: "#d17b0f", merged: "#7a4fb5", crossed: "#c0392b",
                       wrong_type: "#d17b0f", wrong_tag: "#d17b0f", wrong_boundary: "#7a4fb5",
                       missed: "#c0392b" };
  const PLOT_CONFIG = { displaylogo: false, responsive: true,
                        modeBarButtonsToRemove: ["toImage", "sendDataToCloud"] };

  // ---------------------------------------------------------------- decoding
  const TYPES = { uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array,
                  int64: BigInt64Array, float32: Float32Array, float64: Float64Array };
  function decode(a) {
    if (!a) return null;
    const bin = atob(a.b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TYPES[a.dtype](bytes.buffer);
  }
  const N = DATA.n_words, S = DATA.n_sentences;
  const vocab = DATA.vocab;
  const wordId = decode(DATA.word_ids);
  const dCodes = decode(DATA.d_codes);
  const d = new Float64Array(N);
  for (let i = 0; i < N; i++) d[i] = DATA.d_values[dCodes[i]];
  const bins = decode(DATA.bins);
  const oov = decode(DATA.oov);
  const irtA = decode(DATA.irt_a), irtB = decode(DATA.irt_b);
  const perSentence = decode(DATA.sentence_words);
  const sentStart = new Uint32Array(S + 1);  // first word of each sentence
  const sentOf = new Uint32Array(N);
  for (let s = 0; s < S; s++) {
    sentStart[s + 1] = sentStart[s] + perSentence[s];
    for (let i = sentStart[s]; i < sentStart[s + 1]; i++) sentOf[i] = s;
  }
  // a run of labelled units (committee.report.html): gold entities (task ner),
  // which do not tile their sentences, or gold words with their parts of
  // speech (task pos); their offsets and labels come with them
  const ENT = Array.isArray(DATA.texts), POS = DATA.task === "pos";
  const UNIT = DATA.unit || (ENT ? "entity" : "word"), UNITS = DATA.units || (ENT ? "entities" : "words");
  const sentChar = new Uint32Array(S + 1);  // global character offset of each sentence
  const itemA = new Uint32Array(N), itemB = new Uint32Array(N);  // each item's global span
  if (ENT) {
    for (let s = 0; s < S; s++) sentChar[s + 1] = sentChar[s] + DATA.texts[s].length;
    const a = decode(DATA.item_start), b = decode(DATA.item_end);
    for (let i = 0; i < N; i++) { itemA[i] = sentChar[sentOf[i]] + a[i]; itemB[i] = sentChar[sentOf[i]] + b[i]; }
  } else {
    let c = 0;
    for (let i = 0; i < N; i++) { itemA[i] = c; c += vocab[wordId[i]].length; itemB[i] = c; }
  }
  const typeOf = ENT ? decode(DATA.type_codes) : null;
  const systems = DATA.systems.map((s) => ({ ...s, out: decode(s.outcome), endBits: decode(s.ends),
    predA: decode(s.pred_start), predB: decode(s.pred_end) }));
  const OUT = DATA.outcomes;

  // ---------------------------------------------------------------- helpers
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }
  const pct = (x, k = 2) => (x == null ? "–" : (100 * x).toFixed(k));
  const fmt = (x, k = 3) => (x == null || Number.isNaN(x) ? "–" : Number(x).toFixed(k));
  const int = (n) => Number(n).toLocaleString("en-US");
  // a count with its noun, singular or plural: "1 system", "12 systems"
  const count = (n, one, many) => `${int(n)} ${n === 1 ? one : many}`;
  // Charts wait for the charting library, which runs after the explorer is drawn
  // (compiling it takes longer than everything else on the page).
  const pending = [];
  // the chart's toolbar (Plotly's mode bar) takes the top right corner; the
  // title sits on the left in a band of its own below it, above the plot area
  const TITLE = { x: 0, xref: "container", xanchor: "left", y: 1, yref: "container", yanchor: "top",
                  pad: { t: 34, l: 10 }, font: { size: 15 } };
  function plot(id, traces, layout) {
    const base = { margin: { l: 55, r: 20, t: 72, b: 90 }, font: { size: 12 },
                   legend: { orientation: "h", y: -0.32 }, hovermode: "closest" };
    const all = Object.assign(base, layout);
    if (all.title) all.title = Object.assign({}, TITLE, all.title);
    // margins grow to hold the tick labels: the last label of an x axis,
    // turned to fit, reaches past the plot's right edge
    for (const axis of ["xaxis", "yaxis"]) all[axis] = Object.assign({ automargin: true }, all[axis]);
    const draw = () => Plotly.react($(id), traces, all, PLOT_CONFIG);
    if (window.Plotly) draw(); else pending.push(draw);
  }
  function loadCharts() {
    const src = $("plotly-src");
    const s = document.createElement("script");
    s.textContent = src.textContent;
    src.remove();
    document.head.append(s);
    while (pending.length) pending.shift()();
    document.body.setAttribute("data-charts-ms", performance.now().toFixed(0));
    document.body.setAttribute("data-ready", "1");
  }
  function context(i, width) {
    const s = sentOf[i];
    let left = "", right = "";
    if (ENT) {
      const text = DATA.texts[s], a = itemA[i] - sentChar[s], b = itemB[i] - sentChar[s];
      left = (a > width ? "…" : "") + text.slice(Math.max(0, a - width), a);
      right = text.slice(b, b + width) + (b + width < text.length ? "…" : "");
      return el("span", { class: "ctx" }, left, el("b", { text: vocab[wordId[i]] }), right);
    }
    for (let j = i - 1; j >= sentStart[s] && left.length < width; j--) left = vocab[wordId[j]] + left;
    for (let j = i + 1; j < sentStart[s + 1] && right.length < width; j++) right += vocab[wordId[j]];
    if (left.length > width) left = "…" + left.slice(left.length - width);
    if (right.length > width) right = right.slice(0, width) + "…";
    const span = el("span", { class: "ctx" }, left, el("b", { text: vocab[wordId[i]] }), right);
    return span;
  }

  // ---------------------------------------------------------------- overview
  function overview() {
    $("title").textContent = "Report: " + DATA.name;
    document.title = "Report: " + DATA.name;
    let meanD = 0, d0 = 0, d1 = 0, nOov = 0;
    for (let i = 0; i < N; i++) { meanD += d[i]; d0 += d[i] === 0; d1 += d[i] === 1; if (oov) nOov += oov[i]; }
    const p = el("p");
    p.append(`${count(S, "sentence", "sentences")}, `, el("strong", { "data-testid": "n-words", text: int(N) }),
             ` gold ${N === 1 ? UNIT : UNITS}, ${count(DATA.n_chars, "character", "characters")}; ` +
             `${count(systems.length, "system", "systems")}. ` +
             `Mean difficulty ${(N ? meanD / N : 0).toFixed(3)}; ${pct(N ? d0 / N : null, 1)}% of the ${UNITS} have d = 0 and ` +
             `${pct(N ? d1 / N : null, 1)}% have d = 1` + (oov ? `; OOV rate ${pct(N ? nOov / N : null)}%.` : "."));
    const how = el("p", { class: "help", text: POS ?
      "A word's difficulty d is the share of the committee's members (taggers of the gold words) that give it " +
      "another tag than the gold's. A word is right when its span and its tag are a gold word's: a tagger on the " +
      "gold segmentation is scored by its tag accuracy, one with its own segmentation jointly. pb, rb, fb reward " +
      "getting hard words right and punish errors on easy ones. A wrong gold word has the wrong tag (an output " +
      "word has its span) or the wrong boundary (no output word has its span)." : ENT ?
      "An entity's difficulty d is the share of the committee's members that do not tag exactly its span " +
      "with its type. pb, rb, fb reward getting hard entities right and punish errors on easy ones; " +
      "p, r, f1 count every entity alike (as seqeval does). A wrong gold entity has the wrong type (an output " +
      "entity has its span), the wrong boundary (an output entity overlaps it) or is missed." :
      "A word's difficulty d is the share of the committee's members " +
      "that segment it wrongly. pb, rb, fb reward getting hard words right and punish errors on easy ones; " +
      "p, r, f1 count every word alike. A wrong gold word is split (several output words inside it), " +
      "merged (inside one longer output word) or crossed (an output word straddles its boundary)." });
    $("overview-text").append(p, how, el("p", { class: "sig", text: "Scores: " + DATA.signature }),
      el("p", { class: "help", text: "Each chart gives its values on hover and has its tools (zoom, pan, " +
                                      "reset) at its top right; a click on a legend entry hides or shows its series." }));
    const hist = new Array(10).fill(0);
    for (let i = 0; i < N; i++) hist[bins[i]]++;
    plot("chart-hist", [{ type: "bar", x: DATA.bin_labels, y: hist, marker: { color: "#5f6b7a" },
                          hovertemplate: "%{x}: %{y} " + UNITS + "<extra></extra>" }],
         { title: { text: `Gold ${UNITS} per difficulty bin` }, xaxis: { title: { text: "difficulty d" } },
           yaxis: { title: { text: `gold ${UNITS}` } } });
    if (!systems.length) return;
    plot("chart-recall", systems.map((s, k) => ({
      type: "scatter", mode: "lines+markers", name: s.name, x: DATA.bin_labels, connectgaps: true,
      y: (s.scores.recall_by_bin || []).map((v) => (v == null ? null : 100 * v)),
      line: { color: COLORS[k % COLORS.length], dash: DASHES[k % DASHES.length] },
      marker: { color: COLORS[k % COLORS.length], symbol: SYMBOLS[k % SYMBOLS.length] },
      hovertemplate: s.name + " %{x}: %{y:.2f}%<extra></extra>" })),
      { title: { text: "Recall by difficulty bin (%)" },
        xaxis: { title: { text: "difficulty d" } }, yaxis: { title: { text: "recall (%)" } } });
    plot("chart-errors", OUT.slice(1).map((o) => ({
      type: "bar", name: o, x: systems.map((s) => s.name), y: systems.map((s) => s.error_types[o]),
      marker: { color: OUT_COLORS[o] }, hovertemplate: "%{x}: %{y} " + o + "<extra></extra>" })),
      { title: { text: `Wrong gold ${UNITS} by error type` }, barmode: "stack",
        xaxis: { title: { text: "system" } }, yaxis: { title: { text: `wrong gold ${UNITS}` } } });
    plot("chart-ranking", ["f1", "fb", "pb", "rb"].map((m, k) => ({
      type: "bar", name: m, x: systems.map((s) => s.name),
      y: systems.map((s) => (s.scores[m] == null ? null : 100 * s.scores[m])),
      marker: { color: COLORS[k] }, hovertemplate: "%{x} " + m + ": %{y:.2f}%<extra></extra>" })),
      { title: { text: "f1 against the balanced metrics (%)" }, barmode: "group",
        xaxis: { title: { text: "system" } }, yaxis: { title: { text: "score (%)" } } });
  }

  // ---------------------------------------------------------------- systems table
  function systemsTable() {
    // the metric columns come with the data (committee.metrics.records): the
    // statistics ones always, the others (theta) when a system has a value
    const metrics = DATA.metrics.filter((m) => m.source === "stats" ||
      systems.some((s) => s.scores[m.key] != null));
    const cols = [{ key: "name", label: "system", l: true, get: (s) => s.name }]
      .concat(metrics.map((m) => ({ key: m.key, label: m.label, get: (s) => s.scores[m.key],
                                    pct: m.scale === "percent", dec: 3 })))
      .concat(OUT.map((o) => ({ key: "n_" + o, label: o, get: (s) => s.error_types[o], n: true })))
      .concat([{ key: "rank_f1", label: "#f1", get: (s) => s.scores.rank_f1, n: true },
               { key: "rank_fb", label: "#fb", get: (s) => s.scores.rank_fb, n: true }]);
    const state = { col: null, dir: 1 };
    const table = $("systems-table");
    const m = /\|bootstrap:(\d+)/.exec(DATA.signature);
    $("systems-help").textContent = "Scores in %" + (systems.some((s) => s.scores.ci)
      ? `, each with its 95% bootstrap interval below it (${m ? int(m[1]) + " resamples" : "resamples"} of the test sentences)`
      : " (no bootstrap intervals: " + (systems.length ? "the test set has too few sentences for them" : "no system") + ")")
      + ". Click a column header to sort.";
    function draw() {
      const rows = systems.slice();
      if (state.col) {
        const c = state.col;
        rows.sort((a, b) => {
          const x = c.get(a), y = c.get(b);
          if (x == null) return 1; if (y == null) return -1;
          return (typeof x === "string" ? x.localeCompare(y) : x - y) * state.dir;
        });
      }
      table.replaceChildren();
      const head = el("tr");
      for (const c of cols) {
        const th = el("th", { class: (c.l ? "l " : "") + (state.col === c ? (state.dir > 0 ? "sorted-asc" : "sorted-desc") : ""),
                              "data-key": c.key, text: c.label });
        th.addEventListener("click", () => {
          state.dir = state.col === c ? -state.dir : (c.l ? 1 : -1);
          state.col = c; draw();
        });
        head.append(th);
      }
      table.append(el("thead", {}, head));
      const body = el("tbody");
      for (const s of rows) {
        const tr = el("tr", { "data-system": s.name });
        for (const c of cols) {
          const v = c.get(s);
          const td = el("td", { class: c.l ? "l" : "", "data-key": c.key });
          if (c.pct) {
            td.append(pct(v));
            const ci = s.scores.ci && s.scores.ci[c.key];
            if (ci && ci[0] != null) td.append(el("span", { class: "ci", text: `${pct(ci[0])}–${pct(ci[1])}` }));
          } else td.textContent = c.n ? (v == null ? "–" : int(v)) : c.dec ? fmt(v, c.dec) : v;
          tr.append(td);
        }
        body.append(tr);
      }
      table.append(body);
    }
    draw();
  }

  // ---------------------------------------------------------------- analyses
  function analyses() {
    const box = $("analyses-body");
    // analyses that failed first: the page says which and why (report.md does too)
    DATA.failed.forEach((f) => box.append(el("div", { class: "analysis failed", "data-testid": "analysis-failed", "data-analysis": f.analysis },
      el("h3", { text: f.title }), el("p", {}, el("strong", { text: `Not made: the ${f.analysis} analysis failed. ` }), f.reason))));
    if (!DATA.analyses.length) {
      if (!DATA.failed.length) box.append(el("p", { class: "help", text: "No analysis in this report." }));
      return;
    }
    DATA.analyses.forEach((a, k) => {
      const id = "chart-analysis-" + k;
      const sec = el("div", { class: "analysis", id: "analysis-" + k, "data-testid": "analysis" }, el("h3", { text: a.title }),
                     a.text ? el("p", { class: "help", text: a.text }) : null);
      if (a.chart !== "table") sec.append(el("div", { class: "chart", id }));
      const details = el("details", {}, el("summary", { text: "Table" }));
      const t = el("table"), names = Object.keys(a.columns);
      const nameOf = (c) => (a.names && a.names[c] != null ? a.names[c] : String(c));
      const text = (n) => a.columns[n].some((v) => typeof v === "string");  // headed on the left, as its cells
      t.append(el("thead", {}, el("tr", {}, ...names.map((n) => el("th", { class: text(n) ? "l" : "", text: nameOf(n), title: n })))));
      const tb = el("tbody"), rows = names.length ? a.columns[names[0]].length : 0;
      for (let r = 0; r < rows; r++)
        tb.append(el("tr", {}, ...names.map((n) => {
          const v = a.columns[n][r];
          // long text (a sentence, the evidence) wraps, so that the table fits its panel
          const cls = typeof v !== "string" ? "" : v.length > LONG_TEXT ? "l wrap" : "l";
          return el("td", { class: cls, text: typeof v === "number" ? +v.toFixed(4) : v == null ? "–" : v });
        })));
      t.append(tb); details.append(el("div", { class: "scroll" }, t));
      if (a.chart === "table") details.open = true;
      sec.append(details); box.append(sec);
      if (a.chart === "table") return;
      if (a.chart === "heatmap") return heatmap(id, a, nameOf);
      const traces = a.chart === "scatter" ? scatterTraces(a, nameOf) : lineTraces(a, nameOf);
      if (a.chart === "scatter") declutter(traces, $(id).clientWidth - 75, $(id).clientHeight - 130);
      const layout = { title: { text: a.title }, xaxis: { title: { text: a.x_title }, automargin: true },
                       yaxis: { title: { text: a.y_title }, automargin: true },
                       showlegend: !(a.chart === "bar" && a.group),  // the axis names the groups
                       barmode: a.group ? "relative" : "group", hovermode: a.chart === "scatter" || a.group ? "closest" : "x unified" };
      plot(id, traces, a.chart === "bar" && a.group ? across(a, traces, layout) : layout);
    });
  }

  // rows of an analysis's table, split by the values of its group column (one trace each)
  function groups(a) {
    const n = a.columns[a.x].length;
    if (!a.group) return [{ key: null, rows: [...Array(n).keys()] }];
    const out = new Map();
    for (let r = 0; r < n; r++) {
      const k = String(a.columns[a.group][r]);
      if (!out.has(k)) out.set(k, []);
      out.get(k).push(r);
    }
    return [...out].map(([key, rows]) => ({ key, rows }));
  }
  const pick = (col, rows) => rows.map((r) => col[r]);
  // a labelled heat map: rows the values of x (down), columns those of y (across),
  // each cell's value written in it; one map per group, chosen from a menu
  function heatmap(id, a, nameOf) {
    const gs = groups(a);
    const traces = gs.map((g, k) => ({
      type: "heatmap", visible: k === 0, colorscale: [[0, "#f7fbff"], [1, "#08519c"]], showscale: false,
      name: g.key == null ? a.title : nameOf(g.key),
      x: a.y.map(nameOf), y: pick(a.columns[a.x], g.rows).map(String),
      z: g.rows.map((r) => a.y.map((c) => a.columns[c][r])), texttemplate: "%{z}",
      hovertemplate: `${a.x_title} %{y}<br>${a.y_title} %{x}<br>%{z}<extra>${g.key == null ? "" : nameOf(g.key)}</extra>` }));
    const menu = gs.length < 2 ? [] : [{ type: "dropdown", x: 1, xanchor: "right", y: 1, yanchor: "bottom", pad: { b: 4 },
      buttons: gs.map((g, k) => ({ label: nameOf(g.key), method: "update",
                                   args: [{ visible: gs.map((_, j) => j === k) }] })) }];
    // a row of 18 px at least, so that every label down the side shows (40-odd parts of speech)
    const rows = Math.max(...traces.map((tr) => tr.y.length));
    plot(id, traces, { title: { text: a.title }, updatemenus: menu, height: Math.max(360, 170 + 18 * rows),
                       xaxis: { title: { text: a.y_title }, automargin: true },
                       yaxis: { title: { text: a.x_title }, automargin: true, autorange: "reversed" } });
  }
  // Bars of groups, each group's bars in order under its name (Fig. 7: the
  // words of each sentence), lie across the chart, one line each, so that
  // their labels (Chinese words) read level however many there are; the
  // chart grows with them.
  function across(a, traces, layout) {
    const bars = traces.reduce((n, t) => n + (Array.isArray(t.x[0]) ? t.x[0] : t.x).length, 0);
    for (const t of traces) {
      Object.assign(t, { orientation: "h", x: t.y, y: t.x });
      if (t.error_y) { t.error_x = t.error_y; delete t.error_y; }
      if (t.hovertemplate) t.hovertemplate = t.hovertemplate.replace("%{y:", "%{x:");
    }
    return Object.assign(layout, { height: 150 + 20 * bars, hovermode: "closest",
      xaxis: { title: { text: a.y_title }, automargin: true },
      yaxis: { title: { text: a.x_title }, automargin: true, autorange: "reversed", tickangle: 0 } });
  }
  function lineTraces(a, nameOf) {
    const traces = [];
    // bars of groups side by side, each group's bars in order under its name (Fig. 7: sentences)
    const runs = a.chart === "bar" && a.group;
    for (const g of groups(a)) {
      a.y.forEach((c, j) => {
        const k = traces.length, color = COLORS[k % COLORS.length];
        const name = g.key == null ? nameOf(c) : (a.y.length > 1 ? `${nameOf(g.key)}: ${nameOf(c)}` : `${a.group} ${nameOf(g.key)}`);
        const x = pick(a.columns[a.x], g.rows), label = a.label ? pick(a.columns[a.label], g.rows) : null;
        const t = { type: a.chart === "bar" ? "bar" : "scatter", name,
                    x: runs ? [g.rows.map(() => name), x.map((v, i) => (label ? `${v} ${label[i]}` : v))] : x,
                    y: pick(a.columns[c], g.rows), marker: { color, symbol: SYMBOLS[k % SYMBOLS.length], size: 8 } };
        if (a.chart === "line") Object.assign(t, { mode: "lines+markers", connectgaps: true,
                                                   line: { color, dash: DASHES[k % DASHES.length], width: 2 } });
        if (a.chart === "bar" && k >= COLORS.length)
          t.marker.pattern = { shape: PATTERNS[(Math.floor(k / COLORS.length) - 1) % PATTERNS.length] };
        const iv = a.intervals && a.intervals[c];
        if (iv) t.error_y = errorBars(t.y, pick(a.columns[iv[0]], g.rows), pick(a.columns[iv[1]], g.rows));
        if (a.label) Object.assign(t, { text: label, textposition: runs ? "none" : "outside",
                                        hovertemplate: `%{text}<br>${nameOf(c)} %{y:.4f}<extra>${name}</extra>` });
        traces.push(t);
      });
    }
    return traces;
  }
  // error bars from interval columns (a value or bound missing: no bar)
  function errorBars(y, lo, hi) {
    const gap = (a, b) => (a == null || b == null ? null : Math.max(0, a - b));
    return { type: "data", symmetric: false, thickness: 1, width: 2, color: "#333",
             array: y.map((v, i) => gap(hi[i], v)), arrayminus: y.map((v, i) => gap(v, lo[i])) };
  }
  // one label per place: points drawn on top of each other share it, their names joined
  function placeLabels(text, x, y) {
    const first = new Map(), out = text.map(() => "");
    text.forEach((t, i) => {
      const key = `${x[i]}|${y[i]}`;
      if (!first.has(key)) { first.set(key, i); out[i] = String(t); }
      else out[first.get(key)] += `, ${t}`;
    });
    return out;
  }
  // A label that would overlap one already placed moves to another side of
  // its point, or is left to the hover when no side is free.  Groups with
  // fewer points (systems) are placed before larger ones (committee members).
  // Sizes are estimates in pixels of the plot area (width w, height h).
  function declutter(traces, w, h) {
    const xs = traces.flatMap((t) => t.x).filter((v) => v != null);
    const ys = traces.flatMap((t) => t.y).filter((v) => v != null);
    if (!xs.length) return;
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const px = (v) => (x1 > x0 ? (v - x0) / (x1 - x0) : 0.5) * w;
    const py = (v) => (y1 > y0 ? (y1 - v) / (y1 - y0) : 0.5) * h;
    const width = (s) => 6 + [...s].reduce((n, c) => n + (c.codePointAt(0) > 0x2e80 ? 12 : 7), 0);
    const CORNERS = [["top right", 1, -1], ["bottom right", 1, 1], ["top left", -1, -1], ["bottom left", -1, 1],
                     ["middle right", 1, 0], ["middle left", -1, 0], ["top center", 0, -1], ["bottom center", 0, 1]];
    const placed = [];
    const overlaps = (b) => placed.some((o) => b.l < o.r && o.l < b.r && b.t < o.b && o.t < b.b);
    const order = traces.map((_, k) => k).sort((a, b) => traces[a].x.length - traces[b].x.length || a - b);
    for (const k of order) {
      const t = traces[k];
      if (!t.mode.includes("text")) continue;
      const pos = t.text.map(() => "top right");
      t.text = t.text.map((label, i) => {
        if (!label || t.x[i] == null || t.y[i] == null) return "";
        const cx = px(t.x[i]), cy = py(t.y[i]), lw = width(String(label)), lh = 14;
        for (const [name, dx, dy] of CORNERS) {
          const l = dx > 0 ? cx + 5 : dx < 0 ? cx - 5 - lw : cx - lw / 2;
          const top = dy < 0 ? cy - 4 - lh : dy > 0 ? cy + 4 : cy - lh / 2;
          const box = { l, r: l + lw, t: top, b: top + lh };
          if (!overlaps(box)) { placed.push(box); pos[i] = name; return label; }
        }
        return "";  // no free side: the hover names it
      });
      t.textposition = pos;
    }
  }
  function scatterTraces(a, nameOf) {
    const xName = nameOf(a.x), yName = nameOf(a.y[0]);
    return groups(a).map((g, k) => {
      const names = a.label ? pick(a.columns[a.label], g.rows) : undefined;
      const x = pick(a.columns[a.x], g.rows), y = pick(a.columns[a.y[0]], g.rows);
      const labelled = names && g.rows.length <= a.labelled_points;  // which dot is which system
      const text = labelled ? placeLabels(names, x, y) : names;
      return { type: "scatter", mode: labelled ? "markers+text" : "markers", text, hovertext: names,
               textposition: "top right",
               textfont: { size: 11 }, cliponaxis: false,
               name: g.key == null ? yName : `${nameOf(g.key)} (${g.rows.length})`,
               x, y, marker: { color: COLORS[k % COLORS.length], symbol: SYMBOLS[k % SYMBOLS.length], size: 9 },
               hovertemplate: (names ? "%{hovertext}<br>" : "") + `${xName} %{x:.4f}<br>${yName} %{y:.4f}<extra></extra>` };
    });
  }

  // ---------------------------------------------------------------- explorer
  const ex = { q: "", exact: false, dmin: 0, dmax: 1, oov: "all", type: -1, sys: -1, outcome: "any",
               sort: "order", dir: 1, page: 0, size: 50, rows: new Uint32Array(0), selected: -1 };
  let vocabRank = null;
  function sortKeyFn(key) {
    if (key === "word") {
      if (!vocabRank) {
        const order = vocab.map((_, i) => i).sort((a, b) => (vocab[a] < vocab[b] ? -1 : vocab[a] > vocab[b] ? 1 : 0));
        vocabRank = new Uint32Array(vocab.length); order.forEach((v, r) => { vocabRank[v] = r; });
      }
      return (i) => vocabRank[wordId[i]];
    }
    if (key === "d") return (i) => d[i];
    if (key === "label") return (i) => typeOf[i];
    if (key === "len") return (i) => itemB[i] - itemA[i];
    if (key === "oov") return (i) => oov[i];
    if (key === "a") return (i) => irtA[i];
    if (key === "b") return (i) => irtB[i];
    if (key.startsWith("sys")) { const o = systems[+key.slice(3)].out; return (i) => o[i]; }
    return (i) => i;
  }
  function matchingWords() {
    if (!ex.q) return null;
    const ok = new Uint8Array(vocab.length);
    for (let v = 0; v < vocab.length; v++) ok[v] = ex.exact ? vocab[v] === ex.q : vocab[v].includes(ex.q);
    return ok;
  }
  function outcomeTest() {
    const o = ex.outcome;
    if (o === "any") return null;
    if (o === "wrong") return (c) => c !== 0;
    const code = OUT.indexOf(o);
    return (c) => c === code;
  }
  function applyFilters() {
    const ok = matchingWords(), test = outcomeTest();
    const sysList = ex.sys < 0 ? systems : [systems[ex.sys]];
    const keep = new Uint32Array(N); let n = 0;
    for (let i = 0; i < N; i++) {
      if (d[i] < ex.dmin || d[i] > ex.dmax) continue;
      if (oov && ex.oov !== "all" && (oov[i] === 1) !== (ex.oov === "oov")) continue;
      if (ok && !ok[wordId[i]]) continue;
      if (ex.type >= 0 && typeOf[i] !== ex.type) continue;
      if (test) { let hit = false; for (const s of sysList) if (test(s.out[i])) { hit = true; break; } if (!hit) continue; }
      keep[n++] = i;
    }
    let rows = keep.slice(0, n);
    if (ex.sort !== "order") {
      const f = sortKeyFn(ex.sort), dir = ex.dir;
      rows = Uint32Array.from(Array.from(rows).sort((a, b) => (f(a) - f(b)) * dir || a - b));
    } else if (ex.dir < 0) rows.reverse();
    ex.rows = rows; ex.page = 0;
    $("item-count").textContent = int(n);
    $("item-count-of").textContent = `of ${count(N, "gold " + UNIT, "gold " + UNITS)} kept by the filters`;
    drawRows();
  }
  function columns() {
    const cols = [{ key: "order", label: "#" }, { key: "word", label: UNIT, l: true }];
    if (ENT) cols.push({ key: "label", label: POS ? "gold tag" : "type", l: true });
    cols.push({ key: "context", label: "context", l: true, nosort: true }, { key: "d", label: "d" });
    if (irtA) cols.push({ key: "a", label: "IRT a" });
    if (irtB) cols.push({ key: "b", label: "IRT b" });
    if (oov) cols.push({ key: "oov", label: "OOV" });
    cols.push({ key: "len", label: "length" });
    systems.forEach((s, k) => cols.push({ key: "sys" + k, label: s.name, l: true }));
    return cols;
  }
  function drawHead() {
    const tr = el("tr");
    for (const c of columns()) {
      const th = el("th", { class: (c.l ? "l " : "") + (ex.sort === c.key ? (ex.dir > 0 ? "sorted-asc" : "sorted-desc") : ""),
                            "data-key": c.key, text: c.label });
      if (!c.nosort) th.addEventListener("click", () => {
        ex.dir = ex.sort === c.key ? -ex.dir : (c.key === "d" || c.key === "len" ? -1 : 1);
        ex.sort = c.key; drawHead(); applyFilters();
      });
      tr.append(th);
    }
    $("items").tHead.replaceChildren(tr);
  }
  function drawRows() {
    const pages = Math.max(1, Math.ceil(ex.rows.length / ex.size));
    ex.page = Math.min(Math.max(ex.page, 0), pages - 1);
    const body = $("items").tBodies[0];
    const frag = document.createDocumentFragment();
    const end = Math.min(ex.rows.length, (ex.page + 1) * ex.size);
    for (let r = ex.page * ex.size; r < end; r++) {
      const i = ex.rows[r];
      const tr = el("tr", { "data-word": i, class: i === ex.selected ? "selected" : "" },
        el("td", { text: String(i + 1) }), el("td", { class: "l", "data-key": "word", text: vocab[wordId[i]] }),
        ENT ? el("td", { class: "l", "data-key": "label", text: DATA.types[typeOf[i]] }) : null,
        el("td", { class: "l" }, context(i, 10)), el("td", { "data-key": "d", text: fmt(d[i]) }));
      if (irtA) tr.append(el("td", { text: fmt(irtA[i], 2) }));
      if (irtB) tr.append(el("td", { text: fmt(irtB[i], 2) }));
      if (oov) tr.append(el("td", { text: oov[i] ? "OOV" : "" }));
      tr.append(el("td", { "data-key": "len", text: String(itemB[i] - itemA[i]) }));
      for (const s of systems) {
        const o = OUT[s.out[i]];
        tr.append(el("td", { class: "l o-" + o, text: o === "correct" ? "✓ correct" : "✗ " + o }));
      }
      tr.addEventListener("click", () => { ex.selected = i; detail(i); drawRows(); });
      frag.append(tr);
    }
    body.replaceChildren(frag);
    $("page-info").textContent = `of ${int(pages)}`;
    const jump = $("page-jump");
    jump.max = String(pages); jump.value = String(ex.page + 1);
    $("page-prev").disabled = ex.page === 0;
    $("page-next").disabled = ex.page >= pages - 1;
  }
  function entityLine(s, spans, i) {
    // sentence s with the entities [a, b, type] (global offsets) of gold or of a system marked
    const text = DATA.texts[s], c0 = sentChar[s], div = el("div", { class: "seg" });
    let at = 0;
    for (const [a, b, type] of spans.sort((x, y) => x[0] - y[0])) {
      if (a - c0 > at) div.append(text.slice(at, a - c0));
      div.append(el("span", { class: "w e" + (a < itemB[i] && b > itemA[i] ? " hit" : ""),
                              title: type, text: text.slice(a - c0, b - c0) }, el("sub", { text: type })));
      at = b - c0;
    }
    if (at < text.length) div.append(text.slice(at));
    return div;
  }
  function entitiesOf(s, sys) {
    const out = [], lo = sentChar[s], hi = sentChar[s + 1];
    if (!sys) {
      for (let j = sentStart[s]; j < sentStart[s + 1]; j++) out.push([itemA[j], itemB[j], DATA.types[typeOf[j]]]);
      return out;
    }
    for (let k = 0; k < sys.predA.length; k++) if (sys.predA[k] >= lo && sys.predB[k] <= hi) out.push([sys.predA[k], sys.predB[k], sys.pred_type[k]]);
    return out;
  }
  function segmentation(s, bitsOf, i) {
    // words of sentence s as segmented by a system: split the text at its word ends
    const text = []; for (let j = sentStart[s]; j < sentStart[s + 1]; j++) text.push(vocab[wordId[j]]);
    const chars = Array.from(text.join("")), c0 = itemA[sentStart[s]];
    const div = el("div", { class: "seg" }); let cur = "", from = 0;
    chars.forEach((ch, k) => {
      cur += ch;
      if (bitsOf(c0 + k) || k === chars.length - 1) {
        const a = c0 + from, b = c0 + k + 1;
        div.append(el("span", { class: "w" + (a < itemB[i] && b > itemA[i] ? " hit" : ""), text: cur }));
        cur = ""; from = k + 1;
      }
    });
    return div;
  }
  function detail(i) {
    const s = sentOf[i], box = $("detail");
    box.replaceChildren(el("h3", { text: `“${vocab[wordId[i]]}”` + (ENT ? ` (${DATA.types[typeOf[i]]})` : "") +
                                         `, ${UNIT} ${i + 1}, sentence ${s + 1} (line ${DATA.lines[s]}), d = ${fmt(d[i])}` }));
    const t = el("table");
    if (ENT) {
      t.append(el("tr", {}, el("th", { class: "l", text: "gold" }), el("td", { class: "l sent" }, entityLine(s, entitiesOf(s, null), i))));
      for (const sys of systems) {
        const o = OUT[sys.out[i]];
        t.append(el("tr", {}, el("th", { class: "l", text: sys.name }),
                    el("td", { class: "l sent" }, entityLine(s, entitiesOf(s, sys), i)),
                    el("td", { class: "l o-" + o, text: o })));
      }
      box.append(t);
      reveal(box);
      return;
    }
    const ends = new Set(); for (let j = sentStart[s]; j < sentStart[s + 1]; j++) ends.add(itemB[j] - 1);
    t.append(el("tr", {}, el("th", { class: "l", text: "gold" }), el("td", { class: "l sent" }, segmentation(s, (c) => ends.has(c), i))));
    for (const sys of systems) {
      const bits = sys.endBits, o = OUT[sys.out[i]];
      t.append(el("tr", {}, el("th", { class: "l", text: sys.name }),
                  el("td", { class: "l sent" }, segmentation(s, (c) => (bits[c >> 3] >> (c & 7)) & 1, i)),
                  el("td", { class: "l o-" + o, text: o })));
    }
    box.append(t);
    reveal(box);
  }
  // The detail opens below the list: the page scrolls it into view (as
  // little as it takes, so the row clicked stays in view when it can; a
  // detail taller than the view from its top, under the sticky header), then
  // the chosen item in its gold sentence, however long the sentence.
  function reveal(box) {
    box.scrollIntoView({ block: "nearest" });
    const hit = box.querySelector(".seg span.hit");
    if (hit) hit.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  function explorer() {
    if (ENT && !POS) {  // the filters' words, said of entities
      $("f-search").placeholder = "entity or part of one";
      $("f-exact").nextSibling.textContent = " whole entity";
      $("f-oov").options[0].textContent = "all entities";
    }
    if (ENT) {  // a filter by the gold label: entity type, or part of speech
      const counts = new Array(DATA.types.length).fill(0);
      for (let i = 0; i < N; i++) counts[typeOf[i]]++;
      $("f-type-label").hidden = false;
      $("f-type-name").textContent = POS ? "Gold tag" : "Type";
      const sel = $("f-type");
      sel.append(el("option", { value: "-1", text: POS ? "any tag" : "any type" }));
      DATA.types.forEach((t, k) => sel.append(el("option", { value: String(k), text: `${t} (${int(counts[k])})` })));
      sel.addEventListener("change", (e) => { ex.type = +e.target.value; applyFilters(); });
    }
    const sysSel = $("f-system");
    sysSel.append(el("option", { value: "-1", text: "any system" }));
    systems.forEach((s, k) => sysSel.append(el("option", { value: String(k), text: s.name })));
    const outSel = $("f-outcome");
    for (const o of ["any", "wrong", ...OUT]) outSel.append(el("option", { value: o, text: o === "any" ? "any outcome" : o }));
    if (!oov) $("f-oov").disabled = true;
    let timer = null;
    $("f-search").addEventListener("input", (e) => {
      clearTimeout(timer); timer = setTimeout(() => { ex.q = e.target.value.trim(); applyFilters(); }, 120);
    });
    $("f-exact").addEventListener("change", (e) => { ex.exact = e.target.checked; applyFilters(); });
    const num = (id, key, dflt) => $(id).addEventListener("input", (e) => {
      const v = parseFloat(e.target.value); ex[key] = Number.isFinite(v) ? v : dflt; applyFilters(); });
    num("f-dmin", "dmin", 0); num("f-dmax", "dmax", 1);
    $("f-oov").addEventListener("change", (e) => { ex.oov = e.target.value; applyFilters(); });
    $("f-system").addEventListener("change", (e) => { ex.sys = +e.target.value; applyFilters(); });
    $("f-outcome").addEventListener("change", (e) => { ex.outcome = e.target.value; applyFilters(); });
    $("f-reset").addEventListener("click", () => {
      clearTimeout(timer);
      Object.assign(ex, { q: "", exact: false, dmin: 0, dmax: 1, oov: "all", type: -1, sys: -1, outcome: "any", sort: "order", dir: 1 });
      $("filters").reset(); drawHead(); applyFilters();
    });
    $("page-prev").addEventListener("click", () => { ex.page--; drawRows(); });
    $("page-next").addEventListener("click", () => { ex.page++; drawRows(); });
    $("page-first").addEventListener("click", () => { ex.page = 0; drawRows(); });
    $("page-last").addEventListener("click", () => { ex.page = Infinity; drawRows(); });
    // a page number typed (Enter or leaving the box) is clamped to the pages there are
    $("page-jump").addEventListener("change", (e) => {
      const v = parseInt(e.target.value, 10); if (Number.isFinite(v)) ex.page = v - 1; drawRows(); });
    const sizeSel = $("page-size");
    PAGE_SIZES.forEach((n) => sizeSel.append(el("option", { value: String(n), text: String(n)})));
    sizeSel.value = String(ex.size);
    // a new page size keeps the first row shown in view
    sizeSel.addEventListener("change", (e) => {
      const first = ex.page * ex.size; ex.size = +e.target.value; ex.page = Math.floor(first / ex.size); drawRows(); });
    drawHead(); applyFilters();
  }

  // ---------------------------------------------------------------- A versus B
  function versus() {
    const A = $("vs-a"), B = $("vs-b"), BIN = $("vs-bin");
    if (!A) return;  // fewer than two systems: the section says why it has no view
    systems.forEach((s, k) => { A.append(el("option", { value: k, text: s.name })); B.append(el("option", { value: k, text: s.name })); });
    const byFb = systems.map((s, k) => k).sort((a, b) => (systems[b].scores.fb ?? -1) - (systems[a].scores.fb ?? -1));
    A.value = byFb[0]; B.value = byFb[1];
    BIN.append(el("option", { value: "-1", text: "all bins" }));
    DATA.bin_labels.forEach((l, b) => BIN.append(el("option", { value: b, text: l })));
    function draw() {
      const a = systems[+A.value], b = systems[+B.value];
      const onlyA = new Array(10).fill(0), onlyB = new Array(10).fill(0), both = new Array(10).fill(0), none = new Array(10).fill(0);
      for (let i = 0; i < N; i++) {
        const ra = a.out[i] === 0, rb = b.out[i] === 0, k = bins[i];
        if (ra && !rb) onlyA[k]++; else if (rb && !ra) onlyB[k]++; else if (ra) both[k]++; else none[k]++;
      }
      plot("chart-vs", [
        { type: "bar", name: `${a.name} right, ${b.name} wrong`, x: DATA.bin_labels, y: onlyA, marker: { color: COLORS[0] } },
        { type: "bar", name: `${b.name} right, ${a.name} wrong`, x: DATA.bin_labels, y: onlyB, marker: { color: COLORS[1] } }],
        { title: { text: `${UNITS[0].toUpperCase() + UNITS.slice(1)} one system gets right and the other wrong, by difficulty` }, barmode: "group",
          yaxis: { title: { text: `gold ${UNITS}` } },
          xaxis: { title: { text: "difficulty d" } }, hovermode: "x unified" });
      const t = $("vs-table"); t.replaceChildren();
      t.append(el("thead", {}, el("tr", {}, el("th", { class: "l", text: "" }), ...DATA.bin_labels.map((l) => el("th", { text: l })), el("th", { text: "all" }))));
      const sum = (v) => v.reduce((x, y) => x + y, 0);
      const tb = el("tbody");
      for (const [label, v, key] of [[`${a.name} right, ${b.name} wrong`, onlyA, "a"], [`${b.name} right, ${a.name} wrong`, onlyB, "b"],
                                     ["both right", both, "both"], ["both wrong", none, "none"]])
        tb.append(el("tr", { "data-row": key }, el("th", { class: "l", text: label }), ...v.map((x) => el("td", { text: int(x) })), el("td", { "data-key": "all", text: int(sum(v)) })));
      t.append(tb);
      examples(a, b);
    }
    function examples(a, b) {
      const bin = +BIN.value, lists = [[], []];
      for (let i = 0; i < N && (lists[0].length < 25 || lists[1].length < 25); i++) {
        if (bin >= 0 && bins[i] !== bin) continue;
        const ra = a.out[i] === 0, rb = b.out[i] === 0;
        if (ra && !rb && lists[0].length < 25) lists[0].push(i);
        if (rb && !ra && lists[1].length < 25) lists[1].push(i);
      }
      $("vs-ex-a-title").textContent = `${a.name} right, ${b.name} wrong (first ${lists[0].length})`;
      $("vs-ex-b-title").textContent = `${b.name} right, ${a.name} wrong (first ${lists[1].length})`;
      [["vs-ex-a", lists[0], b], ["vs-ex-b", lists[1], a]].forEach(([id, list, loser]) => {
        $(id).replaceChildren(...list.map((i) => el("li", {}, context(i, 8), ` d = ${fmt(d[i], 2)}, `,
                                                       el("span", { class: "o-" + OUT[loser.out[i]], text: loser.name + ": " + OUT[loser.out[i]] }))));
      });
    }
    A.addEventListener("change", draw); B.addEventListener("change", draw);
    BIN.addEventListener("change", () => examples(systems[+A.value], systems[+B.value]));
    draw();
  }

  function notes() {
    if (DATA.notes.length) $("notes").append(el("h2", { text: "Notes" }), el("ul", { class: "notes" }, ...DATA.notes.map((n) => el("li", { text: n }))));
    $("footer").textContent = `committee ${DATA.version}`;
  }

  // sections reached from the nav stop below the sticky header, whatever its height
  const header = document.querySelector("header");
  const headerHeight = () => document.documentElement.style.setProperty(
    "--header-height", (header.getBoundingClientRect().height + 8).toFixed(0) + "px");
  headerHeight(); window.addEventListener("resize", headerHeight);
  // the explorer first: it is what the page is opened for; charts after
  explorer();
  // milliseconds from navigation start to the explorer's first rows (scripts/bench_html.py)
  document.body.setAttribute("data-explorer-ms", performance.now().toFixed(0));
  document.body.setAttribute("data-explorer-ready", "1");
  overview(); systemsTable(); analyses(); versus(); notes();
  setTimeout(loadCharts, 0);
})();
