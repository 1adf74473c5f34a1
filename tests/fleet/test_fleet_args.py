"""``station fleet``'s refusals: exit 2, one line naming what is wrong, nothing created;
and what a member's config is made of (``station.services.fleet.plan``)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from station.cli import main
from station.game.limits import SEED_MAX
from station.live.config import load_config, parse_config
from station.services.fleet.plan import TABLES_MAX, derive, plan, write
from tests.conftest import REPO
from tests.fleet.fleetkit import fleet_config


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals (a count that is not a number)
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("station fleet: error: ")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], err


@pytest.mark.parametrize(("tables", "words"), [
    ("0", ("--tables 0", f"1 to {TABLES_MAX}")),
    ("-3", ("--tables -3",)),
    (str(TABLES_MAX + 1), (f"--tables {TABLES_MAX + 1}",)),
    ("x", ("--tables", "invalid int value")),
])
def test_a_bad_count_is_refused_and_creates_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tables: str,
        words: tuple[str, ...]) -> None:
    config = fleet_config(tmp_path / "conf", 1883)
    directory = tmp_path / "fleet"
    _refused(["fleet", "-c", str(config), "--tables", tables, "--dir", str(directory)],
             capsys, *words)
    assert not directory.exists()


def test_a_config_that_does_not_publish_to_a_broker_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "fleet"
    station = REPO / "config" / "station.yaml"
    _refused(["fleet", "-c", str(station), "--tables", "2", "--dir", str(directory)], capsys,
             str(station), "upstream.type: file", "set upstream.type: mqtt")
    assert not directory.exists()


def test_an_invalid_or_missing_config_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "fleet"
    config = fleet_config(tmp_path / "conf", 1883, display="{type: web, prot: 8080}")
    _refused(["fleet", "-c", str(config), "--tables", "2", "--dir", str(directory)], capsys,
             str(config), "display.prot", "unknown key")
    missing = tmp_path / "nope.yaml"
    _refused(["fleet", "-c", str(missing), "--tables", "2", "--dir", str(directory)], capsys,
             str(missing))
    live = fleet_config(tmp_path / "live", 1883)
    live.write_text(live.read_text().replace("{type: simulated}",
                                             "{type: serial, port: /dev/null}")
                    + "display: {type: web}\n")
    _refused(["fleet", "-c", str(live), "--tables", "2", "--dir", str(directory)], capsys,
             "reader.type: serial", "simulated")
    assert not directory.exists()


def test_a_dir_that_cannot_be_made_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = fleet_config(tmp_path / "conf", 1883)
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    _refused(["fleet", "-c", str(config), "--tables", "2", "--dir", str(a_file / "fleet")],
             capsys, f"--dir {a_file / 'fleet'}", f"{a_file} is not a folder")
    assert a_file.read_text() == "not a folder\n"
    # A file where a table's folder goes: refused before any table's folder or key is made.
    directory = tmp_path / "fleet"
    directory.mkdir()
    (directory / "t-02").write_text("in the way\n")
    _refused(["fleet", "-c", str(config), "--tables", "2", "--dir", str(directory)], capsys,
             str(directory / "t-02"), "is a file")
    assert sorted(p.name for p in directory.iterdir()) == ["t-02"]


def test_a_table_id_too_long_for_the_count_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = fleet_config(tmp_path / "conf", 1883)
    config.write_text(config.read_text().replace("id: t,", f"id: {'t' * 62},"))
    directory = tmp_path / "fleet"
    _refused(["fleet", "-c", str(config), "--tables", "100", "--dir", str(directory)], capsys,
             "table.id", "choose a shorter table.id")
    assert not directory.exists()


def test_a_member_config_is_the_configs_own_with_its_table_files_and_key(
        tmp_path: Path) -> None:
    config = fleet_config(tmp_path / "conf", 1883, metrics="{port: 9464}")
    text = config.read_text().replace(
        "keepalive_s: 5}", "keepalive_s: 5, client_id: studio, credentials_file: creds, "
        "command_keys: {pit: keys/pit.pub.pem}}")
    config.write_text(text.replace("supervisor: resume",
                                   f"supervisor: resume\n  seed: {SEED_MAX}"))
    fleet = plan(config, 12, tmp_path / "fleet")
    assert [m.table for m in fleet.members][:2] == ["t-01", "t-02"]
    assert fleet.members[-1].table == "t-12"
    second = fleet.members[1]
    data = second.data
    up = data["upstream"]
    here = tmp_path / "conf"
    assert data["table"]["paytable"] == str(here / "paytables" / "seed000.yaml")
    assert up["client_id"] == "studio-02"  # one client id each: the broker keeps them all
    assert up["credentials_file"] == str(here / "creds")
    assert up["command_keys"] == {"pit": str(here / "keys" / "pit.pub.pem")}
    assert up["signing_key_file"] == "signing-key.pem"
    assert data["simulation"]["seed"] == 0  # SEED_MAX + 1 wraps: still a seed
    assert data["display"] == {"type": "none"} and data["metrics"] == {"port": None}
    assert data["journal"]["path"] == str(tmp_path / "fleet" / "t-02" / "var" /
                                          "journal.sqlite3")
    loaded = parse_config(second.config, data)  # valid, as the member will read it
    assert loaded.rules.table == "t-02"
    assert loaded.upstream.signing_key_file == tmp_path / "fleet" / "t-02" / "signing-key.pem"
    assert not (tmp_path / "fleet").exists()  # a plan writes nothing


def test_derive_keeps_off_what_the_config_turned_off(tmp_path: Path) -> None:
    raw = {"table": {"id": "a"}, "results": {"announcements_path": None},
           "recording": {"dir": None}, "upstream": {"type": "mqtt"}}
    data = derive(raw, tmp_path, "a-01", tmp_path / "a-01", index=0, number="01")
    assert data["results"]["announcements_path"] is None
    assert data["recording"]["dir"] is None
    assert raw["table"] == {"id": "a"}  # CONFIG's own data is not changed


def test_a_second_start_in_the_same_dir_keeps_each_tables_key(tmp_path: Path) -> None:
    """The pit trusts DIR/keys/<table>.pub: a fleet started again must sign with the same
    keys, written as `station keygen` writes them (private 0600)."""
    config = fleet_config(tmp_path / "conf", 1883)
    directory = tmp_path / "fleet"
    write(plan(config, 2, directory))
    first = {p.name: p.read_bytes() for p in (directory / "keys").iterdir()}
    assert sorted(first) == ["t-01.pub", "t-02.pub"]
    member = directory / "t-01"
    assert stat.S_IMODE((member / "signing-key.pem").stat().st_mode) == 0o600
    assert (member / "signing-key.pub.pem").read_bytes() == first["t-01.pub"]
    assert load_config(member / "station.yaml").rules.table == "t-01"
    write(plan(config, 2, directory))
    assert {p.name: p.read_bytes() for p in (directory / "keys").iterdir()} == first
    assert first["t-01.pub"] != first["t-02.pub"]


def test_the_shipped_fleet_config_plans_a_fleet(tmp_path: Path) -> None:
    """config/fleet.yaml, as docs/fleet.md runs it: a valid plan, broker on 127.0.0.1."""
    fleet = plan(REPO / "config" / "fleet.yaml", 3, tmp_path / "fleet")
    assert [m.table for m in fleet.members] == ["sim-01", "sim-02", "sim-03"]
    up = fleet.members[0].data["upstream"]
    assert (up["type"], up["host"], up["port"]) == ("mqtt", "127.0.0.1", 1883)
    assert fleet.members[0].data["table"]["paytable"] == str(
        REPO / "config" / "paytables" / "seed000.yaml")


def test_a_tables_key_that_cannot_be_used_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = fleet_config(tmp_path / "conf", 1883)
    directory = tmp_path / "fleet"
    (directory / "t-02").mkdir(parents=True)
    key = directory / "t-02" / "signing-key.pem"
    key.write_text("not a key\n")
    key.chmod(0o600)
    _refused(["fleet", "-c", str(config), "--tables", "2", "--dir", str(directory)], capsys,
             str(key), "not a PEM private key")
    assert sorted(p.name for p in directory.iterdir()) == ["t-02"]
    assert key.read_text() == "not a key\n"


def test_each_member_gets_its_own_client_certificate_by_its_table_id(tmp_path: Path) -> None:
    """On a locked broker each table is its own certificate (station-<table>, docs/fleet.md):
    ``{table}`` in a tls file's name is the member's id."""
    raw = {"table": {"id": "a"}, "upstream": {"type": "mqtt", "tls": {
        "ca_file": "certs/ca.pem", "cert_file": "certs/station-{table}.pem",
        "key_file": "certs/station-{table}-key.pem"}}}
    data = derive(raw, tmp_path, "a-07", tmp_path / "a-07", index=6, number="07")
    assert data["upstream"]["tls"] == {
        "ca_file": str(tmp_path / "certs" / "ca.pem"),
        "cert_file": str(tmp_path / "certs" / "station-a-07.pem"),
        "key_file": str(tmp_path / "certs" / "station-a-07-key.pem")}
