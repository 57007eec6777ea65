// Browser tests of the public site (docs/site.md): Debian's Chromium,
// driven by playwright-core (no browser download). On the site of the
// demo game: every page loads without a console error, from file:// and
// from a static HTTP server; the in-page verifier says ok; on each
// tampered copy of the game it says mismatch and names where, and agrees
// with `empereur verify` (exit 1); dropped mails are checked against the
// history as `verify --mails` does.
//
//   EMPEREUR_BIN=target/debug/empereur node tests/browser/site.test.mjs
import { chromium } from "playwright-core";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(process.env.EMPEREUR_BIN || path.join(here, "../../target/debug/empereur"));
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "empereur-site-"));
const sha = (b) => createHash("sha256").update(b).digest("hex");
let failures = 0;
const check = (ok, what) => {
  console.log((ok ? "ok   " : "FAIL ") + what);
  if (!ok) failures++;
};

function empereur(args) {
  return spawnSync(BIN, args, { encoding: "utf8" });
}

// ---- the demo game and its tampered copies
const demo = path.join(tmp, "demo");
execFileSync(BIN, ["demo", "--out", demo], { stdio: "ignore" });
const game = path.join(demo, "game");
const hist = (g) => path.join(g, "history");
const entries = (g) =>
  fs
    .readdirSync(hist(g))
    .filter((n) => /^[0-9]{4}-/.test(n) && !n.startsWith("0000-"))
    .sort();
const read = (p) => fs.readFileSync(p, "utf8");
const edit = (p, f) => fs.writeFileSync(p, f(read(p)));

// Record a file's new hash in its entry.toml.
function reseal(g, dir, rel, oldHash) {
  const now = sha(fs.readFileSync(path.join(hist(g), dir, rel)));
  edit(path.join(hist(g), dir, "entry.toml"), (t) => t.replace(oldHash, now));
}

// Rewrite every link after `from` (previous, head.toml): a forger who
// reseals the whole chain.
function resealChain(g) {
  // Entry 1 follows the genesis entry (docs/dice.md 1a), if the game has one.
  const genesis = fs.readdirSync(hist(g)).find((n) => n.startsWith("0000-"));
  let prev = genesis ? sha(fs.readFileSync(path.join(hist(g), genesis, "entry.toml"))) : "0".repeat(64);
  const names = entries(g);
  names.forEach((d, i) => {
    const p = path.join(hist(g), d, "entry.toml");
    edit(p, (t) => t.replace(/^number = \d+$/m, "number = " + (i + 1)).replace(/^previous = "[0-9a-f]+"$/m, 'previous = "' + prev + '"'));
    prev = sha(fs.readFileSync(p));
  });
  fs.writeFileSync(
    path.join(hist(g), "head.toml"),
    "entries = " + names.length + '\nhead = "' + prev + '"\nlast = "' + names[names.length - 1] + '"\n'
  );
}

function changeFirstRoll(g, dir) {
  const p = path.join(hist(g), dir, "dice.toml");
  const old = sha(fs.readFileSync(p));
  let purpose = null;
  edit(p, (t) =>
    t.replace(/purpose = "([^"]+)"\nsides = (\d+)\nresult = (\d+)\n/, (_, pu, s, r) => {
      purpose = pu;
      const next = Number(r) === Number(s) ? 1 : Number(r) + 1;
      return 'purpose = "' + pu + '"\nsides = ' + s + "\nresult = " + next + "\n";
    })
  );
  return { old, purpose };
}

