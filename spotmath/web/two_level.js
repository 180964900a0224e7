// spotmath.model.two_level in the page: two checkpoint levels, the optimal pattern and
// the loss at which fast copies stop paying.  The same search as the Python (scalar here
// where NumPy runs all n at once: each n's root search takes the same steps), with SciPy's
// bounded minimiser replaced by a golden section search, used only for a bound that keeps
// a margin of one part in a million.
"use strict";

(function (root) {
  const F = root.spotmathFormulas, D = root.spotmathData;
  const { fill } = root.spotmathFormat;
  const { InputError } = root.spotmathInputs;
  const { variantName, exactInterval, LONGEST } = root.spotmathNumerics;

  const MOST_SEGMENTS = D.MOST_SEGMENTS;

  // spotmath.model.two_level.REFUSALS: the InputError of one of its parameters, under the
  // option's name (spotmath.model.plan.OPTION_NAMES) and with the parameter's (as Python's
  // .name)
  function levelError(key, name, values) {
    const option = D.OPTION_NAMES[name] ?? name;
    const error = new InputError(fill(D.TWO_LEVEL_REFUSALS[key], { ...values, name: option }));
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
        throw levelError("no_interval", "preemption_rate");
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
        throw levelError("loss_too_small", "level1_loss",
                         { loss: s.loss, most: MOST_SEGMENTS });
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

  // _started: the least E1/(nT) of the search's first candidates, n = 1 first
  function twoLevelStarted(s) {
    if (s.loss <= 0) {
      throw levelError("loss_zero", "level1_loss");
    }
    const start = [1];
    if (s.loss < 1 && s.durable > s.fast) {
      const [fast, durable] = twoLevelFirstOrderOptimum(s);
      const guess = durable / fast;
      start.push(Math.max(1, Math.floor(guess)), Math.max(1, Math.ceil(guess)));
    }
    if (!Number.isFinite(twoLevelPeriod(s, 0, 1))) {
      throw levelError("never_completes", "preemption_rate",
                       { rate: s.rate, durable: s.durable });
    }
    return start.map((every) => twoLevelRatio(s, every)[1]);
  }

  // _searched: the optimum from the first candidates' ratios
  function twoLevelSearched(s, started) {
    const least = Math.min(...started);
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

  // spotmath.model.two_level.optimum: {interval, every, waste}
  const twoLevelOptimum = (s) => twoLevelSearched(s, twoLevelStarted(s));

  function twoLevelLossBreakEven(s) {
    if (s.fast >= s.durable) {
      if (s.persist === 0) return 0;
      if (bestTwoLevelInterval({ ...s, loss: 1, persist: 0 }, 1) >= s.persist) return 0;
    }
    const fastPays = (loss) => {
      try {
        const at = { ...s, loss }, started = twoLevelStarted(at);
        // a first candidate with fast writes beating n = 1 settles it, as in Python
        if (Math.min(...started) < 2 ** 53 && started.slice(1).some((r) => r < started[0])) {
          return true;
        }
        return twoLevelSearched(at, started).every > 1;
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


  root.spotmathTwoLevel = { twoLevelWaste, twoLevelOptimum, twoLevelFirstOrderOptimum,
                            twoLevelLossBreakEven };
})(typeof globalThis !== "undefined" ? globalThis : this);
