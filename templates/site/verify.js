// The in-page dice verifier: a second implementation of docs/dice.md,
// written from that page alone, in plain JavaScript with Web Crypto
// (SHA-256 and HMAC-SHA-256 by crypto.subtle). It reads the history the
// site embeds (window.EMPEREUR_HISTORY, data/history.js) and checks the
// hash chain (section 6), every commitment (1), the entropy and the key
// (2), every committed roll (3), the orders lock (7) and the head; a file
// the site carries only as a digest (it holds hidden information) is
// checked by that digest. It returns every problem found, the first one
// in words a player understands.
"use strict";

(function (root) {
  const POWERS = ["france", "britain", "russia", "austria", "prussia", "spain", "ottoman"];
  const ZERO = "0".repeat(64);
  const enc = new TextEncoder();
  const subtle = root.crypto.subtle;

  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (h) => new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));
  const bytes = (x) => (typeof x === "string" ? enc.encode(x) : x);
  function concat(parts) {
    const n = parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(n);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
  function u32be(n) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, false);
    return b;
  }
  // lp(x): the length as 4 bytes big-endian, then the bytes (Notation).
  const lp = (x) => {
    const b = bytes(x);
    return concat([u32be(b.length), b]);
  };
  const sha256 = async (x) => hex(await subtle.digest("SHA-256", bytes(x)));
  const hmacKey = (k) => subtle.importKey("raw", k, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const hmac = async (key, msg) => new Uint8Array(await subtle.sign("HMAC", key, msg));

  // Section 1.
  async function commitment(game, phase, seed, beacon) {
    const parts = [lp("empereur/dice/commit/v1"), lp(game), lp(phase), lp(seed)];
    if (beacon) parts.push(lp(beacon.network), lp(String(beacon.round)));
    return sha256(concat(parts));
  }

  // Section 2: the key, raw bytes.
  async function key(seed, entropy, beacon) {
    const parts = [lp("empereur/dice/key/v1")];
    for (const p of POWERS) parts.push(lp(p), lp(entropy[p] || ""));
    if (beacon) parts.push(lp(beacon.network), lp(String(beacon.round)), lp(unhex(beacon.signature)));
    return hmac(await hmacKey(seed), concat(parts));
  }

  // Section 3: rejection sampling over the 32-bit big-endian words of
  // HMAC(key, lp(purpose) ‖ u32be(i)), i = 0, 1, …
  async function roll(keyBytes, purpose, sides) {
    const k = await hmacKey(keyBytes);
    const limit = 2 ** 32 - (2 ** 32 % sides);
    for (let i = 0; ; i++) {
      const block = await hmac(k, concat([lp(purpose), u32be(i)]));
      const v = new DataView(block.buffer);
      for (let j = 0; j < 32; j += 4) {
        const w = v.getUint32(j, false);
        if (w < limit) return (w % sides) + 1;
      }
    }
  }

  // A seed file: 64 lower-case hex digits and one newline (section 5).
  function readSeed(text) {
    if (typeof text !== "string" || !/^[0-9a-f]{64}\n$/.test(text)) return null;
    return unhex(text.slice(0, 64));
  }

  function entryBeacon(e) {
    if (e.beacon === undefined && e.beacon_round === undefined) return null;
    return { network: e.beacon, round: e.beacon_round };
  }

  const NETWORKS = ["drand-quicknet"];

  async function verifyHistory(data) {
    const T = root.EmpereurToml;
    const problems = [];
    const notes = [];
    // Each problem: where (entry dir or file), what, and for a player:
    // phase, purpose, what the log says, what the seed gives.
    const bad = (where, what, extra) => problems.push(Object.assign({ where, what }, extra || {}));
    const result = {
      problems,
      notes,
      entries: 0,
      committed: 0,
      manual: 0,
      hashes: {}, // entry number -> SHA-256 of entry.toml
      dirs: {}, // entry number -> directory
      commitments: {}, // phase -> set of commitments in the history
      resolutions: {}, // phase -> list of {commitment, beacon}
    };
    const addCommitment = (phase, c) => {
      if (!phase || !c) return;
      (result.commitments[phase] = result.commitments[phase] || new Set()).add(c);
    };
    const parse = (where, text) => {
      try {
        return T.parse(text);
      } catch (err) {
        bad(where, "cannot be read: " + err.message);
        return null;
      }
    };
    const game = data.game;
    let head = null;
    if (data.head && typeof data.head.text === "string") head = parse("history/head.toml", data.head.text);
    const count = head ? head.entries : 0;
    // A file the site wrote once, `{"same_as": "<dir>/<file>"}`, stands
    // for the text of that file of another entry (docs/site.md); what it
    // stands for is then checked as that entry's file is.
    const byDir = new Map((data.entries || []).map((e) => [e.dir, e]));
    const entries = (data.entries || []).map((e) => {
      const files = {};
      for (const [rel, f] of Object.entries(e.files || {})) {
        files[rel] = f;
        if (!f || typeof f.same_as !== "string") continue;
        const cut = f.same_as.indexOf("/");
        const from = cut > 0 ? byDir.get(f.same_as.slice(0, cut)) : undefined;
        const src = from && from.files ? from.files[f.same_as.slice(cut + 1)] : undefined;
        if (src && typeof src.text === "string") files[rel] = { text: src.text };
        else bad("history/" + e.dir, rel + " stands for " + f.same_as + ", which the history does not hold as text");
      }
      return { dir: e.dir, files };
    });
    const byNumber = new Map();
    for (const e of entries) {
      const n = parseInt(e.dir.slice(0, 4), 10);
      if (!/^[0-9]{4}-/.test(e.dir) || byNumber.has(n)) bad("history/" + e.dir, "is not a history entry's name");
      else byNumber.set(n, e);
    }
    for (const n of byNumber.keys()) {
      if (n > count) bad("history/" + byNumber.get(n).dir, "is beyond the " + count + " entries history/head.toml counts");
    }
    let prev = ZERO;
    let open = null; // the commitment of the open phase, once an entry opened one
    let opener = null; // the entry that opened it (phase/commitment's chain)
    let reopenedFrom = null;
    let stateAfter = null;
    const seeds = new Map();
    const resolved = new Map();
    // Section 1a: the commitments published under a new seed, in history
    // order, and the seed each one's phase revealed.
    const chain = { anchor: null, length: 0, commitments: [], revealed: new Map() };
    let previews = 0; // preview entries since the entry that opened the phase
    const genesis = byNumber.get(0);
    if (genesis) {
      const raw = genesis.files["entry.toml"];
      const g = raw && typeof raw.text === "string" ? parse(genesis.dir + "/entry.toml", raw.text) : null;
      if (!g) bad(genesis.dir, "the genesis entry.toml is missing");
      else {
        const h = await sha256(raw.text);
        result.hashes[0] = h;
        result.dirs[0] = genesis.dir;
        if (g.kind !== "genesis" || g.number !== 0) bad(genesis.dir, "entry 0 is not a genesis entry", { phase: g.phase });
        if (g.previous !== ZERO) bad(genesis.dir, "the genesis entry names a previous entry", { phase: g.phase });
        if (Object.keys(g.files || {}).length || Object.keys(genesis.files).length > 1) bad(genesis.dir, "the genesis entry holds files", { phase: g.phase });
        if (!/^[0-9a-f]{64}$/.test(g.chain_anchor || "") || !Number.isInteger(g.chain_length)) {
          bad(genesis.dir, "the genesis entry has no seed chain anchor and length", { phase: g.phase });
        } else {
          chain.anchor = unhex(g.chain_anchor);
          chain.length = g.chain_length;
        }
        addCommitment(g.next_phase, g.next_commitment);
        if (g.next_commitment !== undefined) chain.commitments.push(g.next_commitment);
        open = g.next_commitment === undefined ? null : g.next_commitment;
        opener = { hash: h, phase: g.next_phase, dice: g.next_dice };
        prev = h;
      }
    }
    for (let n = 1; n <= count; n++) {
      const ent = byNumber.get(n);
      const num = String(n).padStart(4, "0");
      if (!ent) {
        bad("history", "entry " + num + " is missing (history/head.toml counts " + count + " entries)");
        prev = null;
        continue;
      }
      const name = ent.dir;
      const files = ent.files || {};
      const raw = files["entry.toml"];
      if (!raw || typeof raw.text !== "string") {
        bad(name, "entry.toml is missing");
        prev = null;
        continue;
      }
      const entryHash = await sha256(raw.text);
      result.hashes[n] = entryHash;
      result.dirs[n] = name;
      const e = parse(name + "/entry.toml", raw.text);
      if (!e) {
        prev = entryHash;
        continue;
      }
      result.entries++;
      const phase = e.phase;
      const where = name;
      const fmt = e.format || 1;
      if (e.number !== n) bad(where, "entry.toml says number " + e.number + ", its place is " + n, { phase });
      if (e.game !== game) bad(where, "entry.toml is of game " + e.game + ", not " + game, { phase });
      if (prev !== null && e.previous !== prev) {
        bad(where, "entry.toml names previous " + e.previous + " but the entry before it hashes to " + prev, { phase });
      }
      prev = entryHash;
      // Every file listed hashes as recorded; no other file.
      const listed = e.files || {};
      let filesOk = true;
      for (const rel of Object.keys(listed)) {
        const f = files[rel];
        if (!f) {
          bad(where, rel + " is missing", { phase });
          filesOk = false;
          continue;
        }
        const got = typeof f.text === "string" ? await sha256(f.text) : f.sha256;
        if (got !== listed[rel]) {
          bad(where, rel + " was changed after it was recorded (SHA-256 " + got + ", entry.toml records " + listed[rel] + ")", { phase });
          filesOk = false;
        }
      }
      for (const rel of Object.keys(files)) {
        if (rel !== "entry.toml" && !(rel in listed)) bad(where, rel + " is in the entry but not recorded in entry.toml", { phase });
      }
      const text = (rel) => (files[rel] && typeof files[rel].text === "string" ? files[rel].text : null);
      if ("state-before.toml" in listed && stateAfter !== null && listed["state-before.toml"] !== stateAfter) {
        bad(where, "state-before.toml is not the state-after.toml of the entry before it", { phase });
      }
      if ("state-after.toml" in listed) stateAfter = listed["state-after.toml"];
      const noteSeed = (seedText, c) => {
        if (!chain.revealed.has(c)) chain.revealed.set(c, { seed: readSeed(seedText), where: name, phase });
        const first = seeds.get(seedText);
        if (first && first.c !== c) {
          bad(where, "the seed was already used by entry " + first.dir + " for another commitment (a reused seed)", { phase });
        }
        if (!first) seeds.set(seedText, { dir: name, c });
      };
      const beacon = entryBeacon(e);
      if (beacon && (!NETWORKS.includes(beacon.network) || !Number.isInteger(beacon.round))) {
        bad(where, "beacon " + beacon.network + " round " + beacon.round + " is not a known network and round", { phase });
      }
      if (e.kind === "preview") previews++;
      // Format 3: manual dice only in a phase announced with physical
      // dice, and the note counts the previews (section 6).
      if (e.kind === "resolve" && fmt >= 3) {
        const m = /(\d+) preview\(s\) with throwaway seeds/.exec(e.note || "");
        if ((m ? Number(m[1]) : 0) !== previews) bad(where, "the note counts " + (m ? m[1] : "no") + " preview(s), the history has " + previews + " since the phase opened", { phase });
        if (/^manual_dice|dice = "manual"/m.test(text("lock.toml") || "") && (!opener || opener.dice !== "manual")) {
          bad(where, "manual dice in a phase that was not announced with physical dice before it opened", { phase });
        }
      }
      // Undo (section 6).
      if (e.kind === "undo" && fmt >= 2) {
        const u = resolved.get(e.undone);
        if (!u) bad(where, "undone " + e.undone + " is not an earlier resolution", { phase });
        else {
          if (phase !== u.phase || e.next_phase !== u.phase) bad(where, "an undo is named after, and reopens, the phase it rolls back", { phase });
          if (e.next_commitment !== u.commitment) bad(where, "the reopened phase does not keep its commitment", { phase });
        }
        if (e.abandoned_commitment !== undefined) {
          addCommitment(e.abandoned_phase, e.abandoned_commitment);
          if (open !== null && e.abandoned_commitment !== open) bad(where, "the abandoned commitment is not the one that was open", { phase });
          const st = text("abandoned-seed");
          const s = readSeed(st);
          if (!s) bad(where, "abandoned-seed is not 64 hex digits and a newline", { phase });
          else {
            if ((await commitment(game, e.abandoned_phase, s, beacon)) !== e.abandoned_commitment) {
              bad(where, "abandoned-seed does not match its commitment", { phase: e.abandoned_phase });
            }
            noteSeed(st, e.abandoned_commitment);
          }
        }
      }
      if (e.commitment !== undefined) {
        const c = e.commitment;
        addCommitment(phase, c);
        if (open !== null && c !== open) {
          bad(where, "resolved under commitment " + c + ", but the commitment published for the phase was " + open, { phase });
        }
        const st = text("seed");
        const seed = readSeed(st);
        if (!seed) {
          bad(where, "the seed is not 64 hex digits and a newline", { phase });
        } else {
          if ((await commitment(game, phase, seed, beacon)) !== c) {
            bad(where, "the revealed seed does not match the commitment", { phase });
          }
          noteSeed(st, c);
        }
        const eraw = text("entropy.toml") || "";
        const et = parse(where + "/entropy.toml", eraw) || {};
        const entropy = et.entropy || {};
        const eHash = await sha256(eraw);
        if (e.kind === "resolve") (result.resolutions[phase] = result.resolutions[phase] || []).push({ c, beacon });
        if (e.kind === "resolve" && fmt >= 2 && filesOk) {
          await checkEntropy(where, phase, e, listed, files, entropy, eraw, eHash, resolved, reopenedFrom, bad);
          checkLock(where, phase, e, listed, text, entropy, bad);
        }
        if (e.kind === "resolve") resolved.set(name, { phase, commitment: c, entropySha: eHash });
        let kb = null;
        if (beacon && e.kind === "resolve") {
          if (e.beacon_signature === undefined || !/^([0-9a-f]{2})*$/.test(e.beacon_signature)) {
            bad(where, "the commitment names a beacon round but no beacon_signature is recorded", { phase });
          } else {
            kb = Object.assign({ signature: e.beacon_signature }, beacon);
            notes.push(where + ": the BLS signature of " + beacon.network + " round " + beacon.round + " is not checked in the page, and this phase's rolls follow from it: compare it with the signature drand publishes for that round (docs/site.md says where) or run `empereur verify`, which checks it");
          }
        }
        if (seed) await checkRolls(where, phase, text, await key(seed, entropy, kb), result, bad);
      }
      if (e.next_commitment !== undefined) {
        addCommitment(e.next_phase, e.next_commitment);
        if (e.kind !== "undo") chain.commitments.push(e.next_commitment);
        open = e.next_commitment;
        opener = { hash: entryHash, phase: e.next_phase, dice: e.next_dice };
        reopenedFrom = e.kind === "undo" ? e.undone : null;
        previews = 0;
      }
    }
    await checkSeedChain(game, chain, bad, notes);
    if (head && (head.head !== prev || head.entries !== result.entries || (count > 0 && head.last !== result.dirs[count]))) {
      bad("history/head.toml", "it does not name the last entry (it says " + head.entries + " entries, head " + head.head + ")");
    }
    if (data.commitment && typeof data.commitment.text === "string") {
      const pc = parse("phase/commitment", data.commitment.text);
      if (pc) {
        addCommitment(pc.phase, pc.commitment);
        if (open !== null && pc.commitment !== open) bad("phase/commitment", "it is not the commitment the last entry opened (" + open + ")", { phase: pc.phase });
        else if (opener && pc.chain !== undefined && (pc.chain !== opener.hash || pc.phase !== opener.phase || pc.game !== game || pc.dice !== opener.dice)) {
          bad("phase/commitment", "its chain, game, phase or dice are not those of the entry that opened the phase", { phase: pc.phase });
        }
      }
    }
    if (data.state && data.state.sha256 && stateAfter !== null && data.state.sha256 !== stateAfter) {
      bad("state.toml", "it is not the state-after.toml of the last entry (changed after resolution)");
    }
    return result;
  }

  // Section 2: entropy.toml is the receipts (the SHA-256 of each stored
  // submission, which entry.toml records) and the typed text; after an
  // undo, the bytes of the undone entry's entropy.toml.
  async function checkEntropy(where, phase, e, listed, files, entropy, eraw, eHash, resolved, reopenedFrom, bad) {
    const r = e.redo_of;
    if (r !== undefined || reopenedFrom !== null) {
      const u = resolved.get(r);
      if (r !== reopenedFrom || !u) bad(where, "redo_of does not name the entry the undo rolled back", { phase });
      else if (u.commitment !== e.commitment || u.entropySha !== eHash) bad(where, "a re-resolution must keep the seed and entropy of " + r, { phase });
      return;
    }
    const subs = submissions(listed);
    if (e.format >= 3) {
      // Only a player's mail adds entropy; the lock says whose orders the
      // moderator entered (the submission itself names its sender's
      // address, so a public copy holds only its digest).
      const lock = root.EmpereurToml.parse(files["lock.toml"] && typeof files["lock.toml"].text === "string" ? files["lock.toml"].text : "");
      for (const p of Object.keys(subs)) if (((lock.power || {})[p] || {}).by !== "player") delete subs[p];
    }
    const want = Object.keys(subs).sort().join(",");
    const got = Object.keys(entropy).sort().join(",");
    if (want !== got) {
      bad(where, "entropy.toml lists " + (got || "no power") + ", the entry holds orders of " + (want || "no power"), { phase });
      return;
    }
    for (const p of Object.keys(subs)) {
      const receipt = subs[p];
      const f = files["orders/" + p + ".toml"];
      let typed = null;
      if (f && typeof f.text === "string") {
        const o = root.EmpereurToml.parse(f.text);
        typed = typeof o.entropy === "string" ? o.entropy : "";
      }
      const v = entropy[p];
      const ok =
        typed !== null
          ? v === receipt + (typed ? " " + typed : "")
          : v === receipt || (v.startsWith(receipt + " ") && v.length > receipt.length + 1);
      if (!ok) bad(where, "the entropy of " + p + " is not the receipt of its orders (and its typed text)", { phase });
      else if (/^\s|\s$/u.test(v.slice(receipt.length + 1)) && v.length > receipt.length) bad(where, "the typed entropy of " + p + " starts or ends with white space, which no mail could give", { phase });
    }
  }

  // The stored submissions of an entry: power -> receipt (the SHA-256
  // entry.toml records for orders/<power>.toml).
  function submissions(listed) {
    const subs = {};
    for (const rel of Object.keys(listed)) {
      const m = /^orders\/([a-z]+)\.toml$/.exec(rel);
      if (m) subs[m[1]] = listed[rel];
    }
    return subs;
  }

  // Section 7: lock.toml is what was resolved.
  function checkLock(where, phase, e, listed, text, entropy, bad) {
    const raw = text("lock.toml");
    if (!("lock.toml" in listed) || raw === null) {
      bad(where, "lock.toml is missing", { phase });
      return;
    }
    const lock = root.EmpereurToml.parse(raw);
    for (const k of ["game", "phase", "commitment", "redo_of", "beacon", "beacon_round", "beacon_signature"]) {
      if (lock[k] !== e[k]) bad(where, "lock.toml " + k + " is not the entry's", { phase });
    }
    const subs = submissions(listed);
    const powers = lock.power || {};
    if (Object.keys(powers).sort().join(",") !== Object.keys(subs).sort().join(",")) {
      bad(where, "lock.toml locks " + (Object.keys(powers).join(", ") || "nobody") + ", the entry holds orders of " + (Object.keys(subs).join(", ") || "nobody"), { phase });
    }
    for (const p of Object.keys(subs)) {
      const l = powers[p];
      if (!l) continue;
      if (l.receipt !== subs[p]) bad(where, "lock.toml receipt of " + p + " is not the SHA-256 of orders/" + p + ".toml", { phase });
      if (l.by !== "player" && l.by !== "moderator") bad(where, "lock.toml does not say who entered the orders of " + p, { phase });
      if (l.entropy !== (entropy[p] || "")) bad(where, "lock.toml entropy of " + p + " is not the one in entropy.toml", { phase });
    }
    const kind = lock.dice;
    if ((kind !== "committed" && kind !== "manual") || (kind === "manual") !== (lock.manual_dice !== undefined)) {
      bad(where, "lock.toml dice is " + kind + " (manual_dice goes with manual)", { phase });
    }
    const log = root.EmpereurToml.parse(text("dice.toml") || "");
    if ((log.roll || []).some((r) => r.source !== kind)) bad(where, "lock.toml says the dice are " + kind + ", the dice log does not", { phase });
  }

  // Section 3 and 4: every committed roll recomputed.
  async function checkRolls(where, phase, text, k, result, bad) {
    const raw = text("dice.toml");
    if (raw === null) {
      bad(where, "dice.toml is missing", { phase });
      return;
    }
    let log;
    try {
      log = root.EmpereurToml.parse(raw);
    } catch (err) {
      bad(where, "dice.toml cannot be read: " + err.message, { phase });
      return;
    }
    const seen = new Set();
    for (const r of log.roll || []) {
      if (seen.has(r.purpose)) bad(where, "roll '" + r.purpose + "' is in the dice log twice", { phase, purpose: r.purpose });
      seen.add(r.purpose);
      if (r.source === "manual") {
        result.manual++;
        result.notes.push(where + ": roll '" + r.purpose + "' d" + r.sides + " = " + r.result + " is manual (entered by the moderator, not committed)");
        continue;
      }
      if (r.source !== "committed") {
        bad(where, "roll '" + r.purpose + "' has source " + r.source + ", which a game's history may not hold", { phase, purpose: r.purpose });
        continue;
      }
      if (!Number.isInteger(r.sides) || r.sides < 1 || r.sides >= 2 ** 32) {
        bad(where, "roll '" + r.purpose + "' has " + r.sides + " sides", { phase, purpose: r.purpose });
        continue;
      }
      result.committed++;
      const got = await roll(k, r.purpose, r.sides);
      if (got !== r.result) {
        bad(where, "roll '" + r.purpose + "': d" + r.sides + " recorded as " + r.result + ", the committed dice give " + got, {
          phase,
          purpose: r.purpose,
          log: r.result,
          seed: got,
        });
      }
    }
  }

  // Section 1a: link(s) = SHA-256(lp("empereur/dice/chain/v1") ‖ lp(game) ‖ lp(s));
  // the i-th commitment published under a new seed uses s_i, and
  // link(s_i) = s_(i−1), s_0 the anchor (once more per link not revealed yet).
  async function checkSeedChain(game, chain, bad, notes) {
    if (!chain.anchor) return;
    const link = async (s) => new Uint8Array(await subtle.digest("SHA-256", concat([lp("empereur/dice/chain/v1"), lp(game), lp(s)])));
    let known = chain.anchor;
    let at = 0;
    for (let i = 1; i <= chain.commitments.length; i++) {
      const r = chain.revealed.get(chain.commitments[i - 1]);
      if (!r || !r.seed) continue;
      if (i > chain.length) {
        bad(r.where, "a seed beyond the chain's " + chain.length + " links", { phase: r.phase });
        return;
      }
      let s = r.seed;
      for (let k = at; k < i; k++) s = await link(s);
      if (hex(s) !== hex(known)) {
        bad(r.where, "the revealed seed is not the next link of the seed chain the genesis entry committed (a redrawn seed)", { phase: r.phase });
        return;
      }
      known = r.seed;
      at = i;
    }
    notes.push("the seed chain checks: " + at + " seed(s) revealed of " + chain.commitments.length + " committed");
  }

  // The first problem in words a player understands.
  function explain(p) {
    if (!p) return "";
    if (p.log !== undefined) {
      return "In phase " + p.phase + " (history entry " + p.where + "), the roll for " + p.purpose + ": the dice log says " + p.log + ", but the revealed seed gives " + p.seed + ".";
    }
    return (p.phase ? "In phase " + p.phase + " (history entry " + p.where + "): " : p.where + ": ") + p.what + ".";
  }

  root.EmpereurVerify = { verifyHistory, explain, commitment, key, roll, sha256, lp, readSeed };
})(typeof window !== "undefined" ? window : globalThis);
