"""Layer 4, the wire contract: what crosses the station's boundary, byte for byte.

Upstream messages and their JSON Schemas, canonical JSON, Ed25519 signing, the commands a
station accepts, the status snapshot, the published feed, the journal's hash chain, the event
JSON of recordings, and the per-source budgets of what an outsider may send. A game server's
developer reads this package and docs/messages.md; nothing here opens a socket.
"""
