"""Random capacity updates for `flowcut maxflow --updates` tests.

    updates_tool.py PROBLEM.max UPDATES OUTDIR BATCHES SEED

writes UPDATES (batches of increases, decreases to 0 and below, mixed; arcs
at the terminals picked more often) and OUTDIR/batchK.max, the problem with
batches 1..K applied, for a cold solve of each to compare against."""
import random
import sys


def main():
    problem, updates, outdir, batches, seed = sys.argv[1:6]
    lines = open(problem).read().splitlines()
    arcs = [i for i, l in enumerate(lines) if l.split()[:1] == ["a"]]
    src = next(l.split()[1] for l in lines if l.split()[:1] == ["n"] and l.split()[2] == "s")
    snk = next(l.split()[1] for l in lines if l.split()[:1] == ["n"] and l.split()[2] == "t")
    terminal = [k for k, i in enumerate(arcs) if src in lines[i].split()[1:3] or snk in lines[i].split()[1:3]]
    rng = random.Random(int(seed))
    out = ["c random updates, seed %s" % seed]
    for b in range(1, int(batches) + 1):
        out.append("b")
        kind = ("increase", "decrease", "mixed")[(b - 1) % 3]
        for _ in range(rng.randint(1, max(1, len(arcs) // 10))):
            k = rng.choice(terminal) if terminal and rng.random() < 0.5 else rng.randrange(len(arcs))
            f = lines[arcs[k]].split()
            cap = int(f[3])
            up = kind == "increase" or (kind == "mixed" and rng.random() < 0.5)
            cap = cap + rng.randint(1, 30) if up else (0 if rng.random() < 0.3 else rng.randint(0, cap))
            lines[arcs[k]] = "a %s %s %d" % (f[1], f[2], cap)
            out.append("u %d %d" % (k + 1, cap))
        with open("%s/batch%d.max" % (outdir, b), "w") as fh:
            fh.write("\n".join(lines) + "\n")
    with open(updates, "w") as fh:
        fh.write("\n".join(out) + "\n")


main()
