// spotmath.model.solving in the page: what SymPy cannot print.
//
// Hand-written, dependency-free, and kept small: the principal branch of Lambert W
// (SciPy's lambertw in Python), SciPy's brentq (the same algorithm and tolerances as the
// Python side, so both find the same roots), and the bracket searches root_up and
// root_down.  Tested against SciPy and mpmath by tests/lib/test_web.py.
"use strict";

(function (root) {
  const EPS = 2.220446049250313e-16;

  // W0(x) for real x >= -1/e: the w >= -1 with w e^w = x.
  function lambertW0(x) {
    if (Number.isNaN(x) || x < -1 / Math.E - 4 * EPS) return NaN;
    if (x === Infinity) return Infinity;
    if (x === 0) return 0;
    if (x <= -1 / Math.E) return -1;
    let w;
    if (x < -0.25) {
      // Near the branch point: the series in p = sqrt(2(e x + 1)).
      const p = Math.sqrt(Math.max(0, 2 * (Math.E * x + 1)));
      w = -1 + p - p * p / 3 + (11 / 72) * p * p * p;
    } else if (x <= Math.E) {
      w = Math.log1p(x) * (1 - Math.log1p(Math.log1p(x)) / (2 + Math.log1p(x)));
    } else {
      // Large x: solve w + log(w) = log(x) by Newton's method, which never overflows.
      const target = Math.log(x);
      w = target - Math.log(target);
      for (let i = 0; i < 100; i++) {
        const step = (w + Math.log(w) - target) / (1 + 1 / w);
        w -= step;
        if (Math.abs(step) <= 4 * EPS * Math.abs(w)) break;
      }
      return w;
    }
    // Halley's method on f(w) = w e^w - x.
    for (let i = 0; i < 100; i++) {
      const ew = Math.exp(w);
      const f = w * ew - x;
      const wp1 = w + 1;
      if (wp1 === 0) break;
      const step = f / (ew * wp1 - ((w + 2) * f) / (2 * wp1));
      w -= step;
      if (Math.abs(step) <= 4 * EPS * (1 + Math.abs(w))) break;
    }
    return w;
  }

  // SciPy's brentq (scipy/optimize/Zeros/brentq.c, as SciPy 1.17 has it), line for line: a root of f in
  // [xa, xb], where f(xa) and f(xb) differ in sign, to |error| <= xtol + rtol |x|.
  function brentq(f, xa, xb, xtol, rtol, maxiter) {
    maxiter = maxiter === undefined ? 100 : maxiter;
    let xpre = xa, xcur = xb, xblk = 0, fblk = 0, spre = 0, scur = 0;
    let fpre = f(xpre), fcur = f(xcur);
    if (fpre === 0) return xpre;
    if (fcur === 0) return xcur;
    if (Math.sign(fpre) === Math.sign(fcur)) {
      throw new Error("brentq: f(a) and f(b) must have different signs");
    }
    for (let i = 0; i < maxiter; i++) {
      if (fpre !== 0 && fcur !== 0 && Math.sign(fpre) !== Math.sign(fcur)) {
        xblk = xpre;
        fblk = fpre;
        spre = scur = xcur - xpre;
      }
      if (Math.abs(fblk) < Math.abs(fcur)) {
        xpre = xcur; xcur = xblk; xblk = xpre;
        fpre = fcur; fcur = fblk; fblk = fpre;
      }
      const delta = (xtol + rtol * Math.abs(xcur)) / 2;
      const sbis = (xblk - xcur) / 2;
      if (fcur === 0 || Math.abs(sbis) < delta) return xcur;
      if (Math.abs(spre) > delta && Math.abs(fcur) < Math.abs(fpre)) {
        let stry;
        if (xpre === xblk) {
          stry = (-fcur * (xcur - xpre)) / (fcur - fpre);  // interpolate
        } else {
          const dpre = (fpre - fcur) / (xpre - xcur);      // extrapolate
          const dblk = (fblk - fcur) / (xblk - xcur);
          stry = (-fcur * (fblk * dblk - fpre * dpre)) / (dblk * dpre * (fblk - fpre));
        }
        if (2 * Math.abs(stry) < Math.min(Math.abs(spre), 3 * Math.abs(sbis) - delta)) {
          spre = scur;  // a good short step
          scur = stry;
        } else {
          spre = sbis;  // bisect
          scur = sbis;
        }
      } else {
        spre = sbis;
        scur = sbis;
      }
      xpre = xcur;
      fpre = fcur;
      xcur += Math.abs(scur) > delta ? scur : (sbis > 0 ? delta : -delta);
      fcur = f(xcur);
    }
    throw new Error("brentq: no convergence");
  }

  // The tolerances of spotmath.model.solving: xtol 1e-300, rtol 4 machine epsilons.
  const XTOL = 1e-300, RTOL = 4 * EPS;

  // spotmath.model.solving.root_up: the root of an increasing f with f(low) < 0, doubling high.
  function rootUp(f, low, high) {
    for (let i = 0; i < 2000; i++) {
      if (!Number.isFinite(high)) break;
      if (f(high) >= 0) return brentq(f, low, high, XTOL, RTOL);
      low = high;
      high = high * 2;
    }
    throw new Error("no sign change found while bracketing a root");
  }

  // spotmath.model.solving.root_down: the root of a decreasing f with f(high) < 0, halving low
  // (never below floor, where the caller knows f >= 0).
  function rootDown(f, low, high, floor) {
    floor = floor === undefined ? 0 : floor;
    for (let i = 0; i < 2000; i++) {
      if (f(low) >= 0) return brentq(f, low, high, XTOL, RTOL);
      high = low;
      low = Math.max(low / 2, floor);
    }
    throw new Error("no sign change found while bracketing a root");
  }

  root.spotmathSolving = { EPS, XTOL, RTOL, lambertW0, brentq, rootUp, rootDown };
})(typeof globalThis !== "undefined" ? globalThis : this);
