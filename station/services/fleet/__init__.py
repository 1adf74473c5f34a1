"""``station fleet``: N simulated stations on one machine, each its own ``station run``
process with its own journal, key and table id, for the pit to be tested against
(docs/fleet.md). ``plan`` checks everything and writes nothing; ``supervise`` runs them."""
