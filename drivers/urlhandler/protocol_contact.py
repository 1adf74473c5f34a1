"""``contact://NAME``: a simulated cut-card contact on a modem-status pin, for pyserial.

Add this package to pyserial's handlers (``serial.protocol_handler_packages.append(
"drivers.urlhandler")``) and the real ``CutCardSensor`` opens ``contact://shoe-1`` as it
would open a USB-serial adapter. A test closes and opens the contact, or pulls the "cable",
through ``CONTACTS[name]``: the driver sees the pins and the failures a real adapter gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import serial
from serial.serialutil import PortNotOpenError, SerialBase, SerialException


@dataclass
class Contact:
    closed: bool = False  # the cut card is in the shoe's mouth
    pin: str = "cts"
    plugged: bool = True


CONTACTS: dict[str, Contact] = {}


class Serial(SerialBase):
    """The adapter: reading a pin fails once the contact's cable is pulled."""

    def open(self) -> None:
        url = str(self.port or "")
        contact = CONTACTS.get(url.removeprefix("contact://"))
        if contact is None or not contact.plugged:
            raise SerialException(f"could not open port {url}: no such device")
        self._contact = contact
        self.is_open = True

    def close(self) -> None:
        self.is_open = False

    def from_url(self, url: str) -> str:
        return url

    def _pin(self, pin: str) -> bool:
        if not self.is_open:
            raise PortNotOpenError()
        if not self._contact.plugged:
            raise SerialException("device reports readiness to read but returned no data "
                                  "(device disconnected?)")
        return self._contact.closed and self._contact.pin == pin

    @property
    def cts(self) -> bool:
        return self._pin("cts")

    @property
    def dsr(self) -> bool:
        return self._pin("dsr")

    @property
    def ri(self) -> bool:
        return self._pin("ri")

    @property
    def cd(self) -> bool:
        return self._pin("cd")

    # The sensor never reads data; these make it a complete pyserial port.
    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        return b""

    def write(self, data: Any) -> int:
        return len(data)

    def reset_input_buffer(self) -> None:
        pass

    def reset_output_buffer(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass

    def _update_dtr_state(self) -> None:
        pass

    def _update_break_state(self) -> None:
        pass


__all__ = ["CONTACTS", "Contact", "Serial", "serial"]
