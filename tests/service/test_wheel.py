"""The built wheel, installed in a fresh venv: the station command with its default config,
paytables and unit files as package data. Built offline from a copy of the checkout (so the
checkout is never touched), with this venv's setuptools, and installed without dependencies
(the fresh venv borrows them from this one's site-packages)."""

from __future__ import annotations

from pathlib import Path

from station import __version__
from tests.service.wheelkit import build_wheel, install, run


def test_the_wheel_installs_station_with_its_configs_and_unit_files(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    purelib = install(build_wheel(tmp_path), env)
    elsewhere = tmp_path / "elsewhere"  # no config/ in the working directory
    elsewhere.mkdir()
    station = str(env / "bin" / "station")
    version = run(station, "--version", cwd=elsewhere)
    assert version.stdout.strip() == f"station {__version__}", version.stderr
    where = run(str(env / "bin" / "python"), "-c",
                "import station; from station.live.config import default_config_path, load_config;"
                "p = default_config_path(); c = load_config(p);"
                "print(station.__file__); print(p); print(c.paytable.path)", cwd=elsewhere)
    assert where.returncode == 0, where.stderr
    module, config, paytable = where.stdout.split()
    assert module.startswith(str(purelib))  # the wheel's copy, not the checkout
    assert config.startswith(str(purelib)) and config.endswith("shipped/config/station.yaml")
    assert Path(paytable).is_file()
    root = tmp_path / "root"
    root.mkdir()
    done = run(station, "install-service", "--root", str(root), cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    unit = (root / "etc/systemd/system/dealer-station.service").read_text()
    assert f"ExecStart={station} run -c /etc/dealer-station/station.yaml" in unit
    assert (root / "etc/udev/rules.d/99-dealer-station.rules").is_file()
    assert (root / "etc/dealer-station/paytables/seed003.yaml").is_file()
    # The pages are package data too: the dealer page's and the pit's (a pit installed from
    # the wheel served 404 for its floor before pit/static was listed), and the services'
    # configs and units.
    station_dir = purelib / "station"
    pit = "services/pit/static"
    for page in ("web/static/app.js", f"{pit}/floor.html", f"{pit}/table.html", f"{pit}/pit.js",
                 f"{pit}/pit.css", f"{pit}/stats.html", f"{pit}/stats.js",
                 "shipped/config/pit.yaml", "shipped/config/archive.yaml",
                 "shipped/systemd/dealer-pit.service", "shipped/systemd/dealer-archive.service"):
        assert (station_dir / page).is_file(), page
    # The keyboard layouts of the HID scanners are data beside their loader (issue 36).
    layouts = run(str(env / "bin" / "python"), "-c",
                  "import drivers.layouts as l; print(l.__file__); print(*l.layout_names())",
                  cwd=elsewhere)
    assert layouts.returncode == 0, layouts.stderr
    loader, names = layouts.stdout.splitlines()
    assert loader.startswith(str(purelib)) and names.split() == ["de", "fr", "uk", "us"]
    # The words' catalogues (issue 29), read from the installed copy: every language, both sides.
    for tag in ("en", "zh-Hans", "zh-Hant"):
        for side in ("station", "pages"):
            assert (station_dir / "web/locale" / tag / f"{side}.po").is_file(), (tag, side)
    said = run(str(env / "bin" / "python"), "-c",
               "from station.web.catalogue import render; from station.table.msg import msg;"
               "print(render(msg('prompt.burn_first'), 'zh-Hant'))", cwd=elsewhere)
    assert said.returncode == 0 and said.stdout.strip() == "燒牌：抽出第一張牌並翻開", said.stderr  # noqa: RUF001
