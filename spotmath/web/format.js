// Python's formatting in the page, digit for digit: str.format with the fields spotmath's
// words use ({key}, {key!r}, {key:spec}), the format specs those templates and
// spotmath.inputs.NUMBER_TEMPLATES hold (",", "g", ".Ng", ".Nf", ".N%"), str and repr.
// The words and formats themselves are written once, in Python (data.js); this file only
// knows how Python fills them.  Tested against Python by tests/lib/test_web.py (through
// Node or Chromium).
"use strict";

(function (root) {
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
    if (text.includes(".")) {  // trailing zeros of the digits, never of the exponent
      const [digitsPart, exponentPart] = text.split("e");
      text = digitsPart.replace(/\.?0+$/, "") + (exponentPart === undefined ? ""
        : "e" + exponentPart);
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



  // format(x, spec) for the specs spotmath's templates use; any other is an error here.
  function formatSpec(x, spec) {
    if (spec === ",") {  // an integer with thousands separators
      if (!Number.isInteger(x)) throw new Error('format spec "," is ported for integers only');
      return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    }
    const match = /^(?:\.(\d+))?([gf%])$/.exec(spec);
    if (!match) throw new Error(`format spec ${JSON.stringify(spec)} is not ported`);
    const precision = match[1] === undefined ? 6 : Number(match[1]);
    if (match[2] === "g") return general(x, precision);
    if (match[2] === "f") return fixed(x, precision);
    return fixed(100 * x, precision) + "%";
  }

  // spotmath.inputs.count_text: 4,096, but 1e+308 rather than its 309 digits; with a
  // unit, in its singular or plural.
  function countText(count, unit) {
    const text = count < 1e15 ? formatSpec(count, ",") : general(count, 3);
    return unit ? `${text} ${unit}${count === 1 ? "" : "s"}` : text;
  }

  // template.format(**values), as Python fills spotmath's words.
  function fill(template, values) {
    return template.replace(/\{(\w+)(!r)?(?::([^}]*))?\}/g, (_, key, repr, spec) => {
      if (!(key in values)) throw new Error(`no {${key}} for ${JSON.stringify(template)}`);
      const value = values[key];
      if (repr) return stringRepr(value);
      return spec === undefined ? String(value) : formatSpec(value, spec);
    });
  }

  root.spotmathFormat = { general, fixed, floatText, stringRepr, show, formatSpec,
                          fill, countText };
})(typeof globalThis !== "undefined" ? globalThis : this);
