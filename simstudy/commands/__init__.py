"""Sub-commands of the ``simstudy`` command line; each module has ``register(subparsers)``."""

COMMAND_MODULES = (
    "simstudy.commands.replication_probability",
    "simstudy.commands.engine",
    "simstudy.commands.compare",
    "simstudy.commands.bench",
    "simstudy.commands.report",
)
