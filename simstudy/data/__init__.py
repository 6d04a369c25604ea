"""Data files: reading and writing Weka's ARFF format."""

from simstudy.data.arff import ArffData, read_arff, write_arff

__all__ = ["ArffData", "read_arff", "write_arff"]
