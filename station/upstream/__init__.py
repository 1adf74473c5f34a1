"""What leaves the station for the game server: the outbox contract, signing, publishers.

An I/O edge: nothing in the pure core imports it.
"""
