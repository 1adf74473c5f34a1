"""The station's devices named in plain words for the dealer's page, in English and Chinese.
Pure; shared by the plain reasons (station.web.plain) and the notices (station.web.words)."""


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
