"""Data sources: generators of learning problems (the first stage of the pipeline)."""

from .gaussian import GaussianClasses, berrar_benchmark_sources, berrar_cv_source

__all__ = ["GaussianClasses", "berrar_benchmark_sources", "berrar_cv_source"]
