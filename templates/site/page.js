// The index page: runs the verifier on the embedded history, states its
// verdict (#verdict, data-status checking | ok | mismatch: other tools
// read it), and checks dropped mails.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const item = (list, text, cls) => {
    const li = document.createElement("li");
    li.textContent = text;
    if (cls) li.className = cls;
    list.appendChild(li);
  };
  let found = null;

  async function run() {
    const verdict = $("verdict");
    const log = $("verify-log");
    const data = window.EMPEREUR_HISTORY;
    try {
      const r = await window.EmpereurVerify.verifyHistory(data);
      r.game = data.game;
      found = r;
      for (const p of r.problems) item(log, p.where + ": " + p.what, "bad");
      for (const n of r.notes) item(log, "note: " + n);
      const counts = r.entries + " history entries, " + r.committed + " committed roll(s), " + r.manual + " manual roll(s)";
      if (r.problems.length === 0) {
        verdict.textContent = "Every roll checks: " + counts + "; every commitment and the hash chain match.";
        verdict.dataset.status = "ok";
      } else {
        verdict.textContent =
          "Mismatch. " + window.EmpereurVerify.explain(r.problems[0]) + " (" + r.problems.length + " problem(s) in all; " + counts + ".)";
        verdict.dataset.where = r.problems[0].where;
        if (r.problems[0].purpose) verdict.dataset.purpose = r.problems[0].purpose;
        verdict.dataset.status = "mismatch";
        $("verify-details").open = true;
      }
    } catch (err) {
      verdict.textContent = "Mismatch: the history could not be read (" + err.message + ").";
      verdict.dataset.status = "mismatch";
    }
  }

  async function checkFiles(list) {
    const out = $("mail-verdict");
    const log = $("mail-log");
    log.textContent = "";
    if (!found) {
      out.textContent = "The history is still being checked; drop the mails again in a moment.";
      return;
    }
    const files = [];
    for (const f of list) files.push({ name: f.name, text: new TextDecoder("x-user-defined").decode(await f.arrayBuffer()) });
    const r = await window.EmpereurMails.checkMails(files, found);
    for (const p of r.problems) item(log, p.file + (p.subject ? " (" + p.subject + ")" : "") + ": " + p.anchor + ": " + p.what, "bad");
    out.textContent =
      r.messages + " message(s), " + r.anchors + " anchor(s) of game " + found.game + ": " + (r.problems.length ? r.problems.length + " do not match the history." : "all match the history.");
    out.dataset.status = r.problems.length ? "mismatch" : "ok";
  }

  const zone = $("dropzone");
  zone.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    checkFiles(ev.dataTransfer.files);
  });
  $("mailfiles").addEventListener("change", (ev) => checkFiles(ev.target.files));
  run();
})();