const names = entries(game);
const withRolls = names.filter((d) => /\[\[roll\]\]/.test(read(path.join(hist(game), d, "dice.toml"))));
const withOrders = names.filter((d) => fs.existsSync(path.join(hist(game), d, "orders")));
const tampers = [
  {
    name: "a die changed",
    where: withRolls[1],
    apply: (g) => changeFirstRoll(g, withRolls[1]),
  },
  {
    name: "a die changed and the whole chain resealed",
    where: withRolls[1],
    purpose: true,
    apply: (g) => {
      const { old, purpose } = changeFirstRoll(g, withRolls[1]);
      reseal(g, withRolls[1], "dice.toml", old);
      resealChain(g);
      return { purpose };
    },
  },
  {
    name: "an entry dropped and the rest renumbered and resealed",
    where: names[4].replace(/^\d{4}/, "0004"),
    apply: (g) => {
      fs.rmSync(path.join(hist(g), names[3]), { recursive: true });
      for (const d of names.slice(4)) {
        const n = String(Number(d.slice(0, 4)) - 1).padStart(4, "0");
        fs.renameSync(path.join(hist(g), d), path.join(hist(g), n + d.slice(4)));
      }
      resealChain(g);
    },
  },
  {
    name: "a seed digit changed",
    where: names[2],
    apply: (g) =>
      edit(path.join(hist(g), names[2], "seed"), (t) => (t[0] === "0" ? "1" : "0") + t.slice(1)),
  },
  {
    name: "a seed digit changed and resealed",
    where: names[2],
    apply: (g) => {
      const p = path.join(hist(g), names[2], "seed");
      const old = sha(fs.readFileSync(p));
      edit(p, (t) => t.slice(0, 5) + (t[5] === "0" ? "1" : "0") + t.slice(6));
      reseal(g, names[2], "seed", old);
      resealChain(g);
    },
  },
  {
    name: "a seed reused from another entry",
    where: names[2],
    apply: (g) => fs.copyFileSync(path.join(hist(g), names[0], "seed"), path.join(hist(g), names[2], "seed")),
  },
  {
    name: "a roll dropped from the dice log",
    where: withRolls[0],
    apply: (g) => edit(path.join(hist(g), withRolls[0], "dice.toml"), (t) => t.replace(/\[\[roll\]\][^[]*/, "")),
  },
  {
    name: "an order changed after resolution",
    where: withOrders[0],
    apply: (g) => {
      const dir = path.join(hist(g), withOrders[0], "orders");
      edit(path.join(dir, fs.readdirSync(dir)[0]), (t) => t.replace("MOVE", "Move"));
    },
  },
  {
    name: "a recorded state edited",
    where: names[3],
    apply: (g) => edit(path.join(hist(g), names[3], "state-after.toml"), (t) => t.replace("gold = ", "gold = 1")),
  },
  {
    name: "the current state edited",
    where: "state.toml",
    apply: (g) => edit(path.join(g, "state.toml"), (t) => t.replace("gold = ", "gold = 1")),
  },
  {
    name: "an entry deleted",
    where: "history",
    apply: (g) => fs.rmSync(path.join(hist(g), names[2]), { recursive: true }),
  },
];

// ---- a static server for the http:// runs
function serve(root) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".toml": "text/plain" };
  const server = http.createServer((req, res) => {
    const p = path.join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!p.startsWith(root) || !fs.existsSync(p) || fs.statSync(p).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": types[path.extname(p)] || "application/octet-stream" });
    res.end(fs.readFileSync(p));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });

// Open a page, collect console errors and failed requests, and wait for
// the verdict when the page has one.
async function open(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("requestfailed", (r) => errors.push("request failed: " + r.url()));
  await page.goto(url);
  let verdict = null;
  if (await page.$("#verdict")) {
    await page.waitForSelector('#verdict:not([data-status="checking"])', { timeout: 60000 });
    verdict = await page.$eval("#verdict", (v) => ({ status: v.dataset.status, where: v.dataset.where || "", purpose: v.dataset.purpose || "", text: v.textContent }));
  }
  return { page, errors, verdict };
}

function site(g, out) {
  const r = empereur(["site", "--game", g, "--out", out]);
  if (r.status !== 0) throw new Error("empereur site failed: " + r.stderr);
  return out;
}

