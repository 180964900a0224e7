// spotmath.inputs in the page: the checks of `spotmath plan`'s options, which accept and
// refuse what the command does, in the same words (spotmath.inputs.WORDS, from data.js).
"use strict";

(function (root) {
  const { fill, show, stringRepr } = root.spotmathFormat;
  const D = root.spotmathData;

  // spotmath.inputs.InputError: one line, naming the parameter (.parameter, as Python's
  // .name, where the message names an option instead)
  class InputError extends Error {}

  const HOURS_PER_UNIT = D.HOURS_PER_UNIT;
  // spotmath.inputs.WORDS: the checks' messages
  const WORDS = D.WORDS;
  const must = (name, expected, value) =>
    new InputError(fill(WORDS.must, { name, expected, value: show(value) }));
  const DURATION = new RegExp(D.DURATION);
  const NUMBER = new RegExp(`^(?:${D.NUMBER})$`);
  // spotmath.inputs.parse_number: the one grammar of numbers in text, or null
  const parseNumber = (text) => (NUMBER.test(text.trim()) ? Number(text.trim()) : null);
  const RATE = new RegExp(D.RATE);

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
    const [low, high, words] = D.BOUNDS[kind];
    if (value > high || (value < low && value > 0)) {
      throw must(name, words, original);
    }
    return value;
  }

  // spotmath.inputs._computable: a magnitude the library computes with (COMPUTABLE)
  function computable(name, value, expected, original) {
    const [low, high] = D.COMPUTABLE;
    if ((value > 0 && value < low) || value > high) {
      const words = fill(WORDS.computable, { low, high });
      throw new InputError(`${must(name, expected, original).message} (${words})`);
    }
    return value;
  }

  function checkDuration(name, text, allowZero) {
    const expected = fill(WORDS.duration, { sign: allowZero ? ">= 0" : "> 0" });
    return computable(name, bound(name, checkRange(
      name, parseDuration(name, text), 0, allowZero, null, false, expected, text),
                                  "duration", text), expected, text);
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
      value = parseNumber(text);
      if (value === null) throw new InputError(fill(WORDS.not_rate, { name, value: show(text) }));
    }
    return computable(name, bound(name, checkRange(name, value, 0, false, null, false,
                                                   expected, text), "rate", text),
                      expected, text);
  }

  function textToNumber(name, text, expected, percent) {
    const t = text.trim();
    const value = percent && t.endsWith("%") ? parseNumber(t.slice(0, -1)) : parseNumber(t);
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
      throw must(name, expected, text);  // as given: '0', not 0.0
    }
    if (value > D.MAX_COUNT) {
      throw must(name, fill(WORDS.count_most, { what: WORDS.nodes }), text);
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


  // spotmath.inputs.check_size: a size in bytes ('13.2GB', '12GiB'), or a bandwidth in
  // bytes a second ('1.2GB/s') when perSecond
  const SIZE = new RegExp(D.SIZE);
  function checkSize(name, text, perSecond) {
    const kind = perSecond ? "bandwidth" : "size";
    const match = SIZE.exec(text);
    const unit = match ? match.groups.unit.toLowerCase() : null;
    if (!match || !(unit in D.BYTES_PER_UNIT) || Boolean(match.groups.per) !== perSecond) {
      throw new InputError(fill(WORDS[`not_${kind}`], { name, value: show(text) }));
    }
    const value = Number(match.groups.value) * D.BYTES_PER_UNIT[unit];
    return checkRange(name, value, 0, false, D.MAX_BYTES, false, WORDS[kind], text);
  }

  // spotmath.inputs.rate_from_mtbf: one over a duration whose inverse is finite
  function rateFromMtbf(name, text) {
    const rate = 1 / checkDuration(name, text, false);
    if (!Number.isFinite(rate)) throw must(name, fill(WORDS.duration, { sign: "> 0" }), text);
    return rate;
  }

  root.spotmathInputs = { InputError, checkDuration, checkRate, checkDiscount,
                          checkGangSize, checkFraction, checkSize, rateFromMtbf };
})(typeof globalThis !== "undefined" ? globalThis : this);
