"""Running a program on a locklab lock through the interposer
(build/lib/liblocklab-preload.so): finding the library and building the
environment (LOCKLAB_LOCK, LOCKLAB_COND, LOCKLAB_SEM, LOCKLAB_PROFILE,
LOCKLAB_TOPOLOGY).  The interposer validates every value itself before the
program's main runs (one line, exit 2), so this module only assembles them.

The pseudo-lock "glibc" means: no interposer at all (the program's own glibc).
"""

import os
import subprocess
from pathlib import Path

from .bench import REPO
from .errors import UsageError

DEFAULT_PRELOAD = REPO / "build" / "lib" / "liblocklab-preload.so"
NATIVE = "glibc"


def locate(path=None):
    """The interposer: `path`, else $LOCKLAB_PRELOAD, else the repository's build."""
    given = path or os.environ.get("LOCKLAB_PRELOAD")
    lib = Path(given) if given else DEFAULT_PRELOAD
    if not lib.is_file():
        hint = "" if given else " (run `make` first, or pass --preload PATH)"
        raise UsageError(f"interposer not found at '{lib}'{hint}")
    return lib.resolve()


def environment(lib, lock, cond=None, sem=None, profile=None, topology=None, base=None):
    """The environment for one run of a program on `lock` (NATIVE: untouched;
    None: the interposer's default lock)."""
    env = dict(os.environ if base is None else base)
    for key in ("LOCKLAB_LOCK", "LOCKLAB_COND", "LOCKLAB_SEM", "LOCKLAB_PROFILE"):
        env.pop(key, None)
    if lock == NATIVE:
        if profile:
            raise UsageError("the profiler runs inside the interposer: pick a locklab lock, not 'glibc'")
        return env
    preload = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = f"{lib} {preload}".strip()
    if lock is not None:
        env["LOCKLAB_LOCK"] = lock
    for key, value in (("LOCKLAB_COND", cond), ("LOCKLAB_SEM", sem), ("LOCKLAB_PROFILE", profile),
                       ("LOCKLAB_TOPOLOGY", topology)):
        if value is not None:
            env[key] = str(value)
    return env


def check(env):
    """Let the interposer validate an environment (it checks every LOCKLAB_* value
    before main) by running /bin/true under it; raises UsageError with its message."""
    p = subprocess.run(["true"], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        raise UsageError(lines[-1] if lines else f"the interposer refused this environment (exit {p.returncode})")


def add_common_arguments(p):
    p.add_argument("--cond", metavar="SPEC", help="condition variable discipline: fifo | lifo-cr[:append_one_in=N]")
    p.add_argument("--sem", metavar="SPEC", help="semaphore discipline: fifo | lifo-cr[:append_one_in=N]")
    p.add_argument("--topology", metavar="SPEC", help="LOCKLAB_TOPOLOGY, e.g. sockets=2")
    p.add_argument("--preload", metavar="PATH", help="the interposer (default: the repository's build/lib)")
    p.add_argument("command", nargs="*", metavar="-- CMD [ARGS...]", help="the program to run")


def command_of(args):
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given (valid: ... -- CMD [ARGS...])")
    return cmd
