"""Study declarations: one module per published study (see :mod:`simstudy.engine`)."""
