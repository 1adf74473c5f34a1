"""The floor sees the evidence's troubles (issue 33): the pit takes the archive's signed alerts
from ``<prefix>/+/archive`` (storage, gap, refused, recovered) onto the table's tile and the
alert list, with their urgency and words in both languages; a forged one is the table's
``schema`` problem; and when the pit itself loses the broker the floor says so, and marks
every tile stale past the keep-alive. Real mosquitto, a real pit and a real archive."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.services.pit.alerts import URGENCY
from station.wire.messages import iso_ts
from station.wire.signing import Signer, public_pem
from tests.archive.archivekit import start_archive, write_archive_config
from tests.archive.test_archive_live import stop
from tests.pit.pagekit import Publisher
from tests.pit.pitkit import Pit, PitFolder
from tests.pit.test_pit_pages_browser import CLIPPED
from tests.upstream.broker import Broker, wait_until

TABLE = "t7"


def archive_alert(key: Ed25519PrivateKey, problem: str, detail: str, **more: Any) -> bytes:
    """As station.services.archive.service publishes one."""
    return Signer(key).sign({
        "v": 1, "kind": "archive_alert", "table": TABLE, "ts": iso_ts(0.0), "archive": "dc1",
        "problem": problem, "detail": detail, "journal": "ab" * 32, "seq": 7,
        "not_published": 0, **more})


@pytest.fixture
def site(tmp_path: Path, broker: Broker) -> Iterator[tuple[Pit, Ed25519PrivateKey, Path]]:
    keys = tmp_path / "keys"
    keys.mkdir()
    table_key = Ed25519PrivateKey.generate()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(table_key.public_key()))
    archive_config, archive_key = write_archive_config(tmp_path / "archive", broker, keys)
    folder = PitFolder(tmp_path / "pit")
    config = folder.config(broker.port, keys)
    (folder.dir / "archive.pub.pem").write_bytes(public_pem(archive_key.public_key()))
    cfg = yaml.safe_load(config.read_text())
    cfg["pit"]["archive_key_file"] = "archive.pub.pem"
    config.write_text(yaml.safe_dump(cfg))
    pit = Pit(config, folder.port)
    try:
        wait_until(lambda: pit.tile(TABLE) is not None and pit.get("/api/tables")["broker"][
            "connected"], 60, "the pit connected", 0.05)
        yield pit, archive_key, archive_config
    finally:
        pit.close()


def test_each_archive_alert_reaches_the_tile_and_the_list_in_both_languages(
        site: tuple[Pit, Ed25519PrivateKey, Path], broker: Broker) -> None:
    pit, key, _ = site
    sender = Publisher(broker.port)
    topic = f"baccarat/{TABLE}/archive"
    try:
        for problem, kind in (("storage", "archive_storage"), ("gap", "archive_gap"),
                              ("chain", "archive_refused")):
            sender.publish([(topic, archive_alert(key, problem, f"the {problem} detail"))])
            wait_until(lambda k=kind: bool(pit.alerts(kind=k, table=TABLE)), 30,  # type: ignore[misc]
                       f"the {kind} alert", 0.02)
        tile = pit.tile(TABLE)
        assert tile is not None and "alert" in tile["needs"] and tile["open_alerts"] == 3
        listed = pit.get("/api/alerts")["alerts"]
        storage = next(a for a in listed if a["kind"] == "archive_storage")
        assert storage["by"] == "archive dc1" and storage["detail"] == "the storage detail"
        assert storage["say"]["en"]["kind"] == "Archive cannot write"
        assert storage["say"]["zh"]["kind"] == "归档无法写入"
        assert URGENCY["archive_storage"] == URGENCY["archive_gap"] == 1
        # The end of the outage clears its alert and stays for the record.
        sender.publish([(topic, archive_alert(key, "recovered", "writing again after 3.0 s"))])
        wait_until(lambda: bool(pit.alerts(kind="archive_recovered")), 30, "recovered", 0.02)
        storage = next(a for a in pit.get("/api/alerts")["alerts"]
                       if a["kind"] == "archive_storage")
        assert storage["cleared_at"] is not None
        # Forged (another key): not an archive alert, the table's stream problem.
        sender.publish([(topic, archive_alert(Ed25519PrivateKey.generate(), "storage", "x"))])
        wait_until(lambda: bool(pit.alerts(kind="schema", table=TABLE)), 30, "schema", 0.02)
        assert len(pit.alerts(kind="archive_storage")) == 1
    finally:
        sender.close()


def test_a_real_archives_refusal_is_on_the_floor(site: tuple[Pit, Ed25519PrivateKey, Path],
                                                 broker: Broker) -> None:
    pit, _, archive_config = site
    archive = start_archive(archive_config)
    sender = Publisher(broker.port)
    try:
        wait_until(lambda: "connected" in (archive_config.parent / "archive.log").read_text(),
                   30, "the archive", 0.05)
        sender.publish([(f"baccarat/{TABLE}/journal", b'{"kind": "journal", "v": 1}')])
        wait_until(lambda: bool(pit.alerts(kind="archive_refused", table=TABLE)), 30,
                   "the archive's refusal on the floor", 0.02)
    finally:
        sender.close()
        stop(archive)


def test_the_floor_says_when_the_pit_lost_the_broker_and_marks_tiles_stale(
        site: tuple[Pit, Ed25519PrivateKey, Path], broker: Broker) -> None:
    pit, _, _ = site
    body = pit.get("/api/tables")
    assert body["broker"]["connected"] and not body["tables"][0]["stale"]
    broker.stop()
    wait_until(lambda: not pit.get("/api/tables")["broker"]["connected"], 30, "lost", 0.05)
    body = pit.get("/api/tables")
    assert body["broker"]["say"]["en"].startswith("The pit has lost the broker")
    assert body["broker"]["say"]["zh"].startswith("巡场系统与消息服务器断开")
    # Past the keep-alive (5 s in this config) what the tiles say may be old.
    wait_until(lambda: pit.get("/api/tables")["tables"][0]["stale"], 30, "stale", 0.1)
    broker.start()
    wait_until(lambda: pit.get("/api/tables")["broker"]["connected"], 60, "back", 0.05)
    body = pit.get("/api/tables")
    assert body["broker"]["say"]["en"] == "" and not body["tables"][0]["stale"]


@pytest.mark.parametrize(("lang", "size"), [("en", (1280, 800)), ("zh", (1366, 768))])
def test_the_floor_page_says_the_broker_is_lost_above_the_tiles_never_over_them(
        site: tuple[Pit, Ed25519PrivateKey, Path], broker: Broker, chromium: Any, lang: str,
        size: tuple[int, int]) -> None:
    pit, _, _ = site
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        page.goto(f"{pit.base}/?lang={lang}")
        page.wait_for_function("window.__renders > 0", timeout=30000)
        live = {"en": "LIVE", "zh": "已连接"}[lang]
        page.wait_for_function(f"document.querySelector('#conn').textContent === '{live}'",
                               timeout=30000)
        assert page.locator("#link-lost").is_hidden()
        broker.stop()
        page.wait_for_selector("#link-lost", state="visible", timeout=30000)
        said = pit.get("/api/tables")["broker"]["say"][lang]
        assert page.inner_text("#link-lost") == said
        # The badge agrees with the banner: never "LIVE" while the floor is not updated.
        assert page.inner_text("#conn") == {"en": "NO BROKER", "zh": "消息服务器断开"}[lang]
        # A row of its own: below the bar, above every tile, on the screen, clipping nothing.
        banner = page.eval_on_selector("#link-lost", "e => e.getBoundingClientRect().toJSON()")
        bar = page.eval_on_selector("#bar", "e => e.getBoundingClientRect().bottom")
        assert banner["top"] >= bar - 0.5 and banner["right"] <= size[0] + 0.5
        tops = page.eval_on_selector_all("#tiles .tile",
                                         "ts => ts.map(t => t.getBoundingClientRect().top)")
        assert tops and min(tops) >= banner["bottom"] - 0.5
        floor = page.eval_on_selector("#floor", "e => e.getBoundingClientRect().bottom")
        assert floor <= size[1] + 0.5
        assert page.evaluate(CLIPPED) == []
        broker.start()
        page.wait_for_selector("#link-lost", state="hidden", timeout=60000)
        page.wait_for_function(f"document.querySelector('#conn').textContent === '{live}'",
                               timeout=30000)
    finally:
        context.close()
