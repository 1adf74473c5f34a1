"""Layer 1, the game: pure baccarat and its money.

Cards and codes, the tableau, a round's outcome, the shoe's accounting, paytables'
settlement, the bet guard's exact values, the roads and the exact analysis. Nothing here does
I/O or knows there is a table, a dealer or a network; everything above builds on it.
"""
