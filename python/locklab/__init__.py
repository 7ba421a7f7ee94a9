"""locklab: the command-line laboratory around build/bin/locklab-bench."""
