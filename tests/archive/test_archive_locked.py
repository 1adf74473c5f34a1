"""A station and the archive as real processes on the studio's locked broker (issue 32): each
connects over TLS with its own client certificate by config (``tls: {ca_file, cert_file,
key_file}``), the station's sealed mirror reaches the archive, which ends holding the
station's journal, verified; a game server subscribed to everything gets the table's events
and status and not one journal message."""

from __future__ import annotations

import signal
from pathlib import Path
from types import SimpleNamespace

import yaml

from tests.archive.archivekit import TABLE, archive_log, caught_up, make_site, start_archive
from tests.archive.test_archive_live import same_journal
from tests.brokerkit import locked_studio
from tests.stationkit import finish, start, wait_for


def test_the_station_and_the_archive_work_through_the_locked_broker(tmp_path: Path) -> None:
    studio = locked_studio(tmp_path / "studio", tables=[TABLE], archives=["dc1"],
                           game_servers=["gs1"])
    game = studio.party("game-gs1")
    archive = None
    try:
        game.wait()
        game.subscribe("#")
        (tmp_path / "site").mkdir()
        site = make_site(tmp_path / "site", SimpleNamespace(port=studio.port),  # type: ignore[arg-type]
                         seed=43)
        station = yaml.safe_load(site.station_config.read_text())
        station["upstream"]["tls"] = studio.files(f"station-{TABLE}")
        site.station_config.write_text(yaml.safe_dump(station))
        config = yaml.safe_load(site.archive_config.read_text())
        config["broker"]["tls"] = studio.files("archive-dc1")
        site.archive_config.write_text(yaml.safe_dump(config))
        archive = start_archive(site.archive_config)
        wait_for(lambda: "connected" in archive_log(site.archive_config), 30, "the archive")
        finish(start(site.station_config), site.station_config, 120)
        wait_for(lambda: caught_up(site), 60, "the archive to hold the whole journal")
    finally:
        if archive is not None and archive.poll() is None:
            archive.send_signal(signal.SIGTERM)
            archive.wait(30)
        game.close()
        studio.stop()
    (archived,) = site.archived()
    same_journal(archived, site.journal)
    assert ", 0 refused" in archive_log(site.archive_config)
    topics = {t for t, _ in game.messages()}
    assert topics == {f"baccarat/{TABLE}/events", f"baccarat/{TABLE}/status"}, topics
    log = studio.log.read_text()
    assert f"u'station-{TABLE}'" in log and "u'archive-dc1'" in log
