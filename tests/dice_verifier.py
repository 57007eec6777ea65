#!/usr/bin/env python3
"""Independent verifier of Empereur's committed dice, written from docs/dice.md.

  dice_verifier.py GAME_DIR                      check every history entry
  dice_verifier.py roll SEED PURPOSE SIDES [POWER=TEXT]...   one roll

Prints `ROLL <entry> <purpose> <result>` per committed roll it recomputes,
one `BAD <entry>: <what>` line per mismatch; exit 0 if all match, else 1.
"""
import hashlib, hmac, os, struct, sys, tomllib

POWERS = ["france", "britain", "russia", "austria", "prussia", "spain", "ottoman"]

def lp(b):
    return struct.pack(">I", len(b)) + b

def commitment(game, phase, seed):
    msg = lp(b"empereur/dice/commit/v1") + lp(game.encode()) + lp(phase.encode()) + lp(seed)
    return hashlib.sha256(msg).hexdigest()

def key(seed, entropy):
    msg = lp(b"empereur/dice/key/v1")
    for p in POWERS:
        msg += lp(p.encode()) + lp(entropy.get(p, "").encode())
    return hmac.new(seed, msg, hashlib.sha256).digest()

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

def check(game_dir):
    hist = os.path.join(game_dir, "history")
    bad, prev, seeds = [], "0" * 64, {}
    names = sorted(n for n in os.listdir(hist) if n[:4].isdigit())
    for name in names:
        d = os.path.join(hist, name)
        raw = open(os.path.join(d, "entry.toml"), "rb").read()
        entry = tomllib.loads(raw.decode())
        if entry["previous"] != prev:
            bad.append(f"{name}: previous entry hash differs")
        prev = hashlib.sha256(raw).hexdigest()
        for rel, h in entry["files"].items():
            p = os.path.join(d, rel)
            if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != h:
                bad.append(f"{name}: {rel} does not match its recorded hash")
        if "commitment" not in entry:
            continue
        seed = bytes.fromhex(open(os.path.join(d, "seed")).read().strip())
        if commitment(entry["game"], entry["phase"], seed) != entry["commitment"]:
            bad.append(f"{name}: seed does not match the commitment")
        if seed in seeds:
            bad.append(f"{name}: seed reused from {seeds[seed]}")
        seeds[seed] = name
        ent = tomllib.load(open(os.path.join(d, "entropy.toml"), "rb")).get("entropy", {})
        k = key(seed, ent)
        for r in tomllib.load(open(os.path.join(d, "dice.toml"), "rb")).get("roll", []):
            if r["source"] != "committed":
                print(f"MANUAL {name} {r['purpose']} {r['result']}")
                continue
            got = roll(k, r["purpose"], r["sides"])
            print(f"ROLL {name} {r['purpose']} {got}")
            if got != r["result"]:
                bad.append(f"{name}: roll {r['purpose']} recorded {r['result']}, recomputed {got}")
    head = tomllib.load(open(os.path.join(hist, "head.toml"), "rb"))
    if head["head"] != prev or head["entries"] != len(names):
        bad.append("history/head.toml does not name the last entry")
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
