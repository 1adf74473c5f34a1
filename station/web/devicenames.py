"""The station's devices named in plain words for the dealer's page, in English and Chinese,
declared once. Pure; shared by the plain reasons (station.web.plain), the notices
(station.web.words) and the page's script, which gets them from the server
(``page_names``, inlined into index.html by station.web.server) instead of a copy of its own."""


from __future__ import annotations

# Devices named in plain words; an unknown name (a site's own) is kept as an id.
DEVICES = {
    "scanner": ("the card scanner", "读牌器"),
    "sim-shoe": ("the card scanner", "读牌器"),
    "camera": ("the camera", "摄像头"),
    "cut-sensor": ("the cut-card sensor", "切牌感应器"),
    "upstream": ("the game server link", "游戏服务器连接"),
    "journal": ("the station's journal", "工作站日志"),
}


def device(name: str, zh: bool) -> str:
    en, cn = DEVICES.get(name, (name, name))
    return cn if zh else en


def page_names() -> dict[str, dict[str, str]]:
    """Every device's name per language, for the page's script (its device strip)."""
    return {name: {"en": en, "zh": zh} for name, (en, zh) in DEVICES.items()}
