#!/usr/bin/env python3
"""Independent verifier of Empereur's committed dice, written from docs/dice.md.

  dice_verifier.py GAME_DIR                      check every history entry
  dice_verifier.py roll SEED PURPOSE SIDES [POWER=TEXT]...   one roll

Prints `ROLL <entry> <purpose> <result>` per committed roll it recomputes,
`MANUAL <entry> <purpose> <result>` per manual roll, `LOCK <entry> ok` per
orders lock it checked, `CHAIN <n> links ok` for the seed chain of the
genesis entry, `NOTE ...` for what it cannot check (a beacon's BLS
signature without a BLS12-381 library; the seeds of a game without a
genesis entry), one `BAD <entry>: <what>` line per mismatch; exit 0 if all
match, else 1.
"""
import hashlib, hmac, os, struct, sys, tomllib

# Section 2: the Unicode White_Space characters ingest removes around an
# ENTROPY value.
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000"
POWERS = ["france", "britain", "russia", "austria", "prussia", "spain", "ottoman"]
ZERO = "0" * 64

def lp(b):
    return struct.pack(">I", len(b)) + b

def sha(b):
    return hashlib.sha256(b).hexdigest()

def commitment(game, phase, seed, beacon=None):
    """Section 1; `beacon` = (network, round) when the commitment names one (2a)."""
    msg = lp(b"empereur/dice/commit/v1") + lp(game.encode()) + lp(phase.encode()) + lp(seed)
    if beacon is not None:
        msg += lp(beacon[0].encode()) + lp(str(beacon[1]).encode())
    return sha(msg)

def chain_link(game, seed):
    """Section 1a: the link before `seed` in the game's seed chain."""
    return hashlib.sha256(lp(b"empereur/dice/chain/v1") + lp(game.encode()) + lp(seed)).digest()

def key(seed, entropy, beacon=None):
    """Section 2; `beacon` = (network, round, signature bytes) with a beacon (2a)."""
    msg = lp(b"empereur/dice/key/v1")
    for p in POWERS:
        msg += lp(p.encode()) + lp(entropy.get(p, "").encode())
    if beacon is not None:
        msg += lp(beacon[0].encode()) + lp(str(beacon[1]).encode()) + lp(beacon[2])
    return hmac.new(seed, msg, hashlib.sha256).digest()

# Section 2a: the networks a commitment may name. The BLS check needs a
# BLS12-381 library with drand's G1 signatures (RFC 9380 hash to curve);
# without one this verifier checks everything else and says so.
NETWORKS = {
    "drand-quicknet": {
        "chain_hash": "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
        "genesis": 1692803367,
        "period": 3,
    },
}

def entry_beacon(entry):
    """(network, round) of the seed the entry reveals, or None."""
    if "beacon" not in entry and "beacon_round" not in entry:
        return None
    return (entry.get("beacon"), entry.get("beacon_round"))

def check_lock(d, name, entry, ent, bad):
    """Section 7: lock.toml is what was resolved."""
    path = os.path.join(d, "lock.toml")
    if "lock.toml" not in entry["files"]:
        bad.append(f"{name}: lock.toml is missing")
        return
    lock = tomllib.load(open(path, "rb"))
    for k in ("game", "phase", "commitment", "redo_of", "beacon", "beacon_round", "beacon_signature"):
        if lock.get(k) != entry.get(k):
            bad.append(f"{name}: lock.toml {k} is not the entry's")
    subs = {}
    for rel in entry["files"]:
        if rel.startswith("orders/") and rel.endswith(".toml"):
            subs[rel[len("orders/"):-len(".toml")]] = open(os.path.join(d, rel), "rb").read()
    powers = lock.get("power", {})
    if set(powers) != set(subs):
        bad.append(f"{name}: lock.toml locks {sorted(powers)}, the entry holds orders of {sorted(subs)}")
    for p, raw in subs.items():
        lp_ = powers.get(p)
        if lp_ is None:
            continue
        if lp_.get("receipt") != sha(raw):
            bad.append(f"{name}: lock.toml receipt of {p} is not the SHA-256 of orders/{p}.toml")
        by = tomllib.loads(raw.decode()).get("by", "")
        # Format 3: every submission not from the player's own mail is the
        # moderator's (submit, autoplay); format 2 marked submit's only.
        by_mod = not by.startswith("mail:") if entry.get("format", 1) >= 3 else by == "moderator"
        if (lp_.get("by") == "moderator") != by_mod or lp_.get("by") not in ("player", "moderator"):
            bad.append(f"{name}: lock.toml does not say who entered the orders of {p}")
        if lp_.get("entropy") != ent.get(p, ""):
            bad.append(f"{name}: lock.toml entropy of {p} is not the one in entropy.toml")
    dice_kind = lock.get("dice")
    if dice_kind not in ("committed", "manual") or ((dice_kind == "manual") != ("manual_dice" in lock)):
        bad.append(f"{name}: lock.toml dice is {dice_kind!r} (manual_dice goes with manual)")
    rolls = tomllib.load(open(os.path.join(d, "dice.toml"), "rb")).get("roll", [])
    if any(r["source"] != dice_kind for r in rolls):
        bad.append(f"{name}: lock.toml says the dice are {dice_kind}, the dice log does not")
    print(f"LOCK {name} ok" if not [b for b in bad if b.startswith(name + ": lock")] else f"LOCK {name} bad")

