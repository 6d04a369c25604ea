"""Data files: Weka's ARFF format, and the UCI data sets shipped with the package."""

from simstudy.pipeline.data.arff import ArffData, read_arff, write_arff
from simstudy.pipeline.data.uci import MISSING_UCI, load_uci, uci_datasets

__all__ = ["ArffData", "read_arff", "write_arff", "load_uci", "uci_datasets", "MISSING_UCI"]
