// The in-page calculator: a form with every option of `spotmath plan`, the plan as the
// command prints it, its JSON, and a plot, recomputed on every keystroke, with no kernel,
// server or network.  The numbers come from plan.js; this file is only the interface.
// The state lives in the URL query under the command line's option names.
"use strict";

(function (root) {
  const P = root.spotmathPlan, general = root.spotmathFormat.general;
  // The command's defaults and choices (generated from spotmath.model.plan into data.js).
  const DEFAULTS = root.spotmathData.PLAN_DEFAULTS, CHOICES = root.spotmathData.PLAN_CHOICES;
  // the book's colours: price and waste as its figures draw them, a run's segments as
  // its timelines do (spotmath.palette)
  const { COLOURS, KIND_COLOURS, LOST_EDGE } = root.spotmathData;
  const FIELDS = [  // [option, label, help]; a select where the option has choices
    ["mtbf", "MTBF of one node", "mean time between preemptions: 90min, 4h, 1.5d"],
    ["rate", "or its rate", "preemptions per hour of one node instead: 0.25/h"],
    ["restart", "restart", "preemption to computing again"],
    ["checkpoint", "checkpoint write", "time a checkpoint blocks training"],
    ["state", "or the state", "the checkpoint's size instead, e.g. 13.2GB (with a write " +
                              "bandwidth; leave the checkpoint write empty)"],
    ["write-bandwidth", "write bandwidth", "to durable storage, e.g. 1.2GB/s (with the state)"],
    ["snapshot-bandwidth", "snapshot bandwidth", "asynchronous writes: to host memory, " +
                                                 "e.g. 55GB/s (optional; sets persist)"],
    ["discount", "spot discount", "against on-demand: 0.6 or 60%"],
    ["gang-size", "gang size", "synchronous gang, nodes (preempted at N·λ)"],
    ["model", "model", "renewal-reward model or λ(T/2 + R) + C/T"],
    ["restart-variant", "restart", "can a restart be preempted?"],
    ["notice", "notice", "warning before a preemption, e.g. 2min (optional)"],
    ["notice-share", "notice share", "share of notices acted on, 0 to 1 (with a notice)"],
    ["notice-write", "on-notice write", "default: checkpoint + persist"],
    ["persist", "persist", "asynchronous write: snapshot to durable (optional)"],
    ["level1", "fast write", "two levels: a copy to a peer's memory or local disk, e.g. 5s " +
                             "(optional; checkpoint and restart are then the durable level's)"],
    ["level1-restart", "fast restart", "restart from a fast copy (default: restart)"],
    ["level1-loss", "fast copies lost", "share of preemptions that take them, 0 to 1 " +
                                        "(with a fast write)"],
  ];

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    for (const child of children) node.append(child);
    return node;
  }

  // Options that may be left empty (not given); the others are always given, so an empty
  // one gets the command's message for an empty value.
  // (an empty checkpoint write is the command's default, or the state's write)
  const OPTIONAL = new Set(["rate", "checkpoint", "notice", "notice-share", "notice-write",
                            "persist", "level1", "level1-restart", "level1-loss", "state",
                            "write-bandwidth", "snapshot-bandwidth"]);

  // The options as the page has them, by their option names.
  function given(form) {
    const options = {};
    for (const [name] of FIELDS) {
      const value = form.elements[name].value;
      if (!OPTIONAL.has(name) || value.trim() !== "") options[name] = value;
    }
    if (options.rate !== undefined) delete options.mtbf;  // a rate replaces the MTBF
    return options;
  }

  // A shell word: quoted only where it needs to be.
  function shellWord(text) {
    return /^[\w.,/%:=+-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'";
  }
  // One option as the command line takes it: a value that starts with a minus sign
  // ('-0min') joined by '=', which no parser reads as an option of its own
  function option(name, value) {
    return value.startsWith("-") ? shellWord(`--${name}=${value}`)
      : `--${name} ${shellWord(value)}`;
  }

  // -- the plot: waste and price per useful hour against the interval -----------------------
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function plot(target, plan) {
    target.replaceChildren();
    const values = plan.json;
    const curve = P.priceCurve(plan.checked, values);
    if (!curve.some((point) => point.waste !== null)) {
      target.append(element("p", { class: "spotmath-note" }, "Nothing to plot: the waste " +
        "is 100% or more at every interval around the plan's (in the first-order model " +
        "that means the approximation has broken down; try --model exact)."));
      return;
    }
    const width = 640, height = 300, left = 56, right = 16, top = 12, bottom = 40;
    const xs = curve.map((p) => Math.log10(p.interval));
    const x0 = Math.min(...xs), x1 = Math.max(...xs);
    const yMax = 1.6;
    const X = (t) => left + ((Math.log10(t) - x0) / (x1 - x0)) * (width - left - right);
    const Y = (v) => top + (1 - Math.min(v, yMax) / yMax) * (height - top - bottom);
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%",
                               role: "img", "aria-label": "waste and price against the interval" });
    const line = (points, attributes) => chart.append(svg("polyline", Object.assign(
      { points: points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "),
        fill: "none" }, attributes)));
    for (let v = 0; v <= yMax + 1e-9; v += 0.2) {  // grid and y labels
      chart.append(svg("line", { x1: left, x2: width - right, y1: Y(v), y2: Y(v),
                                 stroke: "#ddd", "stroke-width": 1 }));
      chart.append(svg("text", { x: left - 6, y: Y(v) + 4, "text-anchor": "end",
                                 "font-size": 11 }, v.toFixed(1)));
    }
    for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) {  // decades on the x axis
      const t = 10 ** e;
      chart.append(svg("line", { x1: X(t), x2: X(t), y1: top, y2: height - bottom,
                                 stroke: "#eee", "stroke-width": 1 }));
      chart.append(svg("text", { x: X(t), y: height - bottom + 16, "text-anchor": "middle",
                                 "font-size": 11 }, P.durationText(t)));
    }
    chart.append(svg("text", { x: (left + width - right) / 2, y: height - 6,
                               "text-anchor": "middle", "font-size": 12 },
                     "checkpoint interval (log scale)"));
    line([[left, Y(1)], [width - right, Y(1)]], { stroke: "#404040", "stroke-width": 1.5 });
    chart.append(svg("text", { x: width - right - 4, y: Y(1) - 5, "text-anchor": "end",
                               "font-size": 11 }, "on-demand"));
    const segments = (key) => {  // break the line where the value does not exist
      const runs = [[]];
      for (const p of curve) {
        if (p[key] === null) { if (runs[runs.length - 1].length) runs.push([]); continue; }
        runs[runs.length - 1].push([X(p.interval), Y(p[key])]);
      }
      return runs.filter((run) => run.length > 1);
    };
    for (const run of segments("waste")) line(run, { stroke: COLOURS[1], "stroke-width": 2 });
    for (const run of segments("price")) line(run, { stroke: COLOURS[0], "stroke-width": 2 });
    const mark = (t, colour, label, dy) => {
      if (t === null || !(t > 10 ** x0 && t < 10 ** x1)) return;
      line([[X(t), top], [X(t), height - bottom]], { stroke: colour, "stroke-dasharray": "4 3" });
      chart.append(svg("text", { x: X(t) + 4, y: top + dy, "font-size": 11, fill: colour }, label));
    };
    mark(values.recommended_interval_h, "#2a7f3f", `optimum ${P.durationText(values.recommended_interval_h)}`, 12);
    mark(values.break_even_interval_h, "#b35900", `break-even ${P.durationText(values.break_even_interval_h)}`, 26);
    chart.append(svg("text", { x: left + 6, y: top + 12, "font-size": 11, fill: COLOURS[0] },
                     "price per useful hour (on-demand = 1)"));
    chart.append(svg("text", { x: left + 6, y: top + 26, "font-size": 11, fill: COLOURS[1] },
                     "waste (share of wall time)"));
    target.append(chart);
  }

  // -- the timeline: the first hours of the plan, illustrative ------------------------------
  // One node at the recommended interval T: compute T, write C, again; the expected number
  // of preemptions in the window, placed at their mean spacing 1/(gang rate); a preemption
  // loses everything since the last completed write and costs a restart R (a preemption
  // during a restart starts it again).  The same rules as spotmath.model.simulate's log,
  // with the random preemption times replaced by their mean spacing.

  // Two levels (spotmath.model.simulate_two_level's rules, restarts preemptible): n
  // segments of T, the first n - 1 ending with a fast write C1, the n-th with a durable
  // write C.  The share p of the preemptions that take the fast copies is spread evenly
  // (the j-th takes them when p·j passes a whole number): those roll back to the last
  // durable write and restart in R, the others to the last write of either level and
  // restart in R1; one that takes the copies during R1 moves to R.
  function twoLevelSegments(T, n, C1, C, R1, R, p, rate, window) {
    const gap = 1 / rate, hits = [];
    for (let k = 1; k * gap <= window + 1e-12; k++) hits.push(k * gap);
    const takes = hits.map((_, j) => Math.floor((j + 1) * p + 1e-9) > Math.floor(j * p + 1e-9));
    const segments = [];
    let kept = [];  // entries only the fast copies keep (since the last durable write)
    const loseKept = () => { for (const i of kept) segments[i][0] = "lost"; kept = []; };
    let t = 0, next = 0, segment = 0;
    while (t < window - 1e-12) {
      const hit = next < hits.length ? hits[next] : Infinity;
      const last = segment === n - 1, write = last ? C : C1;
      if (hit >= t + T + write) {
        segments.push(["compute", t, t + T], [last ? "checkpoint" : "fast-checkpoint", t + T, t + T + write]);
        t += T + write;
        if (last) kept = [];
        else kept.push(segments.length - 2, segments.length - 1);
        segment = last ? 0 : segment + 1;
        continue;
      }
      segments.push(["lost", t, hit]);
      let useFast = !takes[next];
      next += 1;
      t = hit;
      while (true) {  // the restart, from the fast copy or the durable one
        if (!useFast) { loseKept(); segment = 0; }
        const length = useFast ? R1 : R, kind = useFast ? "fast-restart" : "restart";
        const again = next < hits.length ? hits[next] : Infinity;
        if (again >= t + length) { segments.push([kind, t, t + length]); t += length; break; }
        segments.push([kind, t, again]);
        if (takes[next]) useFast = false;
        next += 1;
        t = again;
      }
    }
    return { segments: segments.filter(([, a, b]) => b > a), hits };
  }

  function timelineSegments(T, C, R, rate, window) {
    const gap = 1 / rate, hits = [];
    for (let k = 1; k * gap <= window + 1e-12; k++) hits.push(k * gap);
    const segments = [];
    let t = 0, since = t, next = 0;  // since: end of the last completed write
    while (t < window - 1e-12) {
      const hit = next < hits.length ? hits[next] : Infinity;
      if (hit >= t + T + C) {  // a segment and its write complete
        segments.push(["compute", t, t + T], ["checkpoint", t + T, t + T + C]);
        t += T + C;
        since = t;
        continue;
      }
      segments.push(["lost", since > t ? since : t, hit]);
      next += 1;
      t = hit;
      while (true) {  // the restart, started again by a preemption during it
        const again = next < hits.length ? hits[next] : Infinity;
        if (again >= t + R) { segments.push(["restart", t, t + R]); t += R; break; }
        segments.push(["restart", t, again]);
        next += 1;
        t = again;
      }
    }
    return { segments: segments.filter(([, a, b]) => b > a), hits };
  }

  function timeline(target, plan) {
    target.replaceChildren();
    const v = plan.json, T = v.recommended_interval_h, levels = v.level2_every !== undefined;
    if (T === null || !(v.gang_rate > 0)) {
      target.append(element("p", { class: "spotmath-note" }, "No timeline: the plan has " +
        "no periodic checkpoint to draw."));
      return;
    }
    const C = v.checkpoint_cost_h, R = v.restart_time_h, gap = 1 / v.gang_rate;
    // a few preemptions, but at least a few intervals (two levels: periods) and never
    // more than sixty
    const period = levels ? v.level2_every * T + (v.level2_every - 1) * v.level1_cost_h + C
      : T + C;
    const window = Math.min(Math.max(3 * gap, 6 * period), 60 * period);
    const { segments, hits } = levels
      ? twoLevelSegments(T, v.level2_every, v.level1_cost_h, C, v.level1_restart_h, R,
                         v.level1_loss, v.gang_rate, window)
      : timelineSegments(T, C, R, v.gang_rate, window);
    const width = 640, height = levels ? 100 : 86, left = 8, right = 8, top = 22, bar = 26;
    const X = (t) => left + (Math.min(t, window) / window) * (width - left - right);
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%",
      role: "img", id: "spotmath-plan-timeline-svg",
      "data-intervals": segments.filter(([kind]) => kind === "compute").length,
      "data-preemptions": hits.length,
      "aria-label": "an illustrative timeline of the plan: compute, writes, lost work " +
                    "and restarts, with preemptions at their mean spacing" });
    const hatch = svg("pattern", { id: "spotmath-hatch", width: 6, height: 6,
                                   patternUnits: "userSpaceOnUse",
                                   patternTransform: "rotate(45)" });
    hatch.append(svg("rect", { width: 6, height: 6, fill: KIND_COLOURS.lost }),
                 svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: LOST_EDGE,
                               "stroke-width": 2 }));
    const defs = svg("defs", {});
    defs.append(hatch);
    chart.append(defs);
    for (const [kind, a, b] of segments) {
      if (a >= window) break;
      chart.append(svg("rect", { x: X(a), y: top, width: Math.max(X(b) - X(a), 0.5),
        height: bar, "data-kind": kind,
        fill: kind === "lost" ? "url(#spotmath-hatch)" : KIND_COLOURS[kind] }));
    }
    for (const hit of hits) {
      chart.append(svg("text", { x: X(hit), y: top - 4, "text-anchor": "middle",
                                 "font-size": 12 }, "▼"));
    }
    chart.append(svg("text", { x: left, y: height - 6, "font-size": 11 },
      `0 to ${P.durationText(window)}: illustrative, one node at the recommended interval, ` +
      `preemptions (▼) at their mean spacing ${P.durationText(gap)}`));
    if (levels) {
      chart.append(svg("text", { x: left, y: height - 20, "font-size": 11 },
        `${general(100 * v.level1_loss, 3)}% of the preemptions, spread evenly, take the ` +
        "fast copies (hatched back to the last durable write)"));
    }
    target.append(chart);
  }

  // -- the page -----------------------------------------------------------------------------
  function build(container) {
    const form = element("form", { class: "spotmath-form", autocomplete: "off" });
    const errors = {};
    for (const [name, label, help] of FIELDS) {
      let field;
      if (CHOICES[name]) {
        field = element("select", { name, id: `spotmath-${name}` },
                        ...CHOICES[name].map((choice) => element("option", { value: choice }, choice)));
      } else {
        field = element("input", { name, id: `spotmath-${name}`, type: "text",
                                   placeholder: DEFAULTS[name] ?? "", size: 10, spellcheck: "false" });
      }
      errors[name] = element("span", { class: "spotmath-error", id: `spotmath-${name}-error`,
                                       role: "alert" });
      form.append(element("div", { class: "spotmath-field" },
                          element("label", { for: `spotmath-${name}` }, label), field,
                          element("small", {}, help), errors[name]));
    }
    const command = element("code", { id: "spotmath-plan-command" });
    const report = element("pre", { id: "spotmath-plan-report" });
    const chart = element("div", { id: "spotmath-plan-plot" });
    const drawn = element("div", { id: "spotmath-plan-timeline" });
    const json = element("pre", { id: "spotmath-plan-json" });
    container.append(form, element("p", {}, "The same plan on the command line: ", command),
                     report, drawn, chart,
                     element("details", {}, element("summary", {}, "the plan as JSON"), json));

    function update() {
      const started = performance.now();
      const options = given(form);
      const plan = P.planFromOptions(options);
      for (const span of Object.values(errors)) span.textContent = "";
      json.textContent = JSON.stringify(plan.json, null, 2);
      if (plan.report === null) {  // one message, next to the field it names
        const match = /^(?:argument )?--([\w-]+)/.exec(plan.json.error);
        const name = match && errors[match[1]] ? match[1] : "mtbf";
        errors[name].textContent = plan.json.error;
        report.textContent = "";
        chart.replaceChildren();
        drawn.replaceChildren();
        command.textContent = "";
      } else {
        report.textContent = plan.report;
        timeline(drawn, plan);
        plot(chart, plan);
        command.textContent = "spotmath plan " + Object.entries(options)
          .map(([name, value]) => option(name, value)).join(" ");
      }
      const query = new URLSearchParams(options).toString();
      history.replaceState(null, "", query ? `?${query}` : location.pathname);
      json.dataset.milliseconds = (performance.now() - started).toFixed(3);
    }

    const query = new URLSearchParams(location.search);
    for (const [old, name] of Object.entries(root.spotmathData.RENAMED_OPTIONS)) {
      for (const value of query.getAll(old)) query.append(name, value);  // a link made before
      query.delete(old);
    }
    for (const [name] of FIELDS) {  // the link's values, else the command's defaults
      // a repeated name: the last value counts, as on the command line
      // a link with the state's size leaves the checkpoint write to it
      const fromState = name === "checkpoint" && query.has("state");
      const wanted = query.has(name) ? query.getAll(name).at(-1)
        : fromState ? "" : DEFAULTS[name] ?? "";
      const field = form.elements[name];
      if (CHOICES[name] && !CHOICES[name].includes(wanted)) {
        // keep a value the list does not offer, so the message names it as argparse does
        field.append(element("option", { value: wanted }, wanted));
      }
      field.value = wanted;
    }
    if (query.has("rate") && !query.has("mtbf")) form.elements.mtbf.value = "";
    form.addEventListener("input", update);
    form.addEventListener("submit", (event) => event.preventDefault());
    update();
  }

  function start() {
    const container = document.getElementById("spotmath-calculator");
    if (container) build(container);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof globalThis !== "undefined" ? globalThis : this);
