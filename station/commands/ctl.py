"""``station ctl status|resume|void|new-shoe|open-betting|close-betting|sign-in ID|sign-out|
reveal|skip|request-new-shoe|request-dealer|pause --reason CODE [--note TEXT]|
confirm-shuffle``: the local control API from a terminal, for
scripts and technicians (docs/display.md; a dealer's sign-in and sign-out: docs/dealers.md;
the table modes' reveal and the VIP player's requests: docs/display.md; the dealer's pause and
the shuffle check: docs/rules.md).

Talks to the station's web display named by the config (``display.host``/``display.port``)
or ``--url``. A supervisor's PIN for resume, void, confirm-shuffle and the VIP requests (skip,
request-new-shoe, request-dealer) is read from the environment variable
``STATION_PIN`` or from standard input (asked without echo on a terminal), never from the
command line. Exit codes: 0 done (or the status printed), 1 refused by the station (the reason
printed), 2 bad usage or no station answering, 3 taken but not applied within 5 s (the station
is holding events while its journal cannot be written): not done yet, so never 0.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from station.table.procedures import NOTE_MAX, PAUSE_CODES, pause_problem

TAKEN = 3  # exit code: the station took the command but has not applied it yet
ACTIONS = ("status", "resume", "void", "new-shoe", "open-betting", "close-betting", "sign-in",
           "sign-out", "reveal", "skip", "request-new-shoe", "request-dealer", "pause",
           "confirm-shuffle")
# Commands that need a supervisor's PIN (station.web.server.PIN_ACTIONS): the overrides, and
# the VIP player's requests, which a supervisor makes for the player.
PIN_ACTIONS = ("resume", "void", "skip", "request-new-shoe", "request-dealer",
               "confirm-shuffle")
TIMEOUT_S = 10.0


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "ctl", help="control a running station through its web display's API",
        description="Print the station's state, or send it a command, through the local "
        "control API. A PIN (resume, void, confirm-shuffle, and the VIP requests skip, "
        "request-new-shoe and request-dealer) comes from STATION_PIN or standard input. "
        "pause takes --reason CODE (and --note TEXT, needed with other).",
    )
    p.add_argument("action", choices=ACTIONS)
    p.add_argument("dealer", nargs="?", default=None,
                   help="sign-in only: the dealer's id (1-32 of A-Z a-z 0-9 . _ -)")
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="station YAML (default: config/station.yaml)")
    p.add_argument("--url", default=None,
                   help="the display's address, e.g. http://127.0.0.1:8080 (default: the "
                   "config's display.host and display.port, https with display.tls)")
    p.add_argument("--ca-file", type=Path, default=None,
                   help="over https: the CA to trust (default: the system's store)")
    p.add_argument("--actor", default="technician", help="who is acting, for the journal")
    p.add_argument("--reason", default=None, choices=PAUSE_CODES,
                   help="pause only: why the dealer stops the table")
    p.add_argument("--note", default=None,
                   help=f"pause only: what happened (1-{NOTE_MAX} characters; needed with "
                   "--reason other)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run)


def _base(args: argparse.Namespace) -> str:
    if args.url:
        url: str = args.url
        if not url.startswith(("http://", "https://")):
            raise SystemExit(_usage(f"--url {url[:60]!r}: give http://HOST:PORT or "
                                    "https://HOST:PORT"))
        return url.rstrip("/")
    from station.kinds.displays.web import WebSettings  # noqa: PLC0415
    from station.kinds.registry import settings_of  # noqa: PLC0415
    from station.live.config import default_config_path, load_config  # noqa: PLC0415

    # The web display's address, whichever display the config chose (its keys are read all
    # the same; the defaults when it names none).
    web = settings_of(load_config(args.config or default_config_path()), "display", "web")
    d = web if isinstance(web, WebSettings) else WebSettings()
    host = f"[{d.host}]" if ":" in d.host else d.host
    if host in ("0.0.0.0", "[::]"):  # listening everywhere: this machine answers on loopback
        host = "127.0.0.1"
    scheme = d.access.scheme
    if scheme == "https" and host == "127.0.0.1" and d.access.server_names:
        host = d.access.server_names[0]  # the name the certificate is for
    return f"{scheme}://{host}:{d.port}"


def _usage(message: str) -> int:
    print(f"station ctl: error: {message}", file=sys.stderr)
    return 2


def _pin() -> str:
    pin = os.environ.get("STATION_PIN")
    if pin:
        return pin
    if sys.stdin.isatty():
        return getpass.getpass("supervisor PIN: ")
    return sys.stdin.readline(200).rstrip("\r\n")


def _call(url: str, body: dict[str, Any] | None, ca_file: Path | None = None
          ) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json"})
    context = None
    if url.startswith("https://"):
        context = ssl.create_default_context(cafile=None if ca_file is None else str(ca_file))
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S, context=context) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read())
        except ValueError:
            return exc.code, {"error": f"HTTP {exc.code}", "fix": "is this a station?"}


def run(args: argparse.Namespace) -> int:
    try:
        base = _base(args)
    except SystemExit as exc:
        return int(exc.code or 2)
    action: str = args.action
    if (action == "sign-in") != bool(args.dealer):
        return _usage("a dealer id goes with sign-in only: station ctl sign-in ID")
    if action != "pause" and (args.reason is not None or args.note is not None):
        return _usage("--reason and --note go with pause only")
    if action == "pause":
        why = pause_problem(args.reason, args.note)
        if why is not None:
            return _usage(f"{why}; e.g. station ctl pause --reason card_dropped")
    try:
        if action == "status":
            status, answer = _call(f"{base}/api/state", None, args.ca_file)
        else:
            body: dict[str, Any] = {"actor": args.actor[:40]}
            if action == "sign-in":
                body["dealer"] = args.dealer
            if action == "pause":
                body["reason"] = args.reason
                if args.note is not None:
                    body["note"] = args.note
            if action in PIN_ACTIONS:
                pin = _pin()
                if not pin:
                    return _usage(f"{action} needs a supervisor's PIN: set STATION_PIN or give "
                                  "it on standard input")
                body["pin"] = pin
            status, answer = _call(f"{base}/api/commands/{action}", body, args.ca_file)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return _usage(f"no station answers at {base} ({reason}); is `station run` running "
                      "with display.type: web?")
    if args.json:
        print(json.dumps(answer, ensure_ascii=False))
    if action == "status" and status == 200:
        if not args.json:
            s = answer["state"]
            p = s["prompt"]
            line = f"{s['table']} {s['phase']}: {p['text']}"
            print(line + (f" ({p['detail']})" if p["detail"] else ""))
            for extra in _mode_lines(s):
                print(extra)
        return 0
    if status == 200:
        if not args.json:
            print(f"{action}: done" + "".join(f"; {n}" for n in answer.get("notices", [])))
        return 0
    if status == 202:
        # Not done: a script must not go on as if it were. It is applied when the station's
        # journal can be written again (or refused then, if the table has moved on).
        print(f"station ctl {action}: taken, not yet applied ({answer.get('detail', '')}); "
              "check `station ctl status`", file=sys.stderr)
        return TAKEN
    print(f"station ctl {action}: refused ({status}): {answer.get('error', '?')}; "
          f"{answer.get('fix', '')}", file=sys.stderr)
    return 1 if status in (403, 409, 429) else 2


def _mode_lines(s: dict[str, Any]) -> list[str]:
    """The table modes' lines under the status (docs/display.md): the betting countdown, by
    this machine's clock (the station's own, when ctl runs on the dealer PC), and every alert
    on screen. A station from before the modes sends none of these keys."""
    lines = []
    closes_at = (s.get("betting") or {}).get("closes_at")
    if isinstance(closes_at, (int, float)):
        left = max(0.0, closes_at - time.time())
        lines.append(f"betting closes in {left:.0f} s")
    for alert in s.get("alerts") or []:
        lines.append(f"ALERT: {alert.get('text', '?')}")
    for mark in s.get("archived") or []:  # the archive's acknowledgements (docs/journal.md)
        if isinstance(mark, dict):
            lines.append(f"archived: journal {mark.get('journal', '?')} up to seq "
                         f"{mark.get('seq', '?')} ({mark.get('by', '?')})")
    return lines
