// `verify --mails` in the page (docs/dice.md section 8): reads the mails a
// player drops (.eml files or an mbox export), takes each text/plain body,
// finds the Empereur- anchors and checks them against the history the
// verifier read. The files are read in the page; nothing is sent.
"use strict";

(function (root) {
  const dec = (charset) => {
    try {
      return new TextDecoder(charset || "utf-8");
    } catch (_) {
      return new TextDecoder("utf-8");
    }
  };

  // An mbox holds messages that each start with a "From " line; a single
  // message file does not start with one.
  function splitMbox(text) {
    if (!/^From /.test(text)) return [text];
    return text
      .split(/\r?\n(?=From )/)
      .map((m) => m.replace(/^From [^\n]*\n/, "").replace(/^>(>*From )/gm, "$1"));
  }

  function headersAndBody(raw) {
    const m = /\r?\n\r?\n/.exec(raw);
    const head = m ? raw.slice(0, m.index) : raw;
    const body = m ? raw.slice(m.index + m[0].length) : "";
    const headers = {};
    for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
      const c = line.indexOf(":");
      if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
    }
    return { headers, body };
  }

  function param(value, name) {
    const m = new RegExp(";\\s*" + name + '\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))', "i").exec(value || "");
    return m ? m[1] || m[2] : null;
  }

  // The body as bytes (latin1 string), decoded from its transfer encoding.
  function transferDecode(body, encoding) {
    const e = (encoding || "").toLowerCase();
    if (e === "base64") {
      try {
        return atob(body.replace(/[^A-Za-z0-9+/=]/g, ""));
      } catch (_) {
        return "";
      }
    }
    if (e === "quoted-printable") {
      return body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    }
    return body;
  }

  const toText = (latin1, charset) => dec(charset).decode(Uint8Array.from(latin1, (c) => c.charCodeAt(0) & 0xff));

  // Every text/plain part of a message, decoded.
  function plainParts(raw, depth) {
    const { headers, body } = headersAndBody(raw);
    const type = (headers["content-type"] || "text/plain").toLowerCase();
    if (type.startsWith("multipart/") && depth < 5) {
      const b = param(headers["content-type"], "boundary");
      if (!b) return [];
      const parts = body.split("--" + b);
      return parts.slice(1).flatMap((p) => (p.startsWith("--") ? [] : plainParts(p.replace(/^\r?\n/, ""), depth + 1)));
    }
    if (!type.startsWith("text/plain")) return [];
    return [toText(transferDecode(body, headers["content-transfer-encoding"]), param(headers["content-type"], "charset"))];
  }

  // The anchors of a body: continuation lines joined to their Empereur-
  // line, quotes (">") skipped; keyword, game and two fields.
  function anchors(text) {
    const out = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      if (!/^Empereur-[A-Za-z]+:/.test(lines[i])) continue;
      let l = lines[i];
      while (i + 1 < lines.length && /^[ \t]/.test(lines[i + 1])) l += " " + lines[++i].trim();
      const w = l.trim().split(/\s+/);
      if (w.length >= 4) out.push({ keyword: w[0].replace(/:$/, ""), game: w[1], a: w[2], b: w[3] });
    }
    return out;
  }

  // Check one anchor against what the verifier found in the history.
  async function checkAnchor(x, h) {
    const V = root.EmpereurVerify;
    if (x.keyword === "Empereur-Chain") {
      const n = parseInt(x.a, 10);
      if (!/^[0-9]+$/.test(x.a)) return "the chain anchor's count " + x.a + " is not a number";
      // 0 goes with the genesis entry's hash (64 zeros in an old game).
      const zero = h.hashes[0] || "0".repeat(64);
      if (n === 0) return x.b === zero ? null : "a chain of 0 entries goes with " + zero;
      const count = Object.keys(h.hashes).filter((k) => k !== "0").length;
      if (n > count) return "the history was truncated: the mail saw " + n + " entries, the history has " + count;
      return h.hashes[n] === x.b ? null : "the history was rewritten: entry " + n + " hashes to " + h.hashes[n] + ", the mail says " + x.b;
    }
    if (x.keyword === "Empereur-Commitment") {
      const set = h.commitments[x.a];
      return set && set.has(x.b) ? null : "the commitment of phase " + x.a + " the mail announced is not in the history";
    }
    if (x.keyword === "Empereur-Entry") {
      const n = parseInt(x.a.slice(0, 4), 10);
      if (h.dirs[n] !== x.a) return "entry " + x.a + " is not in the history";
      return h.hashes[n] === x.b ? null : "entry " + x.a + " hashes to " + h.hashes[n] + ", the mail says " + x.b;
    }
    if (x.keyword === "Empereur-Seed") {
      const seed = V.readSeed(x.b + "\n");
      if (!seed) return "the seed is not 64 hex digits";
      for (const r of h.resolutions[x.a] || []) {
        if ((await V.commitment(h.game, x.a, seed, r.beacon)) === r.c) return null;
      }
      return "the seed mailed for phase " + x.a + " gives no commitment of a resolution of that phase in the history";
    }
    return null; // an anchor this page does not know
  }

  // Check every anchor of the game in the given files' text; returns
  // { anchors, problems: [{file, anchor, what}] }.
  async function checkMails(files, h) {
    const problems = [];
    let count = 0;
    let messages = 0;
    for (const f of files) {
      for (const msg of splitMbox(f.text)) {
        messages++;
        const subject = headersAndBody(msg).headers.subject || "";
        for (const body of plainParts(msg, 0)) {
          for (const x of anchors(body)) {
            if (x.game !== h.game) continue;
            count++;
            const what = await checkAnchor(x, h);
            if (what) problems.push({ file: f.name, subject, anchor: x.keyword + " " + x.a, what });
          }
        }
      }
    }
    return { messages, anchors: count, problems };
  }

  root.EmpereurMails = { checkMails, anchors, plainParts, splitMbox };
})(typeof window !== "undefined" ? window : globalThis);
