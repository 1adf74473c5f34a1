"""Layer 10, the live station: one table's process.

Loading the config, opening the devices of the kinds it names, assembling the daemon (the one
loop that owns ``Station``), its periodic clock and install checks, and ``service/``: systemd
readiness, watchdog, journald logs, metrics and the unit's install.
"""
