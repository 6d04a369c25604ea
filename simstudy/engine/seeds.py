"""Seeds from identity.

The random stream of a replication depends only on (root seed, study, condition
key, replication index), never on the worker, the chunk, the order of execution
or whether the run was resumed.  The identity is hashed with SHA-256 (stable
across processes and Python versions, unlike ``hash``) and the first 63 bits
are the replication's seed, stored in every row so that one replication can be
replayed alone with ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["replication_seed", "setup_seed", "replication_rng"]


def _hash63(*parts) -> int:
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def replication_seed(root_seed: int, study: str, condition: str, replication: int) -> int:
    """The 63-bit seed of one replication.

    Parameters
    ----------
    root_seed : int
        The run's root seed.
    study, condition : str
        The study's name and the condition's key.
    replication : int
        The replication's number within its condition.

    Returns
    -------
    int
        A seed in [0, 2**63), a hash of the four arguments.
    """
    return _hash63("replication", int(root_seed), study, condition, int(replication))


def setup_seed(root_seed: int, study: str, condition: str) -> int:
    """The seed of a condition's shared set-up (independent of every replication's stream).

    Parameters
    ----------
    root_seed : int
        The run's root seed.
    study, condition : str
        The study's name and the condition's key.

    Returns
    -------
    int
        A seed in [0, 2**63).
    """
    return _hash63("setup", int(root_seed), study, condition)


def replication_rng(root_seed: int, study: str, condition: str, replication: int) -> np.random.Generator:
    """The random generator of one replication, seeded from its identity.

    Parameters
    ----------
    root_seed : int
        The run's root seed (``--seed``).
    study, condition : str
        The study's name and the condition's key.
    replication : int
        The replication's number within its condition.

    Returns
    -------
    numpy.random.Generator
        Seeded with :func:`replication_seed` of the same arguments, so a
        replication draws the same numbers whichever worker runs it, in any order.
    """
    return np.random.default_rng(replication_seed(root_seed, study, condition, replication))
