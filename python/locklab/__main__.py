"""`python -m locklab` = the `locklab` command."""
import sys

from .cli import main

sys.exit(main())
