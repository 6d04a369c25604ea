"""Summaries computed from stored rows (kept here for the engine's users; see :mod:`simstudy.summaries`)."""

from __future__ import annotations

from ..summaries import clopper_pearson, rejection_summary

__all__ = ["clopper_pearson", "rejection_summary"]
