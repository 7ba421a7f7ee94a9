"""UsageError: bad input from the user; the CLI prints its one-line message and exits 2."""


class UsageError(Exception):
    pass
