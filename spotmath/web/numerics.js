// spotmath.model.numerics in the page, with the full model's options (notice and
// asynchronous writes, spotmath/model/_full_model.py): the waste, the optimal interval,
// spot's price, the break-even intervals and the gang limits.  Every formula comes from
// formulas.js (printed from the SymPy derivations), the root finders from solving.js.
"use strict";

(function (root) {
  const S = root.spotmathSolving, F = root.spotmathFormulas, D = root.spotmathData;
  const { fill } = root.spotmathFormat;
  const { InputError } = root.spotmathInputs;

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
      throw new InputError(fill(D.MODEL_REFUSALS.unpriced, { name: "waste", value: waste }));
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
    const high = S.rootUp(excess, best, 2 * best);
    const low = cost > 0 ? S.rootDown(excess, best / 2, best) : 0;
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
      size = S.rootUp(excess, rate, 2 * rate) / rate;
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
    return S.brentq(g, low, high, S.XTOL, S.RTOL);
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
    const high = floor < discount ? Infinity : S.rootUp(excess, best, 2 * best);
    if (excess(Math.max(full.persist, 1e-12 / rate)) < 0) return [Math.max(full.persist, 0), high];
    return [S.rootDown(excess, Math.max(best / 2, full.persist), best, full.persist), high];
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
      size = S.rootUp(excess, rate, 2 * rate) / rate;
    } catch (error) {
      return null;  // no gang rate is too high (free writes and restarts)
    }
    if (!Number.isFinite(size)) return null;
    return Math.max(0, Math.ceil(snap(size)) - 1);
  }


  root.spotmathNumerics = {
    variantName, wasteFraction, exactInterval, optimalInterval, relativePrice,
    breakEvenIntervals, neverOnSpotGangSize, maxGangSize, noticeWaste, noticeWasteFloor,
    noticeOptimalInterval, noticeOptimalWaste, noticeBreakEven, noticeMaxGangSize, LONGEST,
  };
})(typeof globalThis !== "undefined" ? globalThis : this);
