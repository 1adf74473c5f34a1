"""``station archive``: a copy of every table's journal off the dealer PC, rebuilt from the
stations' journal mirror (``<prefix>/<table>/journal``), verified as it arrives (signature,
then the hash chain), written one journal per station journal under ``archive.dir/<table>/``
and acknowledged to the station with a signed ``archived`` command. See docs/journal.md.
"""
