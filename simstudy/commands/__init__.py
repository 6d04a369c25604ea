"""Sub-commands of the ``simstudy`` command line; each module has ``register(subparsers)``."""

COMMAND_MODULES = (
    "simstudy.commands.replication_probability",
    "simstudy.commands.engine",
    "simstudy.commands.compare",
    "simstudy.commands.bench",
    "simstudy.commands.report",
    "simstudy.commands.assess",
    "simstudy.commands.proving_ground",
    "simstudy.commands.solve",
)

# The STUDY argument of every command that takes one (resolved by simstudy.engine.get_study).
STUDY_HELP = "a study name (see `simstudy list`) or the path of a .py file defining STUDY = Study(...)"
