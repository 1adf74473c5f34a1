"""The pit: one console for every table of a studio's broker (docs/pit.md).

``station pit -c PIT.yaml`` subscribes to every table's events and status, checks them with
the client library (station.client), keeps alerts, serves the floor and table pages and a
JSON API, and sends the pit bosses' actions to the tables as signed commands."""
