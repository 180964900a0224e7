// `spotmath plan` in the page: the same checks, numbers, JSON and table as the command.
//
// A port of spotmath.inputs (the checks), spotmath.model.numerics (with the full model's
// options, spotmath/model/_full_model.py), spotmath.model.two_level and spotmath.model.plan
// (the plan and its table).  Every formula comes from formulas.js (printed from the SymPy
// derivations); the root finders and Lambert W0 from numerics.js; the words of the
// checks' messages, the plan's refusals and its table from inputs.js (spotmath.inputs.WORDS,
// plan.REFUSALS, plan.REPORT, written once in Python).  tests/lib/test_web.py compares it
// with the Python for hundreds of parameter sets, good and bad.
"use strict";

(function (root) {
  const N = root.spotmathNumerics, F = root.spotmathFormulas;
  const CHOICES = root.spotmathInputs.PLAN_CHOICES;
  const MODELS = CHOICES.model;

  class InputError extends Error {}

  // -- Python's formatting, digit for digit ------------------------------------------------
  // The exact decimal expansion of a double, as [digits, exponent of the first digit].
  function exactDigits(x) {
    if (Math.abs(x) >= 2 ** 53) {  // an integer: BigInt has every digit
      const digits = BigInt(Math.abs(x)).toString();
      return [digits.replace(/0+$/, "") || "0", digits.length - 1];
    }
    const text = Math.abs(x).toPrecision(100);  // exact to 100 significant digits
    const [mantissa, exponent] = text.split("e");
    const digits = mantissa.replace(".", "").replace(/^0+/, "");
    let first;
    if (exponent !== undefined) first = Number(exponent);
    else {
      const [whole, fraction = ""] = mantissa.split(".");
      first = whole !== "0" ? whole.length - 1 : -(fraction.match(/^0*/)[0].length + 1);
    }
    return [digits, first];
  }

  // Round the digit string to `keep` digits, halves to even (Python's correct rounding).
  function roundDigits(digits, keep) {
    if (keep < 0) return ["", 0];
    if (digits.length <= keep) return [digits.padEnd(keep, "0"), 0];
    const head = digits.slice(0, keep), rest = digits.slice(keep);
    const half = rest[0] === "5" && /^5?0*$/.test(rest);
    const up = rest[0] > "5" || (rest[0] === "5" && !half) ||
      (half && keep > 0 && Number(head[keep - 1]) % 2 === 1);
    if (!up) return [head || "", 0];
    let carry = 1, out = "";
    for (let i = head.length - 1; i >= 0; i--) {
      const d = Number(head[i]) + carry;
      out = (d % 10) + out;
      carry = d >= 10 ? 1 : 0;
    }
    return carry ? ["1" + out.slice(0, Math.max(0, keep - 1)), 1] : [out, 0];
  }

  // f"{x:.{decimals}f}"
  function fixed(x, decimals) {
    if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    if (x === 0) return sign + (decimals ? "0." + "0".repeat(decimals) : "0");
    const [digits, first] = exactDigits(x);
    const keep = first + 1 + decimals;
    let [kept, carried] = roundDigits(digits, keep);
    let integer = first + 1 + carried;
    if (keep <= 0 && !carried) { kept = ""; integer = 0; }
    let all = kept;
    if (integer <= 0) { all = "0".repeat(1 - integer) + all; integer = 1; }
    all = all.padEnd(integer + decimals, "0");
    const text = all.slice(0, integer) + (decimals ? "." + all.slice(integer, integer + decimals) : "");
    return sign + text;  // Python keeps the sign of a negative that rounds to zero: -0.0
  }

  // f"{x:.{precision}g}"
  function general(x, precision) {
    if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const p = precision === 0 ? 1 : precision;
    const [digits, first] = exactDigits(x);
    const [kept, carried] = roundDigits(digits, p);
    const exponent = first + carried;
    const sign = x < 0 ? "-" : "";
    let text;
    if (exponent >= -4 && exponent < p) {
      text = fixed(Math.abs(x), Math.max(0, p - 1 - exponent));
    } else {
      let mantissa = kept[0] + (p > 1 ? "." + kept.slice(1) : "");
      const e = Math.abs(exponent) < 10 ? "0" + Math.abs(exponent) : String(Math.abs(exponent));
      text = mantissa + "e" + (exponent < 0 ? "-" : "+") + e;
    }
    if (text.includes(".")) {
      text = text.replace(/\.?0+(?=e|$)/, "");
    }
    return sign + text;
  }

  // str(x) for a float, as Python writes it: the shortest digits that round-trip,
  // positional from 1e-4 up to 1e16, scientific (two exponent digits at least) beyond.
  function floatText(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    if (x === 0) return sign + "0.0";
    const [mantissa, power] = Math.abs(x).toExponential().split("e");  // shortest digits
    const digits = mantissa.replace(".", "");
    const exponent = Number(power);
    if (exponent >= -4 && exponent < 16) {
      if (exponent < 0) return sign + "0." + "0".repeat(-exponent - 1) + digits;
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
      const fraction = digits.slice(exponent + 1) || "0";
      return sign + whole + "." + fraction;
    }
    const body = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "");
    return sign + body + "e" + (exponent < 0 ? "-" : "+") +
      String(Math.abs(exponent)).padStart(2, "0");
  }

  // repr(text) for a str, as Python writes it.
  function stringRepr(text) {
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of text) {
      const code = ch.codePointAt(0);
      if (ch === "\\") out += "\\\\";
      else if (ch === quote) out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
      else out += ch;
    }
    return quote + out + quote;
  }

  // spotmath.inputs._show
  function show(value) {
    let text = typeof value === "string" ? stringRepr(value) : floatText(value);
    text = text.split(/\s+/).filter(Boolean).join(" ");
    return text.length <= 60 ? text : text.slice(0, 57) + "...";
  }

  // Python's float(text), or null where it raises ValueError.
  const DIGITS = "\\d(?:_?\\d)*";
  const PY_FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})` +
                              `(?:[eE][+-]?${DIGITS})?|inf(?:inity)?|nan)$`, "i");
  function pyFloat(text) {
    const t = text.trim();
    if (!PY_FLOAT.test(t)) return null;
    const lower = t.toLowerCase().replace(/^[+]/, "");
    if (/nan$/.test(lower)) return NaN;
    if (/inf/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
    return Number(t.replace(/_/g, ""));
  }

  // -- spotmath.inputs -----------------------------------------------------------------------
  const HOURS_PER_UNIT = root.spotmathInputs.HOURS_PER_UNIT;
  // spotmath.inputs.WORDS: the checks' messages, filled as Python's str.format fills them
  const WORDS = root.spotmathInputs.WORDS;
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => values[key]);
  const must = (name, expected, value) =>
    new InputError(fill(WORDS.must, { name, expected, value: show(value) }));
  const DURATION = new RegExp(root.spotmathInputs.DURATION);
  const RATE = new RegExp(root.spotmathInputs.RATE);

  function checkRange(name, value, minimum, allowMinimum, maximum, allowMaximum, expected,
                      original) {
    let bad = !Number.isFinite(value) || (allowMinimum ? value < minimum : value <= minimum);
    if (maximum !== null) bad = bad || (allowMaximum ? value > maximum : value >= maximum);
    if (bad) throw must(name, expected, original);
    return value;
  }

  function parseDuration(name, text) {
    const match = DURATION.exec(text);
    if (!match) throw new InputError(fill(WORDS.not_duration, { name, value: show(text) }));
    const unit = match.groups.unit.toLowerCase() || "h";
    if (!(unit in HOURS_PER_UNIT)) {
      throw new InputError(fill(WORDS.unknown_unit, {
        name, unit: stringRepr(match.groups.unit), value: show(text) }));
    }
    return Number(match.groups.value) * HOURS_PER_UNIT[unit];
  }

  // spotmath.inputs._bound: the magnitudes the command line accepts (spotmath.inputs.BOUNDS)
  function bound(name, value, kind, original) {
    const [low, high, words] = root.spotmathInputs.BOUNDS[kind];
    if (value > high || (value < low && value > 0)) {
      throw must(name, words, original);
    }
    return value;
  }

  function checkDuration(name, text, allowZero) {
    const expected = fill(WORDS.duration, { sign: allowZero ? ">= 0" : "> 0" });
    return bound(name, checkRange(name, parseDuration(name, text), 0, allowZero, null, false,
                                  expected, text), "duration", text);
  }

  function checkRate(name, text) {
    const expected = WORDS.rate;
    let value;
    const match = RATE.exec(text);
    if (match) {
      const unit = match.groups.unit.toLowerCase();
      if (!(unit in HOURS_PER_UNIT)) {
        throw new InputError(fill(WORDS.unknown_unit, {
          name, unit: stringRepr(match.groups.unit), value: show(text) }));
      }
      const per = match.groups.per ? Number(match.groups.per) : 1;
      const hours = per * HOURS_PER_UNIT[unit];
      if (hours <= 0) throw new InputError(fill(WORDS.zero_time, { name, value: show(text) }));
      value = Number(match.groups.value) / hours;
    } else {
      value = pyFloat(text);
      if (value === null) throw new InputError(fill(WORDS.not_rate, { name, value: show(text) }));
    }
    return bound(name, checkRange(name, value, 0, false, null, false, expected, text), "rate",
                 text);
  }

  function textToNumber(name, text, expected, percent) {
    const t = text.trim();
    const value = percent && t.endsWith("%") ? pyFloat(t.slice(0, -1)) : pyFloat(t);
    if (value === null) throw must(name, expected, text);
    return percent && t.endsWith("%") ? value / 100 : value;
  }

  function checkDiscount(name, text) {
    const expected = WORDS.discount;
    const value = textToNumber(name, text, expected, true);
    return checkRange(name, value, 0, false, 1, false, expected, text);
  }

  function checkGangSize(name, text) {
    const expected = fill(WORDS.count, { what: WORDS.nodes });
    const value = textToNumber(name, text, expected, false);
    if (!Number.isFinite(value) || value < 1 || value !== Math.trunc(value)) {
      throw must(name, expected, value);
    }
    return value;
  }

  function checkFraction(name, text) {
    const expected = WORDS.fraction;
    const value = textToNumber(name, text, expected, true);
    if (!Number.isFinite(value) || !(value >= 0 && value <= 1)) {
      throw must(name, expected, text);
    }
    return value;
  }

  // -- spotmath.model.plan.duration_text ------------------------------------------------------------
  function durationText(hours) {
    if (hours === null || hours === undefined) return "none";
    if (hours < 1 / 60) return `${general(hours * 3600, 3)} s`;
    if (hours < 1) return `${general(hours * 60, 3)} min`;
    if (hours < 48) return `${general(hours, 3)} h`;
    return `${general(hours / 24, 3)} d`;
  }

  // -- spotmath.model.numerics ----------------------------------------------------------------------
  const variantName = (preemptible) => (preemptible ? "preemptible" : "protected");

  function wasteFraction(rate, interval, cost, restart, model, preemptible) {
    if (model === "exact") return F[`waste_exact_${variantName(preemptible)}`](rate, interval, cost, restart);
    return F.waste_first_order(rate, interval, cost, restart);
  }

  function exactInterval(rate, cost) {
    const lamC = rate * cost;
    let x = lamC < 1e-3 ? F.daly_interval(rate, cost) * rate
      : F.exact_interval_lambert(rate, cost) * rate;
    for (let i = 0; i < 3; i++) {
      const step = F.optimality_condition(x, lamC) / F.optimality_condition_slope(x, lamC);
      if (x > 0 && x < 0.5 && Number.isFinite(step)) x = x - step;
    }
    return x / rate;
  }

  function optimalInterval(rate, cost, model) {
    return model === "exact" ? exactInterval(rate, cost) : F.young_interval(rate, cost);
  }

  function freeLimit(rate, restart, model, preemptible) {
    if (model === "exact") return F[`free_limit_exact_${variantName(preemptible)}`](rate, restart);
    return F.free_limit_first_order(rate, restart);
  }

  function optimalWaste(rate, cost, restart, model, preemptible) {
    if (!(cost > 0)) return freeLimit(rate, restart, model, preemptible);
    return wasteFraction(rate, optimalInterval(rate, cost, model), cost, restart, model,
                         preemptible);
  }

  function relativePrice(waste, discount) {
    if (!Number.isFinite(waste) || waste < 0 || waste >= 1) {
      throw new InputError(`waste: must be a fraction in [0, 1) to price spot, got ${general(waste, 6)}`);
    }
    return (1 - discount) / (1 - waste);
  }

  function breakEvenIntervals(rate, cost, restart, discount, model, preemptible) {
    if (optimalWaste(rate, cost, restart, model, preemptible) >= discount) return null;
    if (model === "first-order") {
      return [F.break_even_shortest_first_order(rate, cost, restart, discount),
              F.break_even_longest_first_order(rate, cost, restart, discount)];
    }
    const excess = (t) => wasteFraction(rate, t, cost, restart, model, preemptible) - discount;
    const best = cost > 0 ? exactInterval(rate, cost) : 1e-9 / rate;
    const high = N.rootUp(excess, best, 2 * best);
    const low = cost > 0 ? N.rootDown(excess, best / 2, best) : 0;
    return [low, high];
  }

  function snap(value) {
    const nearest = Math.round(value);
    return Math.abs(value - nearest) <= 1e-9 * Math.max(1, Math.abs(value)) ? nearest : value;
  }

  function neverOnSpotGangSize(rate, restart, discount, model, preemptible) {
    if (rate * restart === 0) return null;  // as numerics: λR = 0 or below the smallest float
    const name = model === "exact" ? `never_on_spot_exact_${variantName(preemptible)}`
      : "never_on_spot_first_order";
    const size = F[name](rate, restart, discount);
    if (!Number.isFinite(size)) return null;
    return Math.max(1, Math.ceil(snap(size)));
  }

  function maxGangSize(rate, cost, restart, discount, model, preemptible) {
    if (cost === 0) {
      const never = neverOnSpotGangSize(rate, restart, discount, model, preemptible);
      return never === null ? null : never - 1;
    }
    let size;
    if (model === "first-order") {
      size = F.max_gang_first_order(rate, cost, restart, discount);
    } else {
      const excess = (g) => optimalWaste(g, cost, restart, model, preemptible) - discount;
      if (excess(rate) >= 0) return 0;  // one node does not pay
      size = N.rootUp(excess, rate, 2 * rate) / rate;
    }
    if (!Number.isFinite(size)) return null;
    return Math.max(0, Math.ceil(snap(size)) - 1);
  }

  // -- spotmath.model._full_model: the full model ----------------------------------------
  const LONGEST = 300, NEGLIGIBLE = 1e-12;

  function noticeFloor(rate, restart, share, write, preemptible) {
    return F[`notice_waste_floor_${variantName(preemptible)}`](rate, restart, share, write);
  }

  function noticeWaste(rate, interval, cost, restart, full, model, preemptible) {
    const { share, write, persist } = full;
    if (model !== "exact") {
      return F.waste_first_order_notice(rate, interval, cost, restart, share, write, persist);
    }
    if (rate * (interval + cost) > LONGEST) return noticeFloor(rate, restart, share, write, preemptible);
    return F[`waste_notice_${variantName(preemptible)}`](rate, interval, cost, restart, share,
                                                        write, persist);
  }

  function noticeWasteFloor(rate, restart, full, model, preemptible) {
    if (model === "first-order") {
      return full.share === 1 ? rate * (full.write + restart) : Infinity;
    }
    return noticeFloor(rate, restart, full.share, full.write, preemptible);
  }

  function monotoneRoot(g, low, high) {
    const gLow = g(low), gHigh = g(high);
    if (gLow === 0) return low;
    if (gLow * gHigh > 0) return null;
    return N.brentq(g, low, high, N.XTOL, N.RTOL);
  }

  function stationaryMaxima(rate, cost, full, start) {
    const { share, write, persist } = full;
    const g = (t) => F.notice_condition(rate, t, cost, share, write, persist);
    const alpha = F.notice_slope_alpha(rate, cost, share, write, persist);
    const beta = F.notice_slope_beta(rate, cost, share, write, persist);
    const end = LONGEST / rate;
    if (start >= end) return [];
    const edges = [start];
    if (alpha !== 0 && start < -beta / alpha && -beta / alpha < end) edges.push(-beta / alpha);
    edges.push(end);
    const maxima = [];
    for (let i = 0; i + 1 < edges.length; i++) {
      const root = monotoneRoot(g, edges[i], edges[i + 1]);
      if (root !== null && g(edges[i]) > 0 && 0 >= g(edges[i + 1])) maxima.push(root);
    }
    return maxima;
  }

  function noticeOptimalInterval(rate, cost, full, model, shortest) {
    const { share, write, persist } = full;
    if (model === "first-order") {
      if (share === 1) return Infinity;
      return Math.max(F.first_order_notice_interval(rate, cost, share), shortest);
    }
    const plain = exactInterval(rate, cost);
    if (share === 0) return Math.max(plain, shortest);
    if (rate * cost > LONGEST) return Infinity;  // a periodic write would almost never complete
    const candidates = shortest > 0 ? [shortest] : [];
    if (plain < write && shortest <= write) candidates.push(Math.min(Math.max(plain, shortest), write));
    const start = Math.max(write, shortest);
    if (start > 0) candidates.push(start);
    candidates.push(...stationaryMaxima(rate, cost, full, start));
    if (!candidates.length) return Infinity;
    const wastes = candidates.map((c) => F.waste_notice_preemptible(rate, c, cost, 0, share, write, persist));
    let best = 0;
    for (let i = 1; i < wastes.length; i++) if (wastes[i] < wastes[best]) best = i;
    const floor = F.notice_waste_floor_preemptible(rate, 0, share, write);
    return floor <= wastes[best] + NEGLIGIBLE ? Infinity : candidates[best];
  }

  function noticeOptimalWaste(rate, cost, restart, full, model, preemptible) {
    const best = noticeOptimalInterval(rate, cost, full, model, full.persist);
    if (best === Infinity) return noticeWasteFloor(rate, restart, full, model, preemptible);
    return noticeWaste(rate, best, cost, restart, full, model, preemptible);
  }

  function noticeBreakEven(rate, cost, restart, discount, full, model, preemptible) {
    if (noticeOptimalWaste(rate, cost, restart, full, model, preemptible) >= discount) return null;
    const excess = (t) => noticeWaste(rate, t, cost, restart, full, model, preemptible) - discount;
    let best = noticeOptimalInterval(rate, cost, full, model, full.persist);
    const floor = noticeWasteFloor(rate, restart, full, model, preemptible);
    if (best === Infinity) {
      best = LONGEST / rate;
      for (let i = 0; i < 2000 && excess(best) >= 0; i++) best *= 2;
    }
    const high = floor < discount ? Infinity : N.rootUp(excess, best, 2 * best);
    if (excess(Math.max(full.persist, 1e-12 / rate)) < 0) return [Math.max(full.persist, 0), high];
    return [N.rootDown(excess, Math.max(best / 2, full.persist), best, full.persist), high];
  }

  function noticeMaxGangSize(rate, cost, restart, discount, full, model, preemptible) {
    const excess = (g) => noticeOptimalWaste(g, cost, restart, full, model, preemptible) - discount;
    if (excess(rate) >= 0) return 0;
    if (full.write === 0 && restart === 0) {  // the waste's limit as the gang grows: 1 - q
      const limit = model === "exact" ? 1 - full.share : full.share === 1 ? 0 : Infinity;
      if (limit <= discount) return null;  // every gang pays, however large
    }
    let size;
    try {
      size = N.rootUp(excess, rate, 2 * rate) / rate;
    } catch (error) {
      return null;  // no gang rate is too high (free writes and restarts)
    }
    if (!Number.isFinite(size)) return null;
    return Math.max(0, Math.ceil(snap(size)) - 1);
  }

  // -- spotmath.model.two_level: two checkpoint levels ----------------------------------------
  // The same search as the Python (scalar here where NumPy runs all n at once: each n's
  // root search takes the same steps), with SciPy's bounded minimiser replaced by a golden
  // section search, used only for a bound that keeps a margin of one part in a million.
  const MOST_SEGMENTS = root.spotmathInputs.MOST_SEGMENTS;
  // spotmath.model.plan.OPTION_NAMES: the option a parameter's error names
  const OPTION_NAMES = root.spotmathInputs.OPTION_NAMES;
  // spotmath.model.plan.REFUSALS, filled for a parameter named by its option
  function refuse(key, name, values) {
    return new InputError(fill(root.spotmathInputs.PLAN_REFUSALS[key],
                               { ...values, name: OPTION_NAMES[name] ?? name }));
  }

  // the InputError of a parameter of spotmath.model.two_level (its name, as Python's .name)
  function levelError(name, detail) {
    const error = new InputError(`${OPTION_NAMES[name] ?? name}: ${detail}`);
    error.parameter = name;
    return error;
  }

  function twoLevelWaste(s, interval, every, model) {
    let value;
    if (s.persist > 0) {
      const f = model === "first-order" ? F.waste_first_order_two_level_persist
        : F.waste_two_level_persist;
      value = f(s.rate, interval, s.fast, s.durable, s.fastRestart, s.restart, s.loss, every,
                s.persist);
    } else if (model === "first-order") {
      value = F.waste_first_order_two_level(s.rate, interval, s.fast, s.durable,
                                            s.fastRestart, s.restart, s.loss, every);
    } else {
      value = F[`waste_two_level_${variantName(s.preemptible)}`](
        s.rate, interval, s.fast, s.durable, s.fastRestart, s.restart, s.loss, every);
    }
    if (!Number.isNaN(value)) return value;
    // _overflow_is_total: where the period overflows double precision the waste is 1
    const stretch = s.rate * (every * interval + (every - 1) * s.fast + s.durable
                              + Math.max(s.fastRestart, s.restart));
    if (stretch > 700) return 1;
    throw new Error("the two-level waste is NaN away from overflow");
  }

  function twoLevelPeriod(s, interval, every) {
    return F[`two_level_period_time_${variantName(s.preemptible)}`](
      s.rate, interval, s.fast, s.durable, s.fastRestart, s.restart, s.loss, every);
  }

  function twoLevelCondition(s, interval, every) {
    return F[`two_level_condition_${variantName(s.preemptible)}`](
      s.rate, interval, s.fast, s.durable, s.fastRestart, s.restart, s.loss, every);
  }

  // _best_intervals for one n: the root of h, at least P/n (bracketed within a factor of
  // two from 1/λ, then the Illinois variant of false position, a bisection every fourth
  // step, to a bracket four ulps wide)
  function bestTwoLevelInterval(s, every) {
    const h = (t) => twoLevelCondition(s, t, every);
    const longest = LONGEST / s.rate;
    // h(0) = −E₁(0) is NaN only where the period overflows at every interval
    if (!(h(0) < 0)) return NaN;
    let high = 1 / s.rate, atHigh = h(high);
    let low = high / 2, atLow = h(low);
    for (let i = 0; i < 1100 && !(atLow < 0); i++) {
      high = low; atHigh = atLow;
      low /= 2; atLow = h(low);
    }
    for (let i = 0; i < 200 && atHigh < 0; i++) {
      if (high >= longest) {
        throw levelError("preemption_rate", "no optimal interval within 300 mean times " +
                         "between events (the writes cost too much for this rate)");
      }
      low = high; atLow = atHigh;
      high = Math.min(high * 2, longest); atHigh = h(high);
    }
    let moved = 0;  // the end that moved last: -1 low, 1 high
    for (let step = 0; step < 1000 && high - low > 4 * ulp(high); step++) {
      const secant = high - atHigh * (high - low) / (atHigh - atLow);
      const inside = secant > low && secant < high && step % 4 !== 3;
      const middle = inside ? secant : (low + high) / 2;
      const value = h(middle);
      if (value === 0) {
        low = high = middle;
      } else if (!(value < 0)) {
        high = middle; atHigh = value;
        if (moved === 1) atLow /= 2;
        moved = 1;
      } else {
        low = middle; atLow = value;
        if (moved === -1) atHigh /= 2;
        moved = -1;
      }
    }
    return Math.max(high, s.persist / every);
  }

  // numpy.spacing for a positive double: the gap to the next one up
  function ulp(x) {
    const buffer = new DataView(new ArrayBuffer(8));
    buffer.setFloat64(0, x);
    buffer.setBigUint64(0, buffer.getBigUint64(0) + 1n);
    return buffer.getFloat64(0) - x;
  }

  function twoLevelRatio(s, every) {
    const interval = bestTwoLevelInterval(s, every);
    return [interval, twoLevelPeriod(s, interval, every) / (every * interval)];
  }

  // the least of a unimodal f on [a, b] to xatol, by golden section
  function goldenMinimum(f, a, b, xatol) {
    const ratio = (Math.sqrt(5) - 1) / 2;
    let c = b - ratio * (b - a), d = a + ratio * (b - a), fc = f(c), fd = f(d);
    while (b - a > xatol) {
      if (fc < fd) { b = d; d = c; fd = fc; c = b - ratio * (b - a); fc = f(c); }
      else { a = c; c = d; fc = fd; d = a + ratio * (b - a); fd = f(d); }
    }
    return Math.min(fc, fd);
  }

  function twoLevelBound(s, every, chance) {
    const x = chance * s.rate;
    const writes = s.durable >= s.fast ? s.fast : ((every - 1) * s.fast + s.durable) / every;
    const excess = (logInterval) => {
      const interval = Math.exp(logInterval);
      const grown = Math.expm1(Math.min((every - 1) * Math.log1p(x * interval), 700));
      return writes / interval + (grown - (every - 1) * x * interval) / (x * every * interval);
    };
    const found = goldenMinimum(excess, Math.log(1e-9 / s.rate), Math.log(LONGEST / s.rate),
                                1e-10);
    return 1 + (1 - 1e-6) * found;
  }

  // _tail_bound: a lower bound on E1/(n'T) over every T and every n' >= n
  function twoLevelTailBound(s, every, chance) {
    const logs = (logInterval) => {
      const interval = Math.exp(logInterval);
      const logA = Math.log1p(chance * Math.expm1(s.rate * (interval + s.fast)));
      const logB = Math.log1p(chance * Math.expm1(s.rate * (interval + s.durable)));
      return [interval, logA, Math.min((every - 1) * logA + logB, 700)];
    };
    const atN = (x) => {
      const [interval, , grown] = logs(x);
      return Math.expm1(grown) / (every * chance * s.rate * interval);
    };
    const limit = (x) => {
      const [interval, logA, grown] = logs(x);
      return Math.exp(grown) * logA / (chance * s.rate * interval);
    };
    const low = Math.log(1e-9 / s.rate), high = Math.log(LONGEST / s.rate);
    return (1 - 1e-6) * Math.min(goldenMinimum(atN, low, high, 1e-10),
                                 goldenMinimum(limit, low, high, 1e-10));
  }

  const rollbackChance = (s) => F[`two_level_rollback_chance_${variantName(s.preemptible)}`](
    s.rate, s.fastRestart, s.loss);

  function lastCandidate(s, bestRatio) {
    const chance = rollbackChance(s);
    const reaches = (every) => twoLevelBound(s, every, chance) >= bestRatio
      || twoLevelTailBound(s, every, chance) >= bestRatio;
    let high = 2;
    while (!reaches(high)) {
      if (high > MOST_SEGMENTS) {
        throw levelError("level1_loss", `${general(s.loss, 6)} is too small: the best ` +
                         "pattern would write a durable copy less often than every " +
                         `${MOST_SEGMENTS.toLocaleString("en-US")} writes`);
      }
      high *= 2;
    }
    let low = Math.floor(high / 2);
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (reaches(middle)) high = middle;
      else low = middle;
    }
    return high;
  }

  function twoLevelFirstOrderOptimum(s) {
    return [F.two_level_first_order_fast(s.rate, s.fast, s.loss),
            F.two_level_first_order_durable(s.rate, s.fast, s.durable, s.loss)];
  }

  // spotmath.model.two_level.optimum: {interval, every, waste}
  function twoLevelOptimum(s) {
    if (s.loss <= 0) {
      throw levelError("level1_loss", "must be above 0 for an optimum (with fast copies " +
                       "never lost, a durable write never pays)");
    }
    const start = [1];
    if (s.loss < 1 && s.durable > s.fast) {
      const [fast, durable] = twoLevelFirstOrderOptimum(s);
      const guess = durable / fast;
      start.push(Math.max(1, Math.floor(guess)), Math.max(1, Math.ceil(guess)));
    }
    if (!Number.isFinite(twoLevelPeriod(s, 0, 1))) {
      throw levelError("preemption_rate", `at ${general(s.rate, 6)} events per hour a ` +
                       `durable write of ${general(s.durable, 6)} h or a restart almost ` +
                       "never completes: the waste is 100%");
    }
    const least = Math.min(...start.map((every) => twoLevelRatio(s, every)[1]));
    if (!(least < 2 ** 53)) {
      return { interval: Math.max(exactInterval(s.rate, s.durable), s.persist), every: 1,
               waste: 1 };
    }
    const last = lastCandidate(s, least);
    let best = null;
    for (let every = 1; every < last; every++) {
      const [interval, ratio] = twoLevelRatio(s, every);
      if (best === null || ratio < best.ratio) best = { interval, every, ratio };
    }
    const waste = s.persist === 0 ? 1 - 1 / best.ratio
      : twoLevelWaste(s, best.interval, best.every, "exact");
    return { interval: best.interval, every: best.every, waste };
  }

  function twoLevelLossBreakEven(s) {
    if (s.fast >= s.durable) {
      if (s.persist === 0) return 0;
      if (bestTwoLevelInterval({ ...s, loss: 1, persist: 0 }, 1) >= s.persist) return 0;
    }
    const fastPays = (loss) => {
      try {
        return twoLevelOptimum({ ...s, loss }).every > 1;
      } catch (error) {
        if (error.parameter !== "level1_loss") throw error;
        return true;
      }
    };
    let low = 0, high = 1;
    while (high - low > 1e-6) {
      const middle = (low + high) / 2;
      if (fastPays(middle)) low = middle;
      else high = middle;
    }
    return low === 0 ? 0 : (low + high) / 2;
  }

  // -- spotmath.model.plan --------------------------------------------------------------------------
  const percent = (share) => (share === null ? "n/a" : `${fixed(100 * share, 1)}%`);
  const finite = (hours) => (Number.isFinite(hours) ? hours : null);
  const verdictOf = (effective) => (effective !== null && effective > 0 ? "spot pays" : "use on-demand");

  // spotmath.model.plan.make_plan, from checked numbers (hours, per hour, fractions).
  function makePlan(o) {
    const rate = o.rate, restart = o.restart, cost = o.cost, discount = o.discount;
    const nodes = o.nodes, model = o.model, preemptible = o.preemptible;
    const notice = o.notice, persist = o.persist;
    if (notice === 0 && o.noticeShare !== null) throw refuse("without_notice", "notice_share");
    if (notice === 0 && o.noticeWrite !== null) throw refuse("without_notice", "notice_write");
    if (notice > 0 && o.noticeShare === null) throw refuse("share_needed", "notice_share");
    const share = o.noticeShare === null ? 0 : o.noticeShare;
    const write = notice === 0 ? null : (o.noticeWrite === null ? cost + persist : o.noticeWrite);
    const effective = notice > 0 && write <= notice;
    const gang = F.gang_rate(rate, nodes);
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
      model, restart_preemptible: preemptible, nodes, gang_rate: gang,
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
        effective_discount: eff, break_even_interval_h: range === null ? null : range[1],
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
        break_even_interval_h: paying === null ? null : finite(paying[1]),
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
        if (value !== null) throw refuse("without_fast_write", name);
      }
      return null;
    }
    if (o.level1Loss === null) throw refuse("loss_needed", "level1_loss");
    return { cost: o.level1, restart: o.level1Restart === null ? restart : o.level1Restart,
             loss: o.level1Loss };
  }

  // _plan_two_level: the exact optimal pattern; the plan's values become the pattern's
  function planTwoLevel(plan, levels) {
    const s = { rate: plan.gang_rate, fast: levels.cost, durable: plan.checkpoint_cost_h,
                fastRestart: levels.restart, restart: plan.restart_time_h,
                loss: levels.loss, preemptible: plan.restart_preemptible,
                persist: plan.persist_h };
    const best = twoLevelOptimum(s);
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

  const WIDTH = 80;
  function table(rows) {
    const width = Math.max(...rows.map(([label]) => label.length));
    const indent = " ".repeat(width + 2);
    return rows.map(([label, value]) => {
      const lines = wrap(value, WIDTH - indent.length);
      return label.padEnd(width) + "  " + (lines.length ? lines : [""]).join("\n" + indent);
    }).join("\n");
  }

  // Plan.report: the table `spotmath plan` prints, in spotmath.model.plan.REPORT's words
  const WORDS_OF_REPORT = root.spotmathInputs.PLAN_REPORT;
  const say = (key, values) => fill(WORDS_OF_REPORT[key], values ?? {});
  function report(plan) {
    const p = plan.values, baseline = plan.baseline, levels = plan.twoLevel;
    const gang = p.nodes > 1 ? say("gang", { nodes: p.nodes, rate: general(p.gang_rate, 3) })
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
    const pays = levels ? levels.waste_level2_only < p.spot_discount : p.verdict === "spot pays";
    const breakEven = p.break_even_interval_h !== null
      ? say("break_even", { interval: durationText(p.break_even_interval_h) })
      : say(pays ? "break_even_always" : "break_even_never");
    const free = say(p.notice_effective ? "free_notice" : "free");
    const maxGang = p.max_gang_size === null ? say("no_gang_limit", { free })
      : say("max_gang", { nodes: p.max_gang_size });
    const never = p.never_on_spot_gang_size === null ? say("never_none")
      : say("never", { nodes: p.never_on_spot_gang_size });
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
                                           rate: general(p.preemption_rate, 3), gang })],
      ["restart / checkpoint write", say("restart_write", {
        restart: durationText(p.restart_time_h), write: durationText(p.checkpoint_cost_h) })],
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
  const DEFAULTS = root.spotmathInputs.PLAN_DEFAULTS;
  const OPTIONS = ["mtbf", "rate", "restart", "checkpoint", "discount", "nodes", "model",
                   "restart-variant", "notice", "notice-share", "notice-write", "persist",
                   "level1", "level1-restart", "level1-loss"];
  const PLAN_KEYS = root.spotmathInputs.PLAN_KEYS;
  const TWO_LEVEL_KEYS = root.spotmathInputs.TWO_LEVEL_KEYS;

  // The plan for the command line's options, given as text by their names (a missing or
  // empty optional one is not given); what `spotmath plan --json` prints, or {error}.
  function planFromOptions(given) {
    try {
      const known = new Set(OPTIONS);
      for (const name of Object.keys(given)) {
        if (!known.has(name)) throw new InputError(`--${name}: not an option of spotmath plan`);
      }
      const value = (name) => (given[name] === undefined || given[name] === null ? DEFAULTS[name] ?? null : given[name]);
      if (given.rate !== undefined && given.mtbf !== undefined) {
        // as argparse says it: the option given second is the one not allowed
        const [first, second] = Object.keys(given).filter((k) => k === "rate" || k === "mtbf");
        throw new InputError(`argument --${second}: not allowed with argument --${first}`);
      }
      for (const name of Object.keys(CHOICES)) {  // argparse's message for a bad choice
        if (!CHOICES[name].includes(value(name))) {
          throw new InputError(`argument --${name}: invalid choice: ${stringRepr(value(name))} ` +
                               `(choose from ${CHOICES[name].map(stringRepr).join(", ")})`);
        }
      }
      const model = value("model"), variant = value("restart-variant");
      const rate = given.rate !== undefined ? checkRate("--rate", given.rate)
        : 1 / checkDuration("--mtbf", value("mtbf"), false);
      const optional = (name, check) => (value(name) === null ? null : check(`--${name}`, value(name)));
      const options = {
        rate,
        restart: checkDuration("--restart", value("restart"), true),
        cost: checkDuration("--checkpoint", value("checkpoint"), false),
        discount: checkDiscount("--discount", value("discount")),
        nodes: checkGangSize("--nodes", value("nodes")),
        model, preemptible: variant === "preemptible",
        notice: optional("notice", (n, t) => checkDuration(n, t, true)) || 0,
        noticeShare: optional("notice-share", checkFraction),
        noticeWrite: optional("notice-write", (n, t) => checkDuration(n, t, true)),
        persist: optional("persist", (n, t) => checkDuration(n, t, true)) || 0,
        level1: optional("level1", (n, t) => checkDuration(n, t, false)),
        level1Restart: optional("level1-restart", (n, t) => checkDuration(n, t, true)),
        level1Loss: optional("level1-loss", checkFraction),
      };
      const plan = makePlan(options);
      const json = {};
      for (const key of PLAN_KEYS) json[key] = plan.values[key];
      if (plan.twoLevel) for (const key of TWO_LEVEL_KEYS) json[key] = plan.twoLevel[key];
      return { json, report: report(plan), checked: plan.checked };
    } catch (error) {
      if (error instanceof InputError) {
        return { json: { error: error.message }, report: null, checked: null };
      }
      throw error;
    }
  }

  root.spotmathPlan = {
    InputError, planFromOptions, makePlan, report, priceCurve, durationText, general, fixed,
    floatText, stringRepr, pyFloat, OPTIONS,
  };
})(typeof globalThis !== "undefined" ? globalThis : this);
