#!/usr/bin/env python3
"""Mutation score of the model checker (docs/verification.md, "Mutations").

For every non-relaxed memory order and fence in src/locks, src/wait, src/sync and
the waiting engine's inline half (include/locklab/wait.h, core.h, src/core/parker.c)
and the two-word locks' inline fast paths (include/locklab/two_word.h, parkinglot.h, standby.h),
weaken it one step, rebuild locklab-check with that one change and run the checks
that cover the file; report caught (and by what) or not caught.

    seq_cst -> acq_rel (RMW), acquire (load), release (store)
    acq_rel -> acquire, and -> release (two mutants)
    acquire -> relaxed, release -> relaxed (ll_load_acquire/ll_store_release too)
    ll_fence(...) -> removed

    verify/mutate.py [--jobs N] [--only SUBSTRING-OF-PATH:LINE[,...]] [--timeout S] [--table FILE]

Each job copies the sources to a private tree under build/mutate/ and builds
there (the work tree is never modified).  Prints one line per mutant and writes
the Markdown table to --table (default build/mutate/table.md).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCANNED = ["src/locks", "src/wait", "src/sync", "include/locklab/wait.h", "include/locklab/core.h",
           "src/core/parker.c", "include/locklab/two_word.h", "include/locklab/parkinglot.h",
           "include/locklab/standby.h"]  # two_word.h, parkinglot.h, standby.h: the locks' inline fast paths

# What covers each file: the lock specs (every lock client, bounded and random) or the sync clients.
PARK = ["mcs-park", "twa-park", "anderson-park", "mcs-stp"]
# Specs whose exhaustive search does not end within a minute (as in verify.sh).
TOO_BIG = re.compile(r"^(clh-park|twa-park|lifocr-park|mcscr-park|mcscr-stp|mcscr-astp|cna-park|cna-stp|cna-astp|"
                     r"hmcs.*|mcscrn-park|mcscrn-stp|mcscrn-astp|hemlock-park|reciprocating-park|reciprocating-stp|"
                     r"reciprocating-astp|acr:.*|lifocr-park:.*)$")
SPIN_WAITWORD = ["anderson", "twa"]  # the wait words' non-parking branches (ll_waitword_publish)
MCS_FAMILY = ["mcs", "mcs-park", "mcscr", "mcscrn", "cna", "hmcs", "loiter", "acr"]
SYNC = "sync"
# Spec variants that reach a lock's slow paths within the checker's bounds (as in verify.sh):
# without arrival spinning every contended arrival queues and becomes the standby, which
# sleeps and (impatient at once) is handed the lock; a fairness of 1 pops the eldest waiter.
VARIANTS = {"acr": ["acr:spin_ns=0", "acr:spin_ns=0,patience_ns=0"],
            "loiter": ["loiter:spinners=0", "loiter:spinners=0,patience_ns=0"],
            "lifocr": ["lifocr:fairness=1", "lifocr-park:fairness=1"]}


# Checks of one spec that reach a slow path the others do not: parkinglot's park
# (exhaustive, with long critical sections: the waiter spins 10 rounds first) and its
# unfair unpark (a 1-us clock step: on the default 1-ms step every parked waiter has waited
# FAIR_NS at its first unpark, which is then a handoff).
HOLD_FULL = {"parkinglot": [["--lock", "parkinglot", "--client", "counter", "--threads", "2", "--sched", "full",
                             "--hold", "10"],
                            ["--lock", "parkinglot", "--client", "locks", "--threads", "3", "--acquisitions", "2",
                             "--sched", "random", "--iterations", "2000", "--clock-step", "1000", "--hold", "10"]],
             # standby: the standby (exhaustive), its park and wake into the role (on 2 CPUs, where
             # arrivals yield first, and on 4); on one socket, the arrivals' wakes into the role, and
             # with critical sections of 200 yields (a 30-us clock step: the standby's patience and
             # budget run out: impatience, GRANTED, TIRED)
             "standby": [["--lock", "standby", "--client", "counter", "--threads", "2", "--sched", "full", "--hold", "10"],
                         ["--lock", "standby", "--client", "locks", "--client", "timed", "--threads", "3",
                          "--acquisitions", "2", "--sched", "random", "--iterations", "2000", "--clock-step", "30000",
                          "--hold", "10"],
                         ["--lock", "standby", "--client", "locks", "--client", "timed", "--threads", "3",
                          "--acquisitions", "2", "--sched", "random", "--iterations", "2000", "--clock-step", "30000",
                          "--hold", "10", "--cpus", "4"],
                         ["--lock", "standby", "--client", "locks", "--client", "timed", "--threads", "3",
                          "--acquisitions", "2", "--sched", "random", "--iterations", "20000", "--clock-step", "30000",
                          "--hold", "10", "--sockets", "1"],
                         ["--lock", "standby", "--client", "locks", "--client", "timed", "--threads", "3",
                          "--acquisitions", "2", "--sched", "random", "--iterations", "2000", "--clock-step", "30000",
                          "--hold", "200", "--sockets", "1"]]}


# The reader-writer locks (src/locks/rw_*.c, rw_wait.h): checked with the rw clients (--rwlock).
RW_SPECS = {"rw_pft.c": ["rw:pft", "rw:pft-park"], "rw_numa.c": ["rw:numarw", "rw:numarw-park"],
            "rw_bravo.c": ["rw:bravo", "rw:bravo-park"], "rw_pthread.c": [],
            "rw_readpref.c": ["rw:readpref-park", "rw:readpref-park:patience_ns=0"],
            "rw_gate.c": ["rw:rwgate-park", "rw:rwgate-park:patience_ns=0"],
            "rw_wait.h": ["rw:pft-park", "rw:numarw-park"]}


def covering(path):
    base = os.path.basename(path)
    name = base[:-2] if base.endswith(".c") else base
    if base in RW_SPECS:
        return RW_SPECS[base]
    if path.startswith("src/sync/"):
        return [SYNC]
    if path.startswith("src/wait/") or path in ("include/locklab/wait.h", "include/locklab/core.h",
                                                   "src/core/parker.c"):
        return PARK + SPIN_WAITWORD + [SYNC]
    if base == "mcs_queue.h":
        return MCS_FAMILY
    if base == "two_word.h":
        return ["parkinglot", "standby"]
    if base == "parkinglot.h":
        return ["parkinglot"]
    if base == "standby.h":
        return ["standby", "rw:rwgate-park"]  # rw_gate's gate: the ordered variants
    if base == "word_lock.h":
        return ["tas", "ttas"]
    if base == "passive_set.h":
        return ["mcscr", "mcscrn", "loiter"]
    if base == "standby.c":
        return ["standby", "rw:rwgate-park"]  # rw_gate's gate: the ordered variants
    spec = name.replace("_", "-")
    specs = [spec]
    if spec not in ("tas", "ttas", "backoff", "ticket", "ticket-pb", "loiter", "acr", "parkinglot", "standby"):  # no policies
        specs.append(spec + "-park")
    return specs + VARIANTS.get(spec, [])


def checks(spec):
    """locklab-check argument lists, run in order until one fails."""
    if spec == SYNC:
        return [["--lock", "tas", "--client", c, "--sched", "random", "--iterations", "3000", "--acquisitions", "2",
                 "--discipline", d]
                for d in ("fifo", "lifo-cr:append_one_in=2")
                for c in ("sem-mutex", "sem-handoff", "cond-signal", "cond-broadcast")] + \
               [["--lock", "tas", "--client", "barrier", "--acquisitions", "2", "--sched", "bound"]]
    if spec.startswith("rw:"):
        rw = spec[3:]
        return [["--rwlock", rw, "--client", "rws", "--threads", "2", "--acquisitions", "2", "--sched", "bound"],
                ["--rwlock", rw, "--client", "rws", "--threads", "3", "--acquisitions", "1", "--sched", "bound"],
                ["--rwlock", rw, "--client", "rws", "--threads", "3", "--acquisitions", "2", "--sched", "random",
                 "--iterations", "2000", "--hold", "3"]]
    full = [] if TOO_BIG.match(spec) else [["--lock", spec, "--client", "counter", "--threads", "2", "--sched", "full"]]
    return full + [
            ["--lock", spec, "--client", "locks", "--threads", "2", "--acquisitions", "2", "--sched", "bound"],
            ["--lock", spec, "--client", "locks", "--threads", "3", "--acquisitions", "1", "--sched", "bound"],
            ["--lock", spec, "--client", "locks", "--threads", "3", "--acquisitions", "2", "--sched", "random",
             "--iterations", "2000"],
            ["--lock", spec, "--client", "timed", "--threads", "3", "--acquisitions", "2", "--sched", "random",
             "--iterations", "2000"],
            # long critical sections (--hold): waiters run out of spinning and take their slow paths
            ["--lock", spec, "--client", "locks", "--threads", "3", "--acquisitions", "2", "--sched", "random",
             "--iterations", "2000", "--hold", "10"]] + HOLD_FULL.get(spec, []) + [
            # a lock dropped while held: the reclaim walks (ll_lock_ops.abandon) and the reuse of their nodes
            ["--lock", spec, "--client", "abandon", "--threads", "2", "--sched", "bound"],
            ["--lock", spec, "--client", "abandon", "--threads", "3", "--sched", "random", "--iterations", "2000"]]


def comment_spans(text):
    spans = []
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        spans.append((m.start(), m.end()))
    return spans


def inside(pos, spans):
    return any(a <= pos < b for a, b in spans)


VERB = re.compile(r"\bll_(load|store|xchg|cas|faa|fence)\s*\(")


def verb_before(text, pos):
    """The atomics verb whose argument list contains pos (the nearest one before it)."""
    best = None
    for m in VERB.finditer(text, max(0, pos - 400), pos):
        best = m.group(1)
    return best


def mutants(rel):
    text = open(os.path.join(ROOT, rel)).read()
    spans = comment_spans(text)
    out = []
    for m in re.finditer(r"\bLL_(SEQ_CST|ACQ_REL|ACQUIRE|RELEASE)\b|\bll_load_acquire\(|\bll_store_release\(", text):
        if inside(m.start(), spans):
            continue
        line = text.count("\n", 0, m.start()) + 1
        tok = m.group(0)
        if tok.startswith("ll_load_acquire"):
            out.append((line, m.start(), m.end(), tok, "ll_load_relaxed(", "acquire -> relaxed"))
            continue
        if tok.startswith("ll_store_release"):
            out.append((line, m.start(), m.end(), tok, "ll_store_relaxed(", "release -> relaxed"))
            continue
        verb = verb_before(text, m.start())
        if verb is None:
            continue  # an order not passed to a verb (a helper's parameter): mutated at its use
        if verb == "fence":
            # remove the whole fence call
            call = text.rfind("ll_fence", 0, m.start())
            end = text.index(")", m.end()) + 1
            out.append((line, call, end, text[call:end], "((void)0)", "fence removed"))
            continue
        order = m.group(1)
        rmw = verb in ("xchg", "cas", "faa")
        if order == "SEQ_CST":
            new = "LL_ACQ_REL" if rmw else "LL_ACQUIRE" if verb == "load" else "LL_RELEASE"
            out.append((line, m.start(), m.end(), tok, new, "seq_cst -> " + new[3:].lower()))
        elif order == "ACQ_REL":
            out.append((line, m.start(), m.end(), tok, "LL_ACQUIRE", "acq_rel -> acquire"))
            out.append((line, m.start(), m.end(), tok, "LL_RELEASE", "acq_rel -> release"))
        else:
            out.append((line, m.start(), m.end(), tok, "LL_RELAXED", order.lower() + " -> relaxed"))
    return [(rel,) + mu for mu in out]


def files():
    out = []
    for p in SCANNED:
        full = os.path.join(ROOT, p)
        if os.path.isdir(full):
            out += sorted(os.path.join(p, f) for f in os.listdir(full) if f.endswith((".c", ".h")))
        else:
            out.append(p)
    return [f for f in out if not f.endswith("pthread.c")]


class Worker:
    def __init__(self, n):
        self.tree = os.path.join(ROOT, "build", "mutate", "w%d" % n)
        self.build = os.path.join(self.tree, "build")

    def setup(self):
        if os.path.exists(self.tree):
            shutil.rmtree(self.tree)
        os.makedirs(self.tree)
        for d in ("src", "include", "verify", "tests", "bench", "sim", "python", "cmake", "docs", "examples", "tools",
                  "CMakeLists.txt"):
            src = os.path.join(ROOT, d)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(self.tree, d))
            elif os.path.exists(src):
                shutil.copy(src, os.path.join(self.tree, d))
        subprocess.run(["cmake", "-S", self.tree, "-B", self.build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                       check=True, stdout=subprocess.DEVNULL)
        self.make()

    def make(self):
        r = subprocess.run(["nice", "-n", "19", "ninja", "-C", self.build, "locklab-check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return r.returncode == 0, r.stdout

    def run(self, mu, timeout):
        rel, line, a, b, old, new, what = mu
        path = os.path.join(self.tree, rel)
        orig = open(os.path.join(ROOT, rel)).read()
        mutated = orig[:a] + new + orig[b:]
        open(path, "w").write(mutated)
        try:
            ok, log = self.make()
            if not ok:
                return "build failed", log[-300:]
            checker = os.path.join(self.build, "bin", "locklab-check")
            for spec in covering(rel):
                for args in checks(spec):
                    try:
                        r = subprocess.run(["nice", "-n", "19", checker] + args, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
                    except subprocess.TimeoutExpired:
                        continue  # bounded: no verdict from this check
                    for l in r.stdout.splitlines():
                        if l.startswith("FAIL"):
                            f = l.split()
                            err = l.split("error: ")[-1].strip() if "error: " in l else "exit %d" % r.returncode
                            return "caught", "%s %s %s %s: %s" % (f[1], f[2], f[3], f[4], err)
            return "not caught", ""
        finally:
            open(path, "w").write(orig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--table", default=os.path.join(ROOT, "build", "mutate", "table.md"))
    a = ap.parse_args()
    if a.jobs < 1:
        sys.exit("mutate.py: bad --jobs %d (valid: 1 or more)" % a.jobs)
    only = a.only.split(",")  # mutants whose "path:line" contains any of these
    mus = [mu for f in files() for mu in mutants(f) if any(o in "%s:%d" % (f, mu[1]) for o in only)]
    if not mus:
        sys.exit("mutate.py: no mutant in files matching '%s'" % a.only)
    print("mutate.py: %d mutants, %d jobs" % (len(mus), a.jobs), flush=True)
    workers = [Worker(i) for i in range(a.jobs)]
    with ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(lambda w: w.setup(), workers))
    free = list(workers)
    lock = threading.Lock()
    results = [None] * len(mus)

    def one(i):
        with lock:
            w = free.pop()
        try:
            t = time.time()
            verdict, detail = w.run(mus[i], a.timeout)
            results[i] = (verdict, detail)
            rel, line, _, _, old, new, what = mus[i]
            print("%-10s %s:%d %s  %s  (%.0f s)" % (verdict, rel, line, what, detail, time.time() - t), flush=True)
        finally:
            with lock:
                free.append(w)

    with ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(one, range(len(mus))))
    caught = sum(1 for r in results if r[0] == "caught")
    rows = ["| site | mutation | verdict | first failing check |", "| --- | --- | --- | --- |"]
    for mu, (verdict, detail) in zip(mus, results):
        rel, line, _, _, old, new, what = mu
        rows.append("| `%s:%d` | %s | %s | %s |" % (rel, line, what, verdict, detail.replace("|", "/")))
    os.makedirs(os.path.dirname(a.table), exist_ok=True)
    with open(a.table, "w") as f:
        f.write("\n".join(rows) + "\n\nScore: %d of %d mutants caught.\n" % (caught, len(mus)))
    print("%d caught, %d not caught (table: %s)" % (caught, len(mus) - caught, a.table))


if __name__ == "__main__":
    main()