def roll(k, purpose, sides):
    limit = 2**32 - (2**32 % sides)
    i = 0
    while True:
        block = hmac.new(k, lp(purpose.encode()) + struct.pack(">I", i), hashlib.sha256).digest()
        for j in range(0, 32, 4):
            w = struct.unpack(">I", block[j:j + 4])[0]
            if w < limit:
                return w % sides + 1
        i += 1

def read_seed(path):
    text = open(path, "rb").read().decode()
    if len(text) != 65 or not text.endswith("\n"):
        raise ValueError("a seed file is 64 hex digits and a newline")
    return bytes.fromhex(text[:64])

def expected_entropy(d, name, entry, bad):
    """Section 2: each player's mailed submission's receipt, then a space
    and its typed text (format 2: every stored submission's)."""
    out = {}
    for rel in entry["files"]:
        if rel.startswith("orders/") and rel.endswith(".toml"):
            raw = open(os.path.join(d, rel), "rb").read()
            sub = tomllib.loads(raw.decode())
            if entry.get("format", 1) >= 3 and not sub.get("by", "").startswith("mail:"):
                continue
            typed = sub.get("entropy")
            if typed is not None and (typed == "" or typed.strip(WHITE_SPACE) != typed):
                bad.append(f"{name}: {rel} has entropy no mail could have produced (empty, or spaces around it)")
            out[rel[len("orders/"):-len(".toml")]] = sha(raw) + (" " + typed if typed else "")
    return out

