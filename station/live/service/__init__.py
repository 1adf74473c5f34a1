"""The station as a systemd service: readiness and watchdog (sd_notify), journald logging,
Prometheus metrics, the unit's install and the config check. I/O edges only; nothing here
is imported by the pure modules, and the daemon sees it only through two hooks.
"""
