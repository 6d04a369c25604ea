"""Property tests draw their examples from a fixed seed, so a CI run is reproducible."""

from hypothesis import settings

settings.register_profile("simstudy", derandomize=True, deadline=None)
settings.load_profile("simstudy")
