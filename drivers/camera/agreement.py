"""When a decoded payload counts: agreement over consecutive frames, once per pass.

Pure (no I/O, no OpenCV). A payload is accepted when it was decoded in ``agree_frames``
consecutive frames: a misread is a one-frame accident far more often than a repeated one, and
a misread card is worse than an unread one (the dealer re-shows an unread card; a misread one
may be dealt). An accepted payload is reported once while it stays in view; it can be reported
again only after it has been absent for ``release_frames`` consecutive frames (the card has
left the region of interest). Nothing is ever de-duplicated by value across the shoe: eight
decks hold eight of each card, and the second ace of spades passes like the first.

Frames are counted, not seconds, so a replay of a video file gives the same answer on any
machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(slots=True)
class _Track:
    streak: int = 0  # consecutive frames the payload was decoded in, up to this one
    absent: int = 0  # consecutive frames it was not decoded in since it was last seen
    reported: bool = False  # accepted during this pass


class Agreement:
    """Feed it the payloads of each frame in order; it says which ones are newly accepted."""

    def __init__(self, agree_frames: int = 2, release_frames: int = 5) -> None:
        if agree_frames < 1 or release_frames < 1:
            raise ValueError(f"agree_frames and release_frames must be at least 1, not "
                             f"{agree_frames} and {release_frames}")
        self.agree_frames = agree_frames
        self.release_frames = release_frames
        self._tracks: dict[str, _Track] = {}

    def update(self, payloads: Iterable[str]) -> list[str]:
        """The payloads decoded in one frame (repeats ignored); returns those accepted now,
        in the order given."""
        seen = list(dict.fromkeys(payloads))
        accepted: list[str] = []
        for payload in seen:
            track = self._tracks.setdefault(payload, _Track())
            track.streak += 1
            track.absent = 0
            if not track.reported and track.streak >= self.agree_frames:
                track.reported = True
                accepted.append(payload)
        present = set(seen)
        for payload in [p for p in self._tracks if p not in present]:
            track = self._tracks[payload]
            track.streak = 0
            track.absent += 1
            if track.absent >= self.release_frames:
                del self._tracks[payload]  # gone long enough: the next pass is a new card
        return accepted

    def pending(self) -> int:
        """Payloads being tracked (in view or recently seen); bounded by what a few frames
        hold."""
        return len(self._tracks)
