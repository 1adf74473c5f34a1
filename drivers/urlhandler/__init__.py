"""pyserial URL handlers for simulated devices (``serial.protocol_handler_packages``)."""
