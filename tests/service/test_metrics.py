"""The Prometheus endpoint, scraped over HTTP during a simulated shoe: its counts are the
ones the results file and the faults show."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.live.service.metrics import pause_kind
from station.live.service.runner import serve_metrics, start_service
from tests.daemon.test_daemon import config_dict


def scrape(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}"] = s.value
    return out


def test_the_metrics_scraped_during_a_shoe_match_the_results(tmp_path: Path) -> None:
    faults = [{"kind": "garbled", "card": 15}, {"kind": "lost", "card": 25, "seconds": 0.05}]
    cfg = config_dict(tmp_path, shoes=1, faults=faults)
    cfg["metrics"] = {"port": 0}
    config = parse_config(tmp_path / "s.yaml", cfg)
    service = start_service(config, env={})
    assert service.metrics is not None
    built = build_daemon(config, outbox=service.metrics.measure)
    d = built.daemon
    mid: dict[str, float] = {}
    try:
        serve_metrics(service, config)
        assert service.metrics_port
        service.wire(d, table_log=False)

        def midway() -> bool:
            if not mid and d.station.dealing.round_no == 10:
                mid.update(scrape(service.metrics_port or 0))  # while the loop deals
            return False

        loop = threading.Thread(target=d.run, kwargs={"until": midway})
        loop.start()
        loop.join(100)
        assert not loop.is_alive()
        final = scrape(service.metrics_port)
    finally:
        built.close()
        service.close()
    rounds = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    complete = [r for r in rounds if r["status"] == "complete"]
    assert mid and mid["station_rounds_total{status=complete}"] >= 8
    assert final["station_rounds_total{status=complete}"] == len(complete) > 60
    assert final["station_rounds_total{status=void}"] == len(rounds) - len(complete)
    assert final["station_cards_total{}"] == sum(len(r["player"]) + len(r["banker"])
                                                 for r in complete)
    assert final["station_card_reads_total{source=sim-shoe}"] > final["station_cards_total{}"]
    assert final["station_pauses_total{reason=unreadable}"] == 1
    assert final["station_pauses_total{reason=device_lost}"] == 1
    assert final["station_reader_errors_total{kind=unreadable}"] == 1
    assert final["station_reader_errors_total{kind=device_lost}"] == 1
    events = final["station_loop_event_seconds_count{}"]
    assert events == d.events_applied
    delivered = final["station_upstream_delivery_seconds_count{}"]
    assert delivered == len((tmp_path / "upstream.jsonl").read_text().splitlines())
    assert final["station_upstream_backlog{}"] == 0
    assert final["station_read_latency_seconds_count{}"] == \
        final["station_card_reads_total{source=sim-shoe}"]


def test_the_endpoint_listens_on_loopback_only_and_a_taken_port_is_a_config_error(
        tmp_path: Path) -> None:
    cfg = config_dict(tmp_path)
    cfg["metrics"] = {"port": 0}
    config = parse_config(tmp_path / "s.yaml", cfg)
    first = start_service(config, env={})
    serve_metrics(first, config)
    try:
        assert first.metrics is not None and first.metrics._server is not None
        assert first.metrics._server.server_address[0] == "127.0.0.1"
        cfg["metrics"] = {"port": first.metrics_port}
        taken = parse_config(tmp_path / "s.yaml", cfg)
        second = start_service(taken, env={})
        with pytest.raises(Exception, match=r"metrics.port: cannot listen on 127.0.0.1:\d+"):
            serve_metrics(second, taken)
        second.close()
    finally:
        first.close()


@pytest.mark.parametrize(("reason", "kind"), [
    ("unreadable code '?' from sim-shoe: not a card", "unreadable"),
    ("card not due: 3S (extra card to banker: banker stands)", "not_due"),
    ("AS would be copy 9 in a 8-deck shoe: foreign card or misread", "beyond_shoe"),
    ("sim-shoe lost (cable pulled)", "device_lost"),
    ("station restarted mid-round", "restart"),
    ("cut card came out during the burn: the shoe can give one more round", "cut_card"),
    ("voided by supervisor", "other"),
    ("held by the dealer: card dropped", "dealer"),
    ("held by the dealer: other (cut card lost on the floor)", "dealer"),
    ("card from another pack: AS of pack ZZ9 (not registered at the shuffle check)",
     "another_pack"),
    ("repeated shoe: the first 60 cards after the burn of t5-1 match shoe t5-0 in order (60 of "
     "60)", "repeated_shoe"),
])
def test_pause_reasons_are_counted_by_kind(reason: str, kind: str) -> None:
    assert pause_kind(reason) == kind
