"""Layer 8, the pages: the dealer's web display and the local control API (docs/display.md).

``view`` and ``words`` are pure (the station as an immutable JSON view, and its Chinese
wording); ``hub`` hands views from the station's loop to the server's thread; ``server`` is
the aiohttp application in its own thread and event loop; ``pins`` keeps the supervisors'
hashed PINs; ``display`` is what the daemon calls after each event; ``site`` accepts the
server's connections and bounds them, and ``backlog`` measures what a page has not taken
(docs/operations.md, "Ceilings under abuse").
"""
