"""Applications built on studies: ``assess`` for a practitioner's data, the proving ground, ``bench``."""
