// A reader of the TOML that Empereur's history files use (docs/dice.md,
// "Reading the files"): tables, arrays of tables, dotted and quoted keys,
// strings of all four kinds, integers, booleans, floats and arrays, inline
// tables. Dates are kept as their text. Written for the in-page verifier,
// with no build step and nothing fetched; it throws an Error naming the
// line on anything it cannot read.
"use strict";

(function (root) {
  function TomlError(msg, line) {
    return new Error("line " + line + ": " + msg);
  }

  function parse(text) {
    let i = 0;
    let line = 1;
    const out = {};
    let current = out;

    const peek = (k) => text[i + (k || 0)];
    const eof = () => i >= text.length;
    const skipSpace = () => {
      while (!eof() && (peek() === " " || peek() === "\t")) i++;
    };
    const skipComment = () => {
      if (peek() === "#") while (!eof() && peek() !== "\n") i++;
    };
    const endOfLine = () => {
      skipSpace();
      skipComment();
      if (eof()) return;
      if (peek() === "\r" && peek(1) === "\n") i++;
      if (peek() !== "\n") throw TomlError("unexpected '" + peek() + "'", line);
      i++;
      line++;
    };
    // Whitespace, newlines and comments inside arrays.
    const skipBlank = () => {
      for (;;) {
        skipSpace();
        skipComment();
        if (peek() === "\r" && peek(1) === "\n") i++;
        if (peek() === "\n") {
          i++;
          line++;
        } else return;
      }
    };

    function hexChar(n) {
      const h = text.substr(i, n);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== n) throw TomlError("bad \\u escape", line);
      i += n;
      return String.fromCodePoint(parseInt(h, 16));
    }

    function basicString(multi) {
      let s = "";
      for (;;) {
        if (eof()) throw TomlError("unterminated string", line);
        const c = peek();
        if (multi && text.startsWith('"""', i)) {
          // up to two quotes may close the content before the delimiter
          let n = 3;
          while (text[i + n] === '"' && n < 5) n++;
          s += '"'.repeat(n - 3);
          i += n;
          return s;
        }
        if (!multi && c === '"') {
          i++;
          return s;
        }
        if (!multi && c === "\n") throw TomlError("newline in a string", line);
        if (c === "\\") {
          i++;
          const e = peek();
          i++;
          if (e === "n") s += "\n";
          else if (e === "t") s += "\t";
          else if (e === "r") s += "\r";
          else if (e === "b") s += "\b";
          else if (e === "f") s += "\f";
          else if (e === "e") s += "\x1b";
          else if (e === '"') s += '"';
          else if (e === "\\") s += "\\";
          else if (e === "u") s += hexChar(4);
          else if (e === "U") s += hexChar(8);
          else if (multi && (e === " " || e === "\t" || e === "\n" || e === "\r")) {
            i--;
            // a line-ending backslash trims the newline and the blanks after it
            while (!eof() && /[ \t\r\n]/.test(peek())) {
              if (peek() === "\n") line++;
              i++;
            }
          } else throw TomlError("bad escape \\" + e, line);
          continue;
        }
        if (c === "\n") line++;
        s += c;
        i++;
      }
    }

    function literalString(multi) {
      const close = multi ? "'''" : "'";
      const end = text.indexOf(close, i);
      if (end < 0) throw TomlError("unterminated string", line);
      let stop = end;
      if (multi) while (text[stop + 3] === "'" && stop - end < 2) stop++;
      const s = text.slice(i, stop);
      if (!multi && s.includes("\n")) throw TomlError("newline in a string", line);
      line += (s.match(/\n/g) || []).length;
      i = stop + close.length;
      return s;
    }

    function string() {
      if (text.startsWith('"""', i)) {
        i += 3;
        if (peek() === "\r" && peek(1) === "\n") i++;
        if (peek() === "\n") {
          i++;
          line++;
        }
        return basicString(true);
      }
      if (text.startsWith("'''", i)) {
        i += 3;
        if (peek() === "\r" && peek(1) === "\n") i++;
        if (peek() === "\n") {
          i++;
          line++;
        }
        return literalString(true);
      }
      if (peek() === '"') {
        i++;
        return basicString(false);
      }
      i++;
      return literalString(false);
    }

    function key() {
      const parts = [];
      for (;;) {
        skipSpace();
        const c = peek();
        if (c === '"' || c === "'") parts.push(string());
        else {
          const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
          if (!m) throw TomlError("a key was expected", line);
          parts.push(m[0]);
          i += m[0].length;
        }
        skipSpace();
        if (peek() !== ".") return parts;
        i++;
      }
    }

    function value() {
      const c = peek();
      if (c === '"' || c === "'") return string();
      if (c === "[") {
        i++;
        const arr = [];
        for (;;) {
          skipBlank();
          if (peek() === "]") {
            i++;
            return arr;
          }
          arr.push(value());
          skipBlank();
          if (peek() === ",") i++;
          else if (peek() !== "]") throw TomlError("',' or ']' was expected in an array", line);
        }
      }
      if (c === "{") {
        i++;
        const t = {};
        skipSpace();
        if (peek() === "}") {
          i++;
          return t;
        }
        for (;;) {
          const k = key();
          if (peek() !== "=") throw TomlError("'=' was expected", line);
          i++;
          skipSpace();
          assign(t, k, value());
          skipSpace();
          if (peek() === ",") i++;
          else if (peek() === "}") {
            i++;
            return t;
          } else throw TomlError("',' or '}' was expected in an inline table", line);
        }
      }
      const m = /^[^\s,\]}#]+/.exec(text.slice(i, i + 128));
      if (!m) throw TomlError("a value was expected", line);
      const w = m[0];
      i += w.length;
      if (w === "true") return true;
      if (w === "false") return false;
      if (/^[+-]?(0|[1-9](_?[0-9])*)$/.test(w)) {
        const n = Number(w.replace(/_/g, ""));
        if (!Number.isSafeInteger(n)) throw TomlError("an integer too large to check exactly", line);
        return n;
      }
      if (/^0x[0-9a-fA-F_]+$/.test(w)) return parseInt(w.slice(2).replace(/_/g, ""), 16);
      if (/^[+-]?(inf|nan)$/.test(w) || /^[+-]?[0-9_]+(\.[0-9_]+)?([eE][+-]?[0-9_]+)?$/.test(w)) {
        return Number(w.replace(/_/g, "").replace("inf", "Infinity").replace("nan", "NaN"));
      }
      if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(w)) {
        // a date or date-time, possibly with a space before the time
        const rest = /^ [0-9]{2}:[0-9]{2}[^\s,\]}#]*/.exec(text.slice(i, i + 64));
        if (rest) i += rest[0].length;
        return w + (rest ? rest[0] : "");
      }
      throw TomlError("unknown value '" + w + "'", line);
    }

    function assign(table, keys, v) {
      let t = table;
      for (const k of keys.slice(0, -1)) {
        if (!(k in t)) t[k] = {};
        t = t[k];
        if (typeof t !== "object" || Array.isArray(t)) throw TomlError("key '" + k + "' is not a table", line);
      }
      const last = keys[keys.length - 1];
      if (Object.prototype.hasOwnProperty.call(t, last)) throw TomlError("key '" + last + "' defined twice", line);
      t[last] = v;
    }

    function header() {
      const arrayOf = text.startsWith("[[", i);
      i += arrayOf ? 2 : 1;
      const keys = key();
      if (!text.startsWith(arrayOf ? "]]" : "]", i)) throw TomlError("']' was expected", line);
      i += arrayOf ? 2 : 1;
      let t = out;
      keys.forEach((k, n) => {
        const lastKey = n === keys.length - 1;
        if (lastKey && arrayOf) {
          if (!(k in t)) t[k] = [];
          if (!Array.isArray(t[k])) throw TomlError("'" + k + "' is not an array of tables", line);
          const fresh = {};
          t[k].push(fresh);
          t = fresh;
          return;
        }
        if (!(k in t)) t[k] = {};
        t = t[k];
        if (Array.isArray(t)) t = t[t.length - 1];
      });
      current = t;
    }

    while (!eof()) {
      skipSpace();
      const c = peek();
      if (c === "#" || c === "\n" || c === "\r") {
        endOfLine();
        continue;
      }
      if (eof()) break;
      if (c === "[") header();
      else {
        const k = key();
        if (peek() !== "=") throw TomlError("'=' was expected after a key", line);
        i++;
        skipSpace();
        assign(current, k, value());
      }
      endOfLine();
    }
    return out;
  }

  root.EmpereurToml = { parse };
})(typeof window !== "undefined" ? window : globalThis);
