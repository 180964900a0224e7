// spotmath.model.plan and spotmath.report in the page: `spotmath plan`'s plan, JSON and
// table, and the command's options as the page takes them (spotmath.cli's plan command).
//
// The checks come from inputs.js, the numbers from numerics.js and two_level.js (ports of
// the Python modules of those names, every formula from formulas.js, printed from the
// SymPy derivations); the words of the refusals and the table, and how the table writes
// durations and shares, from data.js (spotmath.model.plan's REFUSALS, spotmath.report's
// REPORT, spotmath.inputs' NUMBER_TEMPLATES and DURATION_UNITS, written once in Python),
// filled as Python fills them (format.js).
// tests/lib/test_web.py compares the page with the command for hundreds of parameter sets,
// good and bad, character for character.
"use strict";

(function (root) {
  const F = root.spotmathFormulas, D = root.spotmathData;
  const { countText, fill, stringRepr } = root.spotmathFormat;
  const { InputError, checkDuration, checkRate, checkDiscount, checkGangSize,
          checkFraction, checkSize, rateFromMtbf } = root.spotmathInputs;
  const { wasteFraction, exactInterval, optimalInterval, relativePrice, breakEvenIntervals,
          neverOnSpotGangSize, maxGangSize, noticeWaste, noticeWasteFloor,
          noticeOptimalInterval, noticeOptimalWaste, noticeBreakEven,
          noticeMaxGangSize } = root.spotmathNumerics;
  const { twoLevelWaste, twoLevelOptimum, twoLevelFirstOrderOptimum,
          twoLevelLossBreakEven } = root.spotmathTwoLevel;
  const CHOICES = D.PLAN_CHOICES;
  const MODELS = CHOICES.model;
  const TEMPLATES = D.NUMBER_TEMPLATES;

  // duration_text: in the unit of DURATION_UNITS ([unit, below, times, per]) that fits
  function durationText(hours) {
    if (hours === null || hours === undefined) return TEMPLATES.none;
    if (hours > D.MAX_HOURS) return fill(TEMPLATES.beyond, { years: D.MAX_HOURS / D.HOURS_PER_YEAR });
    const [unit, , times, per] = D.DURATION_UNITS.find(
      ([, below]) => below === null || hours < below);
    return fill(TEMPLATES.duration, { value: hours * times / per, unit });
  }

  const percent = (share) => (share === null ? TEMPLATES.no_share : fill(TEMPLATES.share, { share }));
  const finite = (hours) => (Number.isFinite(hours) ? hours : null);
  const VERDICTS = D.PLAN_VERDICTS;
  const verdictOf = (effective) =>
    VERDICTS[effective !== null && effective > 0 ? "spot" : "on_demand"];
  // the break-even state and interval from the range of intervals that pay (plan.py's
  // _break_even): "never" none pays, "always" all from some length on, else "after" it
  const breakEvenOf = (paying) => {
    if (paying === null) return { break_even_interval_h: null, break_even: "never" };
    const longest = finite(paying[1]);
    return { break_even_interval_h: longest, break_even: longest === null ? "always" : "after" };
  };

  // REFUSALS, filled for a parameter named by its option (OPTION_NAMES)
  function refuse(key, name, values) {
    return new InputError(fill(D.PLAN_REFUSALS[key],
                               { ...values, name: D.OPTION_NAMES[name] ?? name }));
  }

  // spotmath.model.plan.make_plan, from checked numbers (hours, per hour, fractions).
  function makePlan(o) {
    const rate = o.rate, restart = o.restart, cost = o.cost, discount = o.discount;
    const gangSize = o.gangSize, model = o.model, preemptible = o.preemptible;
    const notice = o.notice, persist = o.persist;
    if (notice === 0 && o.noticeShare !== null) throw refuse("without_notice", "notice_share");
    if (notice === 0 && o.noticeWrite !== null) throw refuse("without_notice", "notice_write");
    if (notice > 0 && o.noticeShare === null) throw refuse("share_needed", "notice_share");
    const share = o.noticeShare === null ? 0 : o.noticeShare;
    const write = notice === 0 ? null : (o.noticeWrite === null ? cost + persist : o.noticeWrite);
    const effective = notice > 0 && write <= notice;
    const gang = F.gang_rate(rate, gangSize);
    if (gang > D.MAX_RATE) {  // as a rate that high is refused, so is a gang that makes it
      throw refuse("gang_rate_high", "gang_size", {
        gang: countText(gangSize, "node"), rate: gang, most_rate: D.MAX_RATE,
        most: Math.floor(D.MAX_RATE / rate), node_rate: rate });
    }
    if (persist >= 1 / gang) {
      throw refuse("persist_too_long", "persist",
                   { persist: durationText(persist), mtbf: durationText(1 / gang) });
    }
    const full = { share: effective ? share : 0, write: effective ? write : cost + persist, persist };
    const levels = twoLevelOptions(o, restart);
    if (levels !== null) {
      if (notice > 0) throw refuse("levels_with_notice", "level1_cost");
      if (persist > 0 && !preemptible) throw refuse("persist_protected", "persist");
      if (model !== "exact") throw refuse("levels_first_order", "model");
    }
    const plan = {
      young_interval_h: F.young_interval(gang, cost),
      daly_interval_h: F.daly_interval(gang, cost),
      model, restart_preemptible: preemptible, gang_size: gangSize, gang_rate: gang,
      preemption_rate: rate, restart_time_h: restart, checkpoint_cost_h: cost,
      spot_discount: discount, notice_h: notice, notice_share: share,
      notice_write_h: write, notice_effective: effective, persist_h: persist,
    };
    const never = neverOnSpotGangSize(rate, restart, discount, model, preemptible);
    let baseline = null;
    if (full.share === 0 && persist === 0) {
      const recommended = optimalInterval(gang, cost, model);
      const waste = {};
      for (const m of MODELS) waste[m] = wasteFraction(gang, recommended, cost, restart, m, preemptible);
      const eff = waste[model] >= 1 ? null : 1 - relativePrice(waste[model], discount);
      const range = breakEvenIntervals(gang, cost, restart, discount, model, preemptible);
      Object.assign(plan, {
        exact_interval_h: exactInterval(gang, cost), recommended_interval_h: recommended,
        waste_first_order: waste["first-order"], waste_exact: waste.exact,
        effective_discount: eff, ...breakEvenOf(range),
        max_gang_size: maxGangSize(rate, cost, restart, discount, model, preemptible),
        never_on_spot_gang_size: never, verdict: verdictOf(eff),
        first_order_interval_h: F.young_interval(gang, cost),
      });
    } else {
      const optimum = {};
      for (const m of MODELS) optimum[m] = noticeOptimalInterval(gang, cost, full, m, 0);
      const recommended = noticeOptimalInterval(gang, cost, full, model, persist);
      const waste = {};
      for (const m of MODELS) {
        waste[m] = recommended === Infinity ? noticeWasteFloor(gang, restart, full, m, preemptible)
          : noticeWaste(gang, recommended, cost, restart, full, m, preemptible);
      }
      const eff = waste[model] >= 1 ? null : 1 - relativePrice(waste[model], discount);
      const paying = noticeBreakEven(gang, cost, restart, discount, full, model, preemptible);
      baseline = {};
      if (full.share > 0) {
        const interval = optimalInterval(gang, cost, model);
        baseline.no_notice = [Math.max(interval, persist), noticeOptimalWaste(
          gang, cost, restart, { ...full, share: 0 }, model, preemptible)];
      }
      if (persist > 0) {
        const blocking = cost + persist;
        const plain = { ...full, persist: 0 };
        const best = noticeOptimalInterval(gang, blocking, plain, model, 0);
        if (best !== Infinity) {
          baseline.blocking = [best, noticeOptimalWaste(gang, blocking, restart, plain, model,
                                                        preemptible)];
        }
      }
      Object.assign(plan, {
        exact_interval_h: finite(optimum.exact), recommended_interval_h: finite(recommended),
        waste_first_order: finite(waste["first-order"]), waste_exact: waste.exact,
        effective_discount: eff,
        ...breakEvenOf(paying),
        max_gang_size: noticeMaxGangSize(rate, cost, restart, discount, full, model, preemptible),
        never_on_spot_gang_size: never, verdict: verdictOf(eff),
        first_order_interval_h: finite(optimum["first-order"]),
      });
    }
    const checked = { gang, cost, restart, discount, model, preemptible, full,
                      classic: full.share === 0 && persist === 0 };
    let twoLevel = null;
    if (levels !== null) {
      twoLevel = planTwoLevel(plan, levels);
      checked.twoLevel = { rate: gang, fast: levels.cost, durable: cost,
                           fastRestart: levels.restart, restart, loss: levels.loss,
                           preemptible, persist, every: twoLevel.level2_every };
    }
    return { values: plan, baseline, checked, twoLevel };
  }

  // make_plan's _two_level_options: the checked fast level, or null without one
  function twoLevelOptions(o, restart) {
    if (o.level1 === null) {
      for (const [name, value] of [["level1_restart", o.level1Restart],
                                   ["level1_loss", o.level1Loss]]) {
        if (value !== null) {
          throw refuse("without_fast_write", name, { fast: D.OPTION_NAMES.level1_cost });
        }
      }
      return null;
    }
    if (o.level1Loss === null) throw refuse("loss_needed", "level1_loss");
    const fastRestart = o.level1Restart === null ? restart : o.level1Restart;
    if (fastRestart > restart) {  // the two-level optimum could then lose to one level
      throw refuse("fast_restart_slower", "level1_restart",
                   { fast: durationText(fastRestart), durable: durationText(restart) });
    }
    return { cost: o.level1, restart: fastRestart, loss: o.level1Loss };
  }

  // _plan_two_level: the exact optimal pattern; the plan's values become the pattern's
  function planTwoLevel(plan, levels) {
    const s = { rate: plan.gang_rate, fast: levels.cost, durable: plan.checkpoint_cost_h,
                fastRestart: levels.restart, restart: plan.restart_time_h,
                loss: levels.loss, preemptible: plan.restart_preemptible,
                persist: plan.persist_h };
    let best;
    try {
      best = twoLevelOptimum(s);
    } catch (error) {  // a gang's rate: the gang's size is what made it
      if (error.parameter !== "preemption_rate" || plan.gang_size === 1) throw error;
      throw new InputError(fill(D.TWO_LEVEL_REFUSALS.gang_never_completes, {
        name: D.OPTION_NAMES.gang_size, gang: plan.gang_size, rate: s.rate,
        durable: s.durable }));
    }
    const firstOrder = twoLevelWaste(s, best.interval, best.every, "first-order");
    let continuous = [null, null];
    if (levels.loss > 0 && levels.loss < 1 && levels.cost < plan.checkpoint_cost_h) {
      continuous = twoLevelFirstOrderOptimum(s);
    }
    const values = {
      level1_cost_h: levels.cost, level1_restart_h: levels.restart, level1_loss: levels.loss,
      level1_interval_h: best.interval, level2_every: best.every,
      level2_interval_h: best.interval * best.every, waste_level2_only: plan.waste_exact,
      level1_loss_break_even: twoLevelLossBreakEven(s),
      level1_interval_first_order_h: continuous[0],
      level2_interval_first_order_h: continuous[1],
    };
    const eff = best.waste >= 1 ? null : 1 - relativePrice(best.waste, plan.spot_discount);
    Object.assign(plan, { recommended_interval_h: best.interval, waste_exact: best.waste,
                          waste_first_order: firstOrder, effective_discount: eff,
                          verdict: verdictOf(eff) });
    return values;
  }

  // Waste and spot's price per useful hour (on-demand = 1) over a log grid of intervals
  // around the plan's: what the page plots.  Price null where the waste reaches 100%.
  function priceCurve(checked, values) {
    const { gang, cost, restart, discount, model, preemptible, full, twoLevel } = checked;
    const centre = values.recommended_interval_h ?? values.young_interval_h;
    // two levels: the interval between writes at the plan's n, whose nT covers P
    const shortest = twoLevel ? twoLevel.persist / twoLevel.every : full.persist;
    let low = Math.max(centre / 30, shortest, 1e-6 / gang);
    let high = Math.max(centre * 30, 2 * (values.break_even_interval_h ?? 0));
    high = Math.min(high, 400 / gang);
    if (!(high > low)) high = low * 100;
    const points = [];
    for (let i = 0; i < 200; i++) {
      const interval = low * (high / low) ** (i / 199);
      const waste = twoLevel ? twoLevelWaste(twoLevel, interval, twoLevel.every, "exact")
        : checked.classic ? wasteFraction(gang, interval, cost, restart, model, preemptible)
          : noticeWaste(gang, interval, cost, restart, full, model, preemptible);
      const usable = Number.isFinite(waste) && waste >= 0 && waste < 1;
      points.push({ interval, waste: usable ? waste : null,
                    price: usable ? (1 - discount) / (1 - waste) : null });
    }
    return points;
  }

  // textwrap.wrap(text, width, break_on_hyphens=False)
  function wrap(text, width) {
    const words = text.split(/\s+/).filter(Boolean);
    const lines = [];
    let line = "";
    for (let word of words) {
      while (word.length > width && !line) { lines.push(word.slice(0, width)); word = word.slice(width); }
      if (!line) line = word;
      else if (line.length + 1 + word.length <= width) line += " " + word;
      else {
        lines.push(line);
        line = "";
        while (word.length > width) { lines.push(word.slice(0, width)); word = word.slice(width); }
        line = word;
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  const WIDTH = D.TABLE_WIDTH;
  function table(rows) {
    const width = Math.max(...rows.map(([label]) => label.length));
    const indent = " ".repeat(width + 2);
    return rows.map(([label, value]) => {
      const lines = wrap(value, WIDTH - indent.length);
      return label.padEnd(width) + "  " + (lines.length ? lines : [""]).join("\n" + indent);
    }).join("\n");
  }

  // plan_table: the table `spotmath plan` prints, in spotmath.report.REPORT's words
  const WORDS_OF_REPORT = D.PLAN_REPORT;
  const say = (key, values) => fill(WORDS_OF_REPORT[key], values ?? {});
  function report(plan) {
    const p = plan.values, baseline = plan.baseline, levels = plan.twoLevel;
    const gang = p.gang_size > 1 ? say("gang", { nodes: countText(p.gang_size, "node"), rate: p.gang_rate })
      : say("one_node");
    let model;
    if (p.model === "exact") {
      const restart = say(p.restart_preemptible ? "restart_preemptible" : "restart_protected");
      model = say("model_exact", { restart });
    } else {
      model = say("model_first_order", { terms: baseline ? say("first_order_terms") : "" });
    }
    const effective = p.effective_discount !== null
      ? say("effective", { effective: percent(p.effective_discount),
                           nominal: percent(p.spot_discount) })
      : say(p.model === "exact" ? "effective_none" : "effective_none_first_order");
    // with two levels the break-even interval is durable writes alone's
    const breakEven = p.break_even === "after"
      ? say("break_even", { interval: durationText(p.break_even_interval_h) })
      : say(`break_even_${p.break_even}`);
    const free = say(p.notice_effective ? "free_notice" : "free");
    const maxGang = p.max_gang_size === null ? say("no_gang_limit", { free })
      : say("max_gang", { nodes: countText(p.max_gang_size, "node") });
    const never = p.never_on_spot_gang_size === null ? say("never_none")
      : say("never", { nodes: countText(p.never_on_spot_gang_size, "node") });
    let optimum = say("optimum", { young: durationText(p.young_interval_h),
                                   daly: durationText(p.daly_interval_h),
                                   exact: durationText(p.exact_interval_h) });
    if (baseline && p.first_order_interval_h !== null) {
      optimum += say("optimum_first_order", { interval: durationText(p.first_order_interval_h) });
    }
    let every = p.recommended_interval_h !== null ? durationText(p.recommended_interval_h)
      : say("notice_only");
    let alone = "";
    if (levels) {
      every = levels.level2_every === 1 ? say("every_durable", { every })
        : say("every_levels", { every, fast: durationText(levels.level1_cost_h),
                                nth: ordinal(levels.level2_every),
                                durable: durationText(levels.level2_interval_h) });
      alone = say("alone");
    }
    const firstOrder = p.waste_first_order === null ? say("unbounded")
      : percent(p.waste_first_order);
    const changes = [];
    const notice = durationText(p.notice_h), write = durationText(p.notice_write_h);
    if (p.notice_h > 0 && p.notice_share === 0) {
      changes.push(["preemption notice", say("notice_unused", { notice })]);
    } else if (p.notice_h > 0) {
      changes.push(["preemption notice", say(p.notice_effective ? "notice_fits" : "notice_misses",
                                             { notice, share: percent(p.notice_share), write })]);
    }
    if (p.persist_h > 0) {
      changes.push(["asynchronous write", say("persist", {
        write: durationText(p.checkpoint_cost_h), persist: durationText(p.persist_h),
        between: say(levels ? "between_levels" : "between") })]);
    }
    for (const [label, key] of [["without the notice", "no_notice"], ["with blocking writes", "blocking"]]) {
      if (baseline && baseline[key]) {
        const [interval, waste] = baseline[key];
        changes.push([label, say("interval_waste", { interval: durationText(interval),
                                                     waste: percent(waste) })]);
      }
    }
    return table([
      ["preemptions", say("preemptions", { mtbf: durationText(1 / p.preemption_rate),
                                           rate: p.preemption_rate, gang })],
      ["restart / checkpoint write", say("restart_write", {
        restart: durationText(p.restart_time_h), write: durationText(p.checkpoint_cost_h) })],
      ...stateRows(p, plan.state),
      ...changes,
      ["model", model],
      ["optimal interval", optimum],
      ["checkpoint every", every],
      ["waste at that interval", say("waste", { exact: percent(p.waste_exact),
                                                first_order: firstOrder })],
      ...twoLevelRows(p, levels),
      ["effective spot discount", effective],
      ["break-even interval", alone + breakEven],
      ["largest gang that pays", alone + maxGang],
      ["never on spot from", never],
      ["verdict", p.verdict],
    ]);
  }

  // Plan._state_rows: how the write came from the state's size and the bandwidths
  function stateRows(p, state) {
    if (!state) return [];
    const size = state.state_bytes / 1e9, write = state.write_bandwidth_bytes_per_s / 1e9;
    const snapshot = state.snapshot_bandwidth_bytes_per_s;
    if (snapshot === null) {
      return [["write from the state", say("state_write", {
        size, write, time: durationText(p.checkpoint_cost_h) })]];
    }
    return [["write from the state", say("state_snapshot", {
      size, snapshot: snapshot / 1e9, write, blocking: durationText(p.checkpoint_cost_h),
      durable: durationText(p.persist_h) })]];
  }

  // Plan._two_level_rows: what the fast copies do
  function twoLevelRows(p, levels) {
    if (!levels) return [];
    const even = levels.level1_loss_break_even;
    const pays = even === 0 ? say("fast_pays_never") : say("fast_pays", { share: percent(even) });
    const rows = [
      ["durable writes alone", say("interval_waste", {
        interval: durationText(Math.max(p.exact_interval_h, p.persist_h)),
        waste: percent(levels.waste_level2_only) })],
      ["fast copies", say("fast_copies", { restart: durationText(levels.level1_restart_h),
                                           loss: percent(levels.level1_loss) })],
      ["fast writes pay", pays],
    ];
    if (levels.level1_interval_first_order_h !== null) {
      rows.push(["first-order optimum", say("first_order_levels", {
        fast: durationText(levels.level1_interval_first_order_h),
        durable: durationText(levels.level2_interval_first_order_h) })]);
    }
    return rows;
  }

  // plan._ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ...
  function ordinal(number) {
    const suffix = number % 100 >= 10 && number % 100 <= 20 ? "th"
      : ({ 1: "st", 2: "nd", 3: "rd" })[number % 10] ?? "th";
    return `${number}${suffix}`;
  }

  // -- spotmath plan's options ----------------------------------------------------------------
  const DEFAULTS = D.PLAN_DEFAULTS;
  const OPTIONS = ["mtbf", "rate", "restart", "checkpoint", "discount", "gang-size", "model",
                   "restart-variant", "notice", "notice-share", "notice-write", "persist",
                   "level1", "level1-restart", "level1-loss", "state", "write-bandwidth",
                   "snapshot-bandwidth"];
  const PLAN_KEYS = D.PLAN_KEYS;
  const TWO_LEVEL_KEYS = D.TWO_LEVEL_KEYS;
  const USAGE = D.PLAN_USAGE;  // argparse's words, as spotmath.report.USAGE has them

  // spotmath.cli._checkpoint_options: C and P from the state's size and the bandwidths
  // (null without --state), each option checked against the others
  function stateOptions(given) {
    const flags = ["state", "write-bandwidth", "snapshot-bandwidth"].filter(
      (name) => given[name] !== undefined && given[name] !== null);
    if (!flags.length) return null;
    const has = (name) => flags.includes(name);
    if (!has("state") || !has("write-bandwidth")) {
      const missing = has("state") ? "--write-bandwidth" : "--state";
      // the first of them as the command line has them (Python's dict keeps that order)
      throw new InputError(fill(D.PLAN_REFUSALS.state_partner, { name: `--${flags[0]}`, missing }));
    }
    if (given.checkpoint !== undefined && given.checkpoint !== null) {
      throw new InputError(D.PLAN_REFUSALS.state_and_checkpoint);
    }
    const snapshot = has("snapshot-bandwidth");
    if (snapshot && given.persist !== undefined && given.persist !== null) {
      throw new InputError(D.PLAN_REFUSALS.state_and_persist);
    }
    const size = checkSize("--state", given.state, false);
    // spotmath.model.calibration._write_hours: no write longer than a duration may be
    const bounded = (name, rate) => {
      const longest = D.BOUNDS.duration[1];
      if (Math.log(size) - Math.log(rate * 3600) > Math.log(longest)) {
        throw new InputError(fill(D.WORDS.long_write, { name, size, rate, hours: longest }));
      }
      return rate;
    };
    const write = bounded("--write-bandwidth",
                          checkSize("--write-bandwidth", given["write-bandwidth"], true));
    const durable = F.checkpoint_write_time(size, 1, write * 3600);
    const fast = snapshot ? bounded("--snapshot-bandwidth", checkSize(
      "--snapshot-bandwidth", given["snapshot-bandwidth"], true)) : null;
    return {
      cost: snapshot ? F.checkpoint_write_time(size, 1, fast * 3600) : durable,
      persist: snapshot ? durable : null,
      record: { state_bytes: size, write_bandwidth_bytes_per_s: write,
                snapshot_bandwidth_bytes_per_s: fast },
    };
  }

  // An option's old name (D.RENAMED_OPTIONS) as argparse takes it: the new one, in its
  // place among the others
  function withNewNames(given) {
    return Object.fromEntries(Object.entries(given).map(
      ([name, value]) => [D.RENAMED_OPTIONS[name] ?? name, value]));
  }

  // The plan for the command line's options, given as text by their names (a missing or
  // empty optional one is not given); what `spotmath plan --json` prints, or {error}.
  function planFromOptions(given) {
    try {
      given = withNewNames(given);
      const known = new Set(OPTIONS);
      for (const name of Object.keys(given)) {
        if (!known.has(name)) throw new InputError(fill(USAGE.unknown, { option: name }));
      }
      const value = (name) => (given[name] === undefined || given[name] === null ? DEFAULTS[name] ?? null : given[name]);
      if (given.rate !== undefined && given.mtbf !== undefined) {
        // as argparse says it: the option given second is the one not allowed
        const [first, second] = Object.keys(given).filter((k) => k === "rate" || k === "mtbf");
        throw new InputError(fill(USAGE.exclusive, { option: second, other: first }));
      }
      for (const name of Object.keys(CHOICES)) {  // argparse's message for a bad choice
        if (!CHOICES[name].includes(value(name))) {
          throw new InputError(fill(USAGE.choice, {
            option: name, value: stringRepr(value(name)),
            choices: CHOICES[name].map(stringRepr).join(", ") }));
        }
      }
      const model = value("model"), variant = value("restart-variant");
      const rate = given.rate !== undefined ? checkRate("--rate", given.rate)
        : rateFromMtbf("--mtbf", value("mtbf"));
      const optional = (name, check) => (value(name) === null ? null : check(`--${name}`, value(name)));
      const state = stateOptions(given);
      const options = {
        rate,
        restart: checkDuration("--restart", value("restart"), true),
        cost: state ? state.cost : checkDuration("--checkpoint", value("checkpoint"), false),
        discount: checkDiscount("--discount", value("discount")),
        gangSize: checkGangSize("--gang-size", value("gang-size")),
        model, preemptible: variant === "preemptible",
        notice: optional("notice", (n, t) => checkDuration(n, t, true)) || 0,
        noticeShare: optional("notice-share", checkFraction),
        noticeWrite: optional("notice-write", (n, t) => checkDuration(n, t, true)),
        persist: state && state.persist !== null ? state.persist
          : optional("persist", (n, t) => checkDuration(n, t, true)) || 0,
        level1: optional("level1", (n, t) => checkDuration(n, t, false)),
        level1Restart: optional("level1-restart", (n, t) => checkDuration(n, t, true)),
        level1Loss: optional("level1-loss", checkFraction),
      };
      const plan = makePlan(options);
      plan.state = state ? state.record : null;
      const json = {};
      for (const key of PLAN_KEYS) json[key] = plan.values[key];
      if (plan.twoLevel) for (const key of TWO_LEVEL_KEYS) json[key] = plan.twoLevel[key];
      if (plan.state) json.state = plan.state;
      return { json, report: report(plan), checked: plan.checked };
    } catch (error) {
      if (error instanceof InputError) {
        // the rate's option as the reader gave it, as spotmath.cli's plan names it
        const option = given.rate !== undefined ? "--rate" : "--mtbf";
        const message = error.message.replace(/^preemption_rate:/, `${option}:`);
        return { json: { error: message }, report: null, checked: null };
      }
      throw error;
    }
  }

  root.spotmathPlan = {
    planFromOptions, makePlan, report, priceCurve, durationText, OPTIONS,
  };
})(typeof globalThis !== "undefined" ? globalThis : this);
