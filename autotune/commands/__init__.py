"""Sub-commands: each module has ``register(subparsers)`` that adds its parser with ``func=run``.

To add a command: write ``autotune/commands/<name>.py`` and append it to ``COMMANDS`` (order = help order).
"""
from autotune.commands import builders, build, inspect_cmd, profile, search, show, testbed, train
from autotune.commands import compare, dashboard, export, report
from autotune.commands import calibrate, validate_simulator

COMMANDS = [inspect_cmd, builders, build, show, search, testbed, profile, train, calibrate, validate_simulator,
            report, compare, export, dashboard]
