"""Berrar, "Estimating the replication probability of significant benchmark experiments": the four
simulation studies (Algorithms 1-4) and the rows each gives to his Table 1."""
