"""The `locklab` command: argparse subcommands, one module each.

Adding a subcommand = one module with COMMAND (its name), HELP (one line) and
`register(p)` (which fills the subcommand's parser, made here with the module
docstring's first paragraph as description, and calls `set_defaults(func=...)`)
+ one entry in SUBCOMMANDS.  A UsageError (bad input)
prints one line and exits 2; so does any argparse error, and an OSError no
subcommand caught (a file that cannot be read or written).
"""

import argparse
import sys

from . import __version__, advise, apps, bench, compare, model, profiler, report, runner, schema, sim, sweep
from .errors import UsageError

SUBCOMMANDS = [sweep, report, compare, sim, runner, profiler, advise, apps, model]


class OneLineParser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr (no usage block) and exit 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser():
    parser = OneLineParser(prog="locklab", description="locklab laboratory: sweeps, reports and comparisons "
                           "of locklab-bench measurements and locklab-sim simulations")
    # Same line as `locklab-bench --version`: one version for the library, the bench and this package.
    parser.add_argument("--version", action="version", version=f"locklab {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for module in SUBCOMMANDS:
        module.register(subparsers.add_parser(module.COMMAND, help=module.HELP,
                                              description=module.__doc__.split("\n\n")[0]))
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    prog = f"locklab {args.subcommand}"
    try:
        return args.func(args)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except (bench.BenchFailed, schema.SchemaError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except OSError as e:  # a file the subcommands did not check up front: one line, not a traceback
        where = f"'{e.filename}': " if e.filename else ""
        print(f"{prog}: {where}{e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
