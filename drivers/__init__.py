"""Device drivers: each turns bytes or frames from one device family into input events.

Nothing here imports ``station``: drivers know codes and edges, never what a card means for
the round. The shared vocabulary is ``drivers.events``.
"""
