"""`locklab run --lock SPEC [--cond ..] [--sem ..] [--profile PATH] -- CMD ARGS`:
run an unmodified, dynamically linked program with its pthread mutexes,
condition variables and semaphores on a locklab lock.  The program's exit
status is returned; its output is untouched."""

import os
import sys

from . import preload


COMMAND = "run"
HELP = "run a program on a locklab lock (LD_PRELOAD interposer)"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("--lock", required=True, metavar="SPEC", help="lock spec (see locklab-bench --list), "
                   "or 'glibc' for the program's own mutexes")
    p.add_argument("--profile", metavar="PATH", help="also write the contention profile to PATH (or - for stderr)")
    preload.add_common_arguments(p)
    p.set_defaults(func=run)


def run(args):
    cmd = preload.command_of(args)
    lib = preload.locate(args.preload) if args.lock != preload.NATIVE else None
    if lib:
        preload.require_dynamic(cmd[0])
    env = preload.environment(lib, args.lock, args.cond, args.sem, args.profile, args.topology)
    sys.stdout.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        print(f"locklab run: cannot run '{cmd[0]}': {e.strerror}", file=sys.stderr)
        return 127
