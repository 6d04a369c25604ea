"""Data sources: generators of learning problems (the first stage of the pipeline)."""

from simstudy.pipeline.sources.bayesnet import (
    BayesNetSource,
    independent_source,
    load_source,
    random_augmented_nb,
    stored_sources,
)
from simstudy.pipeline.sources.gaussian import GaussianClasses, berrar_benchmark_sources, berrar_cv_source

__all__ = [
    "GaussianClasses",
    "berrar_benchmark_sources",
    "berrar_cv_source",
    "BayesNetSource",
    "independent_source",
    "random_augmented_nb",
    "load_source",
    "stored_sources",
]
