"""The machine and build a sweep ran on, stored as DIR/meta.json next to results.csv.

Fields: cpu_model, cpus (online CPUs), kernel, glibc, compiler (read from the
bench binary's .comment section, else `cc --version`), git_revision (of the
work tree the bench was built in; "-dirty" with uncommitted changes), date (UTC, ISO 8601),
command (the command line), bench (its path), and the sweep's configuration.
A simulated sweep (`sweep --sim MACHINE`) adds "simulated": true, "machine"
(MACHINE as given) and "machine_model" (the simulator's parsed machine); the
host fields then describe the computer that ran the simulator.
"""

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

from .bench import REPO


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        return " ".join(platform.libc_ver()) or "unknown"


def _compiler(bench):
    """GCC and clang record their version in the binary's .comment section."""
    try:
        with open(bench, "rb") as f:
            data = f.read()
        found = re.search(rb"(GCC: \([^)]*\) [0-9][\w.\-]*|clang version [0-9][\w.\-]*)", data)
        if found:
            return found.group(1).decode(errors="replace")
    except OSError:
        pass
    try:
        out = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout
        return out.splitlines()[0] + " (cc --version; not read from the bench)" if out else "unknown"
    except OSError:
        return "unknown"


def git_revision(bench=None):
    """The revision of the work tree holding `bench` (the code that was measured),
    else of this package's repository."""
    where = Path(bench).resolve().parent if bench else REPO
    try:
        rev = subprocess.run(["git", "-C", str(where), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True)
        if rev.returncode != 0 and where != REPO:
            return git_revision()
        if rev.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev.stdout.strip() + ("-dirty" if dirty else "")
    except OSError:
        return "unknown"


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def collect(bench, config, machine_model=None):
    """Everything meta.json records, for a sweep with `config` run on `bench`
    (or simulated by it: config["sim"] names the machine)."""
    simulated = {"simulated": True, "machine": config["sim"], "machine_model": machine_model} \
        if config.get("sim") else {}
    return {
        "cpu_model": _cpu_model(),
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "glibc": _glibc(),
        "compiler": _compiler(bench),
        "git_revision": git_revision(bench),
        "date": now_utc(),
        "command": shlex.join(["locklab", *sys.argv[1:]]),
        "bench": str(bench),
        "config": config,
        **simulated,
    }


def simulated_machine(meta):
    """The machine a sweep was simulated on (its --sim MACHINE), or None for a measured one."""
    return (meta.get("machine") or "?") if meta.get("simulated") else None


def source_label(meta):
    """'simulated on MACHINE' or 'measured': what every table and plot of the results says."""
    machine = simulated_machine(meta)
    return f"simulated on {machine}" if machine else "measured"


def machine_line(meta):
    """One line naming the machine, for plot footers and report headers."""
    if simulated_machine(meta):
        return (f"simulated on {simulated_machine(meta)} by locklab-sim {meta.get('git_revision', '?')} "
                f"(host: {meta.get('cpu_model', '?')}, {meta.get('cpus', '?')} CPUs), {meta.get('date', '?')}")
    return (f"{meta.get('cpu_model', '?')}, {meta.get('cpus', '?')} CPUs, Linux {meta.get('kernel', '?')}, "
            f"{meta.get('glibc', '?')}, {meta.get('compiler', '?')}, locklab {meta.get('git_revision', '?')}, "
            f"{meta.get('date', '?')}")
