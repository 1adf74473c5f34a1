"""Layer 7, the links upstream: the outlets that carry the wire contract off the station.

MQTT (with TLS, the journal mirror and outages kept in the outbox), the file outlet, the
published-rounds sinks and the stream a replay or ``simulate --messages`` writes. I/O edges:
the pure layers below never import them.
"""
