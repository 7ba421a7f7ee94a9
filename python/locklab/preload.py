"""Running a program on a locklab lock through the interposer
(liblocklab-preload.so): finding the library and building the
environment (LOCKLAB_LOCK, LOCKLAB_COND, LOCKLAB_SEM, LOCKLAB_PROFILE,
LOCKLAB_TOPOLOGY).  The interposer validates every value itself before the
program's main runs (one line, exit 2), so this module only assembles them.
What it cannot say is that it was never loaded: require_dynamic refuses a
program that the dynamic loader does not start with glibc (a static one).

The pseudo-lock "glibc" means: no interposer at all (the program's own glibc).
"""

import os
import shutil
import struct
import subprocess
from pathlib import Path

from .bench import REPO, installed_prefix
from .errors import UsageError

DEFAULT_PRELOAD = REPO / "build" / "lib" / "liblocklab-preload.so"
NATIVE = "glibc"


def installed(prefix):
    """PREFIX/LIBDIR/locklab/liblocklab-preload.so as `make install` lays it out
    (LIBDIR: lib, lib64 or lib/<multiarch>), or None."""
    for libdir in [prefix / "lib", prefix / "lib64", *sorted((prefix / "lib").glob("*-linux-*"))]:
        lib = libdir / "locklab" / "liblocklab-preload.so"
        if lib.is_file():
            return lib
    return None


def locate(path=None):
    """The interposer: `path`, else $LOCKLAB_PRELOAD, else the repository's
    build, else the one installed with the locklab-bench on PATH."""
    given = path or os.environ.get("LOCKLAB_PRELOAD")
    if given:
        if not Path(given).is_file():
            raise UsageError(f"interposer not found at '{given}'")
        return Path(given).resolve()
    if DEFAULT_PRELOAD.is_file():
        return DEFAULT_PRELOAD.resolve()
    prefix = installed_prefix()
    lib = installed(prefix) if prefix is not None else None
    if lib is None:
        raise UsageError(f"interposer not found at '{DEFAULT_PRELOAD}' nor installed next to a locklab-bench on PATH "
                         "(run `make` or `make install` first, or pass --preload PATH)")
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


PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


def elf_linkage(path):
    """None if `path` is not an ELF file, else (program interpreter or None, DT_NEEDED names)."""
    with open(path, "rb") as f:
        ident = f.read(64)
        if len(ident) < 52 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2) or ident[5] not in (1, 2):
            return None
        wide, end = ident[4] == 2, "<" if ident[5] == 1 else ">"

        def read(offset, fmt):
            f.seek(offset)
            raw = f.read(struct.calcsize(end + fmt))
            return struct.unpack(end + fmt, raw) if len(raw) == struct.calcsize(end + fmt) else None

        phoff, phentsize, phnum = (read(32, "Q")[0], *read(54, "HH")) if wide else (read(28, "I")[0], *read(42, "HH"))
        segments = []  # (type, file offset, address, size in the file)
        for i in range(phnum):
            h = read(phoff + i * phentsize, "I4xQQ8xQ" if wide else "IIIxxxxI")
            if h:
                segments.append(h)

        def string(offset, limit=4096):
            f.seek(offset)
            return f.read(limit).split(b"\0")[0].decode(errors="replace")

        interp = next((string(o, n) for t, o, _, n in segments if t == PT_INTERP), None)
        dynamic = next(((o, n) for t, o, _, n in segments if t == PT_DYNAMIC), None)
        if not dynamic:
            return interp, []
        entry = "qQ" if wide else "iI"
        tags = []
        for k in range(dynamic[1] // struct.calcsize(end + entry)):
            tag = read(dynamic[0] + k * struct.calcsize(end + entry), entry)
            if not tag or tag[0] == DT_NULL:
                break
            tags.append(tag)
        strtab = next((v for t, v in tags if t == DT_STRTAB), None)
        base = next((o + strtab - a for t, o, a, n in segments if t == PT_LOAD and strtab is not None
                     and a <= strtab < a + n), None)
        return interp, [string(base + v) for t, v in tags if t == DT_NEEDED and base is not None]


def require_dynamic(program):
    """Raise UsageError unless the interposer can take over `program`'s locks: an ELF
    program must name a program interpreter (the dynamic loader, which loads LD_PRELOAD)
    and need glibc's libc.so.6.  Scripts and programs not found are left to the exec."""
    path = program if "/" in program else shutil.which(program)
    if not path or not os.path.isfile(path):
        return
    try:
        linkage = elf_linkage(path)
    except (OSError, TypeError, ValueError, struct.error):
        return  # unreadable or malformed: the exec says why
    if linkage is None:
        return
    interp, needed = linkage
    if interp is None:
        raise UsageError(f"'{path}' is statically linked (no program interpreter): the interposer cannot be "
                         "loaded into it and its locks would stay its own (valid: a dynamically linked program)")
    if not any(n.startswith("libc.so") for n in needed):
        raise UsageError(f"'{path}' does not link glibc's libc.so.6 dynamically (needs: {', '.join(needed) or 'nothing'})"
                         ": the interposer cannot take over its locks (valid: a program linked with glibc)")


def add_common_arguments(p):
    p.add_argument("--cond", metavar="SPEC", help="condition variable discipline: fifo | lifo-cr[:append_one_in=N]")
    p.add_argument("--sem", metavar="SPEC", help="semaphore discipline: fifo | lifo-cr[:append_one_in=N]")
    p.add_argument("--topology", metavar="SPEC", help="LOCKLAB_TOPOLOGY, e.g. sockets=2")
    p.add_argument("--preload", metavar="PATH", help="the interposer (default: the repository's build/lib, "
                   "else the one installed with the locklab-bench on PATH)")
    p.add_argument("command", nargs="*", metavar="-- CMD [ARGS...]", help="the program to run")


def command_of(args):
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given (valid: ... -- CMD [ARGS...])")
    return cmd
