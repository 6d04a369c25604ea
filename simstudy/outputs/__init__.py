"""Outputs: stored runs read back, tables, the comparison with published numbers, reports and figures."""
