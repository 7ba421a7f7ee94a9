"""`locklab sim`: the execution-driven simulator locklab-sim (docs/simulator.md)
from the locklab command.

  locklab sim WORKLOAD --lock SPEC --threads N --machine DESC|PRESET --duration SIM_SECONDS
              [--seed N] [--json] [--param KEY=VALUE]... [--runs R]
  locklab sim --explore N --lock SPEC [--threads N] [--machine M] [--seed N] [--acquisitions K]
              [--explore-steps S] [--verbose]        schedule exploration of the real lock code
  locklab sim --list-presets
  locklab sim validate [--out DIR] [--quick] ...     the validation matrix (simvalidate.py)

The first three run locklab-sim with the same arguments and pass its output, its
one-line errors and its exit status through unchanged: the simulator is the
authority on workloads, lock specs, machines and presets.  locklab-sim is
--sim-bin PATH, else $LOCKLAB_SIM, else the repository's build/bin, else the
one on PATH (or next to an installed locklab-bench).
"""

import subprocess
import sys

from . import bench, simvalidate
from .errors import UsageError

COMMAND = "sim"
HELP = "simulate a workload on a machine model (locklab-sim); `sim validate`: simulator vs measurements and papers"

# Options passed to locklab-sim as given: (option, dest, metavar, help)
FORWARDED = [
    ("--lock", "lock", "SPEC", "lock spec, as for locklab-bench"),
    ("--threads", "threads", "N", "simulated threads"),
    ("--machine", "machine", "DESC|PRESET", "[PRESET,]sockets=S,cores=C (per socket)[,smt=K,...] or a preset "
     "(--list-presets)"),
    ("--duration", "duration", "SIM_SECONDS", "simulated seconds"),
    ("--seed", "seed", "N", "seed of the simulation (same seed, same result)"),
    ("--explore", "explore", "N", "explore N seeded schedules of the lock's code instead (no WORKLOAD)"),
    ("--acquisitions", "acquisitions", "K", "--explore: acquisitions per thread"),
    ("--explore-steps", "explore_steps", "S", "--explore: steps before a schedule counts as no progress"),
]


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("workload", nargs="?", metavar="WORKLOAD|validate",
                   help="workload to simulate (as locklab-bench's), or `validate`")
    for option, dest, metavar, text in FORWARDED:
        p.add_argument(option, dest=dest, metavar=metavar, help=text)
    p.add_argument("--json", action="store_true", help="print the JSON result (locklab-bench's contract + "
                   "simulated, machine, seed, sim_events, host_seconds)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="workload parameter")
    p.add_argument("--verbose", action="store_true", help="--explore: say more")
    p.add_argument("--runs", metavar="R", help="repetitions (simulation: passed on; validate: runs per configuration)")
    p.add_argument("--list-presets", action="store_true", help="the simulator's machine presets, NAME<TAB>DESCRIPTION")
    p.add_argument("--sim-bin", metavar="PATH", help="locklab-sim to run (default: $LOCKLAB_SIM, the repository's "
                   "build/bin, else the one on PATH)")
    simvalidate.add_arguments(p)
    p.set_defaults(func=run)


def _given(args, names):
    """The options among `names` (dests) that were given on the command line."""
    return [n for n in names if getattr(args, n) not in (None, False, [])]


def forward(exe, argv):
    """Run the simulator with our stdin/stdout/stderr; its exit status (128+N for signal N)."""
    sys.stdout.flush()
    try:
        status = subprocess.run([str(exe), *argv]).returncode
    except OSError as e:
        raise UsageError(f"cannot run '{exe}': {e.strerror}") from None
    return 128 - status if status < 0 else status


def run(args):
    simulation = [dest for _, dest, _, _ in FORWARDED] + ["json", "param", "verbose"]
    if args.list_presets:
        extra = _given(args, simulation + ["runs"] + simvalidate.DESTS)
        if args.workload or extra:
            raise UsageError(f"--list-presets takes no workload nor other options (got "
                             f"{args.workload or '--' + extra[0].replace('_', '-')})")
        return forward(bench.locate_sim(args.sim_bin), ["--list-presets"])
    if args.workload is None and args.explore is None:
        raise UsageError("missing WORKLOAD (valid: a workload of locklab-sim, e.g. mutexbench; `validate`; "
                         "--explore N; or --list-presets)")
    if args.workload == "validate":
        extra = _given(args, simulation)
        if extra:
            raise UsageError(f"--{extra[0].replace('_', '-')} is for simulating one workload, not for `validate` "
                             f"(valid: {', '.join(simvalidate.OPTIONS)}, --runs, --sim-bin)")
        return simvalidate.run(args)
    extra = _given(args, simvalidate.DESTS)
    if extra:
        raise UsageError(f"--{extra[0].replace('_', '-')} is for `locklab sim validate`, not for simulating one "
                         "workload")
    argv = [args.workload] if args.workload else []
    for option, dest, _, _ in FORWARDED:
        if getattr(args, dest) is not None:
            argv += [option, getattr(args, dest)]
    for item in args.param:
        argv += ["--param", item]
    if args.runs is not None:
        argv += ["--runs", args.runs]
    if args.json:
        argv.append("--json")
    if args.verbose:
        argv.append("--verbose")
    return forward(bench.locate_sim(args.sim_bin), argv)
