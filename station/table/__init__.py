"""Layer 2, the table: ``Station.apply``, one table's machine as pure functions of its inputs.

The dealing machine (``transitions``), the table's modes, dealers, procedures, pauses, shoe
integrity, the archive's acknowledgements and the commands a station takes. Pure: it imports
only ``station.game``, the exception tree and the drivers' event types, so a journal replays
to the same outputs on any machine.
"""
