"""The broker set-up the services share: one ``broker:`` section parser, one MQTT client."""
