"""locklab: the command-line laboratory around locklab-bench (the build tree's, or an installed one)."""
from importlib import metadata

try:
    __version__ = metadata.version("locklab") # python/pyproject.toml's, as installed
except metadata.PackageNotFoundError:          # run from the source tree without installing
    __version__ = "unknown"