def check(game_dir):
    hist = os.path.join(game_dir, "history")
    bad = []
    prev = ZERO
    seeds = {}           # seed -> (entry, commitment)
    resolved = {}        # entry -> (phase, commitment, sha of entropy.toml)
    open_commitment = None
    reopened_from = None
    state_after = None
    head = tomllib.load(open(os.path.join(hist, "head.toml"), "rb"))
    names = sorted(n for n in os.listdir(hist) if n[:4].isdigit() and not n.startswith("."))
    names = [n for n in names if int(n[:4]) <= head["entries"]]
    anchor = None        # section 1a: (anchor seed, chain length) of the genesis entry
    links = []           # commitments opened under a new seed, in order: (entry, commitment)
    physical = set()     # commitments whose phase was announced with physical dice
    previews = 0         # preview entries since the last entry that opened a phase
    opened = None        # (entry, sha of entry.toml, phase, physical) that opened the open phase
    game = None
    if names and names[0].startswith("0000-"):
        name = names[0]
        raw = open(os.path.join(hist, name, "entry.toml"), "rb").read()
        g = tomllib.loads(raw.decode())
        if g.get("kind") != "genesis" or g.get("number") != 0 or g["previous"] != ZERO or g.get("files"):
            bad.append(f"{name}: entry 0 must be a genesis entry with no previous entry and no files")
        if g.get("next_phase") != g["phase"] or "commitment" in g or "next_commitment" not in g:
            bad.append(f"{name}: the genesis entry opens its phase and resolves nothing")
        try:
            anchor = (bytes.fromhex(g["chain_anchor"]), int(g["chain_length"]))
            if len(anchor[0]) != 32 or anchor[1] < 1:
                raise ValueError
        except (KeyError, ValueError):
            bad.append(f"{name}: the genesis entry has no valid chain_anchor and chain_length")
        game = g["game"]
        prev = sha(raw)
        open_commitment = g.get("next_commitment")
        links.append((name, open_commitment))
        if g.get("next_dice") == "manual":
            physical.add(open_commitment)
        opened = (name, prev, g.get("next_phase"), g.get("next_dice") == "manual")
        names = names[1:]
    else:
        print("NOTE no genesis entry: a game created before seed chains; its seeds were drawn phase by phase")
    for name in names:
        d = os.path.join(hist, name)
        raw = open(os.path.join(d, "entry.toml"), "rb").read()
        entry = tomllib.loads(raw.decode())
        fmt = entry.get("format", 1)
        game = entry["game"]
        if entry["previous"] != prev:
            bad.append(f"{name}: previous entry hash differs")
        prev = sha(raw)
        ok_files = True
        for rel, h in entry["files"].items():
            p = os.path.join(d, rel)
            if not os.path.exists(p):
                bad.append(f"{name}: {rel} is missing")
                ok_files = False
            elif sha(open(p, "rb").read()) != h:
                bad.append(f"{name}: {rel} does not match its recorded hash")
        if not ok_files:
            continue
        if "state-before.toml" in entry["files"]:
            if state_after is not None and entry["files"]["state-before.toml"] != state_after:
                bad.append(f"{name}: state-before.toml is not the last state-after.toml")
        if "state-after.toml" in entry["files"]:
            state_after = entry["files"]["state-after.toml"]

        def note_seed(seed, c):
            first = seeds.get(seed)
            if first and first[1] != c:
                bad.append(f"{name}: seed reused from {first[0]} for another commitment")
            seeds.setdefault(seed, (name, c))

        if entry["kind"] == "undo" and fmt >= 2:
            u = entry.get("undone")
            if u not in resolved:
                bad.append(f"{name}: undone {u} is not an earlier resolution")
            else:
                ph, c, _ = resolved[u]
                if entry["phase"] != ph or entry.get("next_phase") != ph:
                    bad.append(f"{name}: an undo is named after, and reopens, the phase it rolls back")
                if entry.get("next_commitment") != c:
                    bad.append(f"{name}: the reopened phase does not keep its commitment")
            if "abandoned_commitment" in entry:
                if entry["abandoned_commitment"] != open_commitment:
                    bad.append(f"{name}: the abandoned commitment is not the one that was open")
                s = read_seed(os.path.join(d, "abandoned-seed"))
                ab = entry_beacon(entry)
                if commitment(entry["game"], entry["abandoned_phase"], s, ab) != entry["abandoned_commitment"]:
                    bad.append(f"{name}: abandoned-seed does not match its commitment")
                note_seed(s, entry["abandoned_commitment"])

        if "commitment" in entry:
            c = entry["commitment"]
            if open_commitment is not None and c != open_commitment:
                bad.append(f"{name}: resolved under another commitment than the one published")
            seed = read_seed(os.path.join(d, "seed"))
            b = entry_beacon(entry)
            if b is not None and (b[0] not in NETWORKS or not isinstance(b[1], int)):
                bad.append(f"{name}: beacon {b[0]!r} round {b[1]!r} is not a known network and round")
            if commitment(entry["game"], entry["phase"], seed, b) != c:
                bad.append(f"{name}: seed does not match the commitment")
            note_seed(seed, c)
            eraw = open(os.path.join(d, "entropy.toml"), "rb").read() if "entropy.toml" in entry["files"] else b""
            ent = tomllib.loads(eraw.decode()).get("entropy", {})
            if entry["kind"] == "resolve" and fmt >= 2:
                r = entry.get("redo_of")
                if r is not None or reopened_from is not None:
                    if r != reopened_from or r not in resolved:
                        bad.append(f"{name}: redo_of does not name the entry the undo rolled back")
                    elif resolved[r][1] != c or resolved[r][2] != sha(eraw):
                        bad.append(f"{name}: a re-resolution must keep the seed and entropy of {r}")
                elif expected_entropy(d, name, entry, bad) != ent:
                    bad.append(f"{name}: entropy is not the receipts and typed text of the orders")
            if entry["kind"] == "resolve" and fmt >= 2:
                check_lock(d, name, entry, ent, bad)
            if entry["kind"] == "resolve" and fmt >= 3:
                said = 0
                for part in entry.get("note", "").split("; "):
                    suffix = " preview(s) with throwaway seeds were run before this resolution"
                    if part.endswith(suffix) and part[: -len(suffix)].isdigit():
                        said = int(part[: -len(suffix)])
                if said != previews:
                    bad.append(f"{name}: the note counts {said} preview(s), the history holds {previews}")
            if entry["kind"] == "resolve":
                resolved[name] = (entry["phase"], c, sha(eraw))
            kb = None
            if b is not None and entry["kind"] == "resolve":
                sig = entry.get("beacon_signature")
                if sig is None:
                    bad.append(f"{name}: the commitment names a beacon round but no beacon_signature is recorded")
                    sig = ""
                kb = (b[0], b[1], bytes.fromhex(sig))
                print(f"NOTE {name}: the BLS signature of {b[0]} round {b[1]} is not checked "
                      "(no BLS12-381 library here; `empereur verify` checks it); the key folds it in")
            k = key(seed, ent, kb)
            for r in tomllib.load(open(os.path.join(d, "dice.toml"), "rb")).get("roll", []):
                if r["source"] != "committed":
                    print(f"MANUAL {name} {r['purpose']} {r['result']}")
                    if fmt >= 3 and c not in physical:
                        bad.append(f"{name}: manual dice in a phase not announced with physical dice")
                    continue
                got = roll(k, r["purpose"], r["sides"])
                print(f"ROLL {name} {r['purpose']} {got}")
                if got != r["result"]:
                    bad.append(f"{name}: roll {r['purpose']} recorded {r['result']}, recomputed {got}")
        if entry["kind"] == "preview":
            previews += 1
        if "next_commitment" in entry:
            open_commitment = entry["next_commitment"]
            reopened_from = entry.get("undone") if entry["kind"] == "undo" else None
            manual = entry.get("next_dice") == "manual"
            opened = (name, sha(raw), entry.get("next_phase"), manual)
            previews = 0
            if entry["kind"] != "undo":
                links.append((name, open_commitment))
                if manual:
                    physical.add(open_commitment)
    if head["head"] != prev or head["entries"] != len(names):
        bad.append("history/head.toml does not name the last entry")
    if anchor is not None:
        # Section 1a: link i of the chain is the seed of the i-th commitment
        # opened under a new seed; hashing it gives link i-1 (link 0 = anchor).
        by_c = {c: s for s, (_, c) in seeds.items()}
        back, gap = anchor[0], 0
        if len(links) > anchor[1]:
            bad.append(f"history: {len(links)} phases opened under new seeds, the chain has {anchor[1]} links")
        for i, (name, c) in enumerate(links):
            s = by_c.get(c)
            if s is None:
                if i + 1 < len(links):
                    bad.append(f"{name}: the seed of the commitment it opened was never revealed")
                gap += 1
                continue
            x = s
            for _ in range(gap + 1):
                x = chain_link(game, x)
            if x != back:
                bad.append(f"{name}: the seed of the commitment it opened is not link {i + 1} of the seed chain")
            back, gap = s, 0
        print(f"CHAIN {len(links)} links ok" if not [b for b in bad if "seed chain" in b] else "CHAIN bad")
    pc = os.path.join(game_dir, "phase", "commitment")
    if os.path.exists(pc) and open_commitment is not None:
        rec = tomllib.load(open(pc, "rb"))
        if rec["commitment"] != open_commitment:
            bad.append("phase/commitment is not the last next_commitment")
        if opened is not None and not os.path.exists(os.path.join(game_dir, "phase", "next-seed")):
            if rec.get("chain") != opened[1]:
                bad.append(f"phase/commitment: chain is not the hash of {opened[0]}, which opened the phase")
            if rec.get("phase") != opened[2] or rec.get("game") != game:
                bad.append(f"phase/commitment: game or phase is not what {opened[0]} opened")
            if (rec.get("dice") == "manual") != opened[3] or rec.get("dice") not in (None, "manual"):
                bad.append(f"phase/commitment: dice is not what {opened[0]} opened the phase with")
    for b in bad:
        print("BAD " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "roll":
        ent = dict(x.split("=", 1) for x in a[4:])
        print(roll(key(bytes.fromhex(a[1]), ent), a[2], int(a[3])))
        sys.exit(0)
    sys.exit(check(a[0]))
