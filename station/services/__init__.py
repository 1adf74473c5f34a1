"""Layer 11, the services of many tables, each its own process beside the stations.

``broker`` (the shared MQTT set-up the others connect with), ``archive`` (the evidence off
the dealer PC), ``pit`` (the pit bosses' floor) and ``fleet`` (many simulated tables for a
lab). They read the stations' messages through ``station.client``.
"""
