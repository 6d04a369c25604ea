"""Sub-commands of the ``simstudy`` command line; each module has ``register(subparsers)``."""

COMMAND_MODULES = (
    "simstudy.cli.commands.replication_probability",
    "simstudy.cli.commands.engine",
    "simstudy.cli.commands.compare",
    "simstudy.cli.commands.bench",
    "simstudy.cli.commands.report",
    "simstudy.cli.commands.assess",
    "simstudy.cli.commands.proving_ground",
    "simstudy.cli.commands.reproduce",
    "simstudy.cli.commands.solve",
)

# The STUDY argument of every command that takes one (resolved by simstudy.engine.get_study).
STUDY_HELP = "a study name (see `simstudy list`) or the path of a .py file defining STUDY = Study(...)"
