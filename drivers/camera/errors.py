"""The camera extra's missing-library error and its fix, in a module of their own: the
package imports its reader, and the reader's decoders raise this, so neither imports the
other."""

from __future__ import annotations


class CameraUnavailable(ImportError):
    """The camera extra (OpenCV, a decoder, or Debian's libzbar0 for pyzbar) is missing."""


INSTALL_HINT = "install the camera extra: pip install 'dealer-station[camera]'"