try {
  // The real history: every page, from file:// and from http://.
  const real = site(game, path.join(tmp, "site"));
  const pages = ["index.html", ...fs.readdirSync(path.join(real, "phases")).filter((f) => f.endsWith(".html")).map((f) => "phases/" + f)];
  const server = await serve(real);
  const base = "http://127.0.0.1:" + server.address().port + "/";
  for (const [how, root] of [["file://", pathToFileURL(real).href + "/"], ["http://", base]]) {
    let clean = 0;
    for (const p of pages) {
      const { page, errors, verdict } = await open(root + p);
      if (errors.length) console.log("  " + how + p + ": " + errors.join(" | "));
      else clean++;
      if (verdict) check(verdict.status === "ok", how + " the verifier says ok on the real history (" + verdict.text + ")");
      await page.close();
    }
    check(clean === pages.length, how + " " + clean + " of " + pages.length + " pages load without a console error");
  }
  server.close();

  // Moderator entries: an undo, then the re-resolution of the phase it
  // reopened (docs/dice.md section 6: same seed, same entropy); then the
  // same history with the re-resolution's entropy changed and resealed.
  const moderated = path.join(tmp, "moderated");
  fs.cpSync(game, moderated, { recursive: true });
  for (const args of [["undo", "--reason", "a test of the undo rules"], ["resolve"]]) {
    const r = empereur([args[0], "--game", moderated, ...args.slice(1)]);
    if (r.status !== 0) throw new Error("empereur " + args[0] + " failed: " + r.stdout + r.stderr);
  }
  const redo = entries(moderated).slice(-1)[0];
  check(/^redo_of = /m.test(read(path.join(hist(moderated), redo, "entry.toml"))), "the moderated game ends with a re-resolution (" + redo + ")");
  {
    const v = empereur(["verify", "--game", moderated]);
    const { page, errors, verdict } = await open(pathToFileURL(site(moderated, moderated + "-site")).href + "/index.html");
    check(v.status === 0 && verdict.status === "ok" && errors.length === 0, "an undo and its re-resolution: verify exits " + v.status + ", the page says " + verdict.text);
    await page.close();
  }
  tampers.push({
    name: "a re-resolution under other entropy, resealed",
    where: redo,
    base: moderated,
    apply: (g) => {
      const p = path.join(hist(g), redo, "entropy.toml");
      const old = sha(fs.readFileSync(p));
      fs.writeFileSync(p, '[entropy]\nfrance = "' + "0".repeat(64) + '"\n');
      reseal(g, redo, "entropy.toml", old);
      resealChain(g);
    },
  });

  // A game played to its end publishes its whole history, and each state
  // before a phase that is the state after the phase before is written
  // once in the verifier's data (`same_as`); the page checks it as
  // `empereur verify` does, and a `same_as` pointed at another entry's
  // state is a mismatch there.
  {
    const ended = path.join(tmp, "ended");
    fs.cpSync(game, ended, { recursive: true });
    const ap = empereur(["autoplay", "--game", ended, "--phases", "400", "--seed", "3"]);
    check(ap.status === 0 && /the game is over/.test(ap.stdout), "the demo game played to its end (" + ap.stdout.split("\n")[0] + ")");
    const out = site(ended, ended + "-site");
    const data = path.join(out, "data", "history.js");
    const refs = [...read(data).matchAll(/"state-before.toml":\{"same_as":"([^"]+)"\}/g)].map((m) => m[1]);
    check(refs.length > 5, refs.length + " states before a phase written once");
    const v = empereur(["verify", "--game", ended]);
    const { page, errors, verdict } = await open(pathToFileURL(out).href + "/index.html");
    check(v.status === 0 && verdict.status === "ok" && errors.length === 0, "a finished game: verify exits " + v.status + ", the page says " + verdict.text);
    await page.close();
    const [a, b] = [refs[2], refs[4]];
    const at = read(data).indexOf('"same_as":"' + a + '"');
    const dir = [...read(data).slice(0, at).matchAll(/"dir":"([^"]+)"/g)].pop()[1];
    fs.writeFileSync(data, read(data).replace('"same_as":"' + a + '"', '"same_as":"' + b + '"'));
    const { page: p2, verdict: v2 } = await open(pathToFileURL(out).href + "/index.html");
    check(v2.status === "mismatch" && v2.where === dir, "a state before written as another entry's: the page says mismatch at " + v2.where + " (" + dir + "): " + v2.text);
    await p2.close();
  }

  // Mails a player received, dropped on the page.
  const mails = path.join(tmp, "mails-prussia");
  fs.mkdirSync(mails);
  const files = path.join(game, "mail", "files");
  for (const f of fs.readdirSync(files)) {
    if (/^To: .*prussia@/m.test(read(path.join(files, f)))) fs.copyFileSync(path.join(files, f), path.join(mails, f));
  }
  const dropped = fs.readdirSync(mails).map((f) => path.join(mails, f));
  const mbox = path.join(tmp, "prussia.mbox");
  fs.writeFileSync(mbox, dropped.map((f) => "From empereur Sat Jan 10 15:00:00 2026\n" + read(f).replace(/^From /gm, ">From ") + "\n").join(""));
  for (const [what, list] of [[".eml files", dropped], ["an mbox", [mbox]]]) {
    const { page } = await open(pathToFileURL(real).href + "/index.html");
    await page.setInputFiles("#mailfiles", list);
    await page.waitForSelector('#mail-verdict[data-status="ok"], #mail-verdict[data-status="mismatch"]');
    const v = await page.$eval("#mail-verdict", (x) => [x.dataset.status, x.textContent]);
    check(v[0] === "ok" && !/ 0 anchor/.test(v[1]), "prussia's mails as " + what + " match the real history (" + v[1] + ")");
    await page.close();
  }

  // Tampered copies.
  for (const t of tampers) {
    const g = path.join(tmp, "tamper-" + t.name.replace(/\W+/g, "-"));
    fs.cpSync(t.base || game, g, { recursive: true });
    const info = t.apply(g) || {};
    const v = empereur(["verify", "--game", g]);
    const out = site(g, g + "-site");
    const { page, errors, verdict } = await open(pathToFileURL(out).href + "/index.html");
    check(v.status === 1, t.name + ": empereur verify exits 1 (" + (v.stdout.split("\n")[0] || v.stderr) + ")");
    check(verdict.status === "mismatch", t.name + ": the page says mismatch: " + verdict.text);
    check(verdict.where === t.where, t.name + ": it names " + t.where + " first (it names " + verdict.where + ")");
    if (t.purpose) check(verdict.purpose === info.purpose && verdict.text.includes(info.purpose), t.name + ": it names the roll " + info.purpose);
    check(errors.length === 0, t.name + ": no console error " + errors.join(" | "));
    await page.close();
    if (t.purpose) {
      // The player's own mails catch the resealed history, in the page as with verify --mails.
      const cli = empereur(["verify", "--game", g, "--mails", mails, "--power", "prussia"]);
      const { page: p2 } = await open(pathToFileURL(out).href + "/index.html");
      await p2.setInputFiles("#mailfiles", dropped);
      await p2.waitForSelector('#mail-verdict[data-status="ok"], #mail-verdict[data-status="mismatch"]');
      const m = await p2.$eval("#mail-verdict", (x) => [x.dataset.status, x.textContent]);
      check(cli.status === 1 && m[0] === "mismatch", t.name + ": dropped mails say the history was rewritten, as verify --mails does (" + m[1] + ")");
      await p2.close();
    }
  }
} finally {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failures ? failures + " check(s) failed" : "all browser checks passed");
process.exit(failures ? 1 : 0);
