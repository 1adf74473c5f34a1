"""A real systemd for the units: a Debian rootfs booted with systemd-nspawn, systemd as PID 1.

- The rootfs: ``debootstrap --variant=minbase`` of this machine's Debian release, from the
  Debian mirror this machine's apt uses, with ``PACKAGES``. Built once and cached outside the
  clone, under ``CACHE`` in a folder named by a hash of the release, the variant and the
  package list, so a changed list builds a new one (``scripts/setup --test`` builds it before
  the suite: ``python -m tests.service.systemdkit``). Never written to after it is built.
- The boot: ``systemd-nspawn --volatile=overlay``: the cached tree read-only under a tmpfs
  overlay, so each boot starts from the same tree and leaves nothing behind;
  ``--private-network``: a loopback of its own, so the units' fixed ports (the metrics' 9464,
  the pit's 8090, the container's own Mosquitto on 1883) never meet another test's;
  ``--register=no --keep-unit``: the host needs no systemd-machined, nor systemd at all.
- Commands inside: ``nsenter`` into every namespace of the container's PID 1 (found as the
  nspawn process's child), with a clean environment. ``systemd-run --machine`` and
  ``machinectl shell`` need the container registered with machined, which a host without
  systemd as PID 1 (a CI runner, a container) does not have; nsenter needs only the kernel.
  A command so entered runs as root in the container's file system, PID and network
  namespaces, and talks to its systemd over /run/systemd/private as `systemctl` always does.
- The station: its wheel (built from the checkout) and a wheelhouse of its dependencies
  (``pip download`` on the host, cached next to the rootfs by a hash of the wheel's
  Requires-Dist; the container's python3 is the host's release's, so the same wheels fit),
  bound read-only at ``/mnt/wheels``; installed offline as docs/operations.md tells a studio.

Anything missing or refused (not root, no systemd-nspawn, a kernel that will not boot it) is
raised as ``Unbootable`` with the reason, which the tests report as a failure, never a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

CACHE = Path(os.environ.get("DEALER_STATION_SYSTEMD_CACHE", "/var/cache/dealer-station"))
VARIANT = "minbase"
# What the units need besides systemd: dbus (timedated, for timedatectl), libnss-systemd
# (DynamicUser= names), python3 and its venv (the station), mosquitto (the broker the pit
# and the archive talk to, on the container's own loopback).
PACKAGES = ("systemd", "dbus", "libnss-systemd", "python3", "python3-venv", "mosquitto")
VENV = "/opt/dealer-station/.venv"
STATION = f"{VENV}/bin/station"
WHEELS = "/mnt/wheels"
DIST = "/mnt/dist"  # the station's own wheel, built from the checkout
VENVS = "/mnt/venvs"  # CACHE/venvs, writable: the installed dependencies, kept
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BOOT_S = 60.0


class Unbootable(RuntimeError):
    """The host cannot build or boot the container; the text says why and what to do."""


def _release() -> str:
    found = re.search(r"^VERSION_CODENAME=(\S+)$", Path("/etc/os-release").read_text(), re.M)
    if found is None or not Path("/etc/debian_version").exists():
        raise Unbootable("the container is a Debian rootfs of this machine's release, and "
                         "this machine is not Debian (no VERSION_CODENAME in /etc/os-release)")
    return found.group(1).strip('"')


def _mirror() -> str:
    """The Debian archive this machine's apt installs from (its first ``deb`` source)."""
    texts = [p.read_text(errors="replace") for p in
             [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
             if p.is_file()]
    for text in texts:
        for m in re.finditer(r"^URIs:\s*(\S+)", text, re.M):  # deb822 .sources
            if "security" not in m.group(1):
                return m.group(1)
        for m in re.finditer(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M):  # one-line
            if "security" not in m.group(1):
                return m.group(1)
    raise Unbootable("no Debian mirror found in /etc/apt/sources.list{,.d}: debootstrap "
                     "needs one to build the container's rootfs")


def rootfs_key() -> str:
    words = [_release(), VARIANT, *sorted(PACKAGES)]
    return hashlib.sha256("\n".join(words).encode()).hexdigest()[:16]


def _need(tool: str, package: str) -> str:
    found = shutil.which(tool, path=PATH)
    if found is None:
        raise Unbootable(f"{tool} is missing: apt-get install {package} (scripts/setup --test "
                         "installs it as root)")
    return found


def _root() -> None:
    if os.geteuid() != 0:
        raise Unbootable("booting a container with systemd-nspawn needs root; run the tests "
                         "as root (CI does)")


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    # Two test workers, or setup and a test, building the same thing: one builds, one waits.
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def venvs() -> Path:
    (CACHE / "venvs").mkdir(parents=True, exist_ok=True)
    return CACHE / "venvs"


def rootfs(log: Path | None = None) -> Path:
    """The cached rootfs, built first if there is none for this package list."""
    _root()
    tree = CACHE / f"rootfs-{rootfs_key()}"
    if (tree / ".complete").exists():
        return tree
    debootstrap = _need("debootstrap", "debootstrap")
    with _locked(tree.name):
        if (tree / ".complete").exists():
            return tree
        partial = tree.with_name(tree.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        # Services that packages start at install: the build machine's policy, not the tree's.
        done = subprocess.run(
            [debootstrap, f"--variant={VARIANT}", f"--include={','.join(PACKAGES)}",
             _release(), str(partial), _mirror()],
            capture_output=True, text=True, check=False, timeout=1800)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            if log is not None:
                log.write_text(done.stdout + done.stderr)
            raise Unbootable(f"debootstrap failed (exit {done.returncode}):\n{tail}")
        # The units run without a login; no getty keeps the boot short and the console quiet.
        for getty in (partial / "etc/systemd/system/getty.target.wants").glob("*"):
            getty.unlink()
        (partial / ".complete").write_text(" ".join(PACKAGES) + "\n")
        # Older trees of other package lists are left alone: another checkout may use one.
        partial.rename(tree)
    return tree


def _requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    return sorted(m.group(1).strip() for m in re.finditer(r"^Requires-Dist: (.+)$", text, re.M)
                  if "extra ==" not in m.group(1))


def wheelhouse(wheel: Path) -> Path:
    """The station's dependencies as wheels, downloaded once per dependency list."""
    requires = _requires(wheel)
    key = hashlib.sha256("\n".join([_release(), sys.version.split()[0], *requires]).encode()
                         ).hexdigest()[:16]
    house = CACHE / f"wheels-{key}"
    if (house / ".complete").exists():
        return house
    with _locked(house.name):
        if (house / ".complete").exists():
            return house
        partial = house.with_name(house.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary",
                              ":all:", "-d", str(partial), *requires],
                             capture_output=True, text=True, check=False, timeout=900)
        if got.returncode != 0:
            raise Unbootable(f"pip download of the station's dependencies failed:\n"
                             f"{got.stderr[-3000:]}")
        (partial / ".complete").write_text("\n".join(requires) + "\n")
        partial.rename(house)
    return house


def install_station(c: Container, house: Path) -> None:
    """The station in the container as docs/operations.md, step 1, has it: a venv, then
    ``pip install --no-index --find-links WHEELS dealer-station``. Its dependencies, the
    same for every boot of one wheelhouse, are kept as a tarball next to it after the first
    install (``VENVS``) and unpacked into the new venv, so later boots install only the
    station's own wheel, with the same command."""
    tar = f"{VENVS}/{house.name}-{rootfs_key()}.tar"
    if not (CACHE / "venvs" / Path(tar).name).exists():
        with _locked(Path(tar).name):
            if not (CACHE / "venvs" / Path(tar).name).exists():
                c.sh(f"python3 -m venv {VENV} && {VENV}/bin/pip install -q --no-index "
                     f"--find-links {WHEELS} -r {WHEELS}/.complete && "
                     f"tar -cf {tar}.partial {VENV} && mv {tar}.partial {tar}", timeout=600)
    c.sh(f"[ -d {VENV} ] || tar -xf {tar} -C /", timeout=120)
    c.sh(f"{VENV}/bin/pip install -q --no-index --find-links {WHEELS} --find-links {DIST} "
         "dealer-station", timeout=300)


class Container:
    """One boot of the rootfs; ``run`` runs a command inside as root."""

    def __init__(self, tree: Path, binds: Sequence[tuple[Path, str]], log: Path,
                 name: str = "dealer-test", writable: Sequence[tuple[Path, str]] = ()
                 ) -> None:
        nspawn = _need("systemd-nspawn", "systemd-container")
        _need("nsenter", "util-linux")
        self.log = log
        args = [nspawn, "-q", "-D", str(tree), "--volatile=overlay", "-b", "--register=no",
                "--keep-unit", "--private-network", "--console=passive",
                f"--machine={name}",
                # nspawn denies a container without CAP_SYS_TIME the clock_adjtime(2) that
                # reads the clock's state too, so every process in it, timedatectl's daemon
                # as well as the station, would see "cannot tell"; a dealer PC's systemd has
                # no such filter. Reading is let through; setting still needs CAP_SYS_TIME,
                # which the container does not have.
                "--system-call-filter=clock_adjtime adjtimex"]
        args += [f"--bind-ro={src}:{dst}" for src, dst in binds]
        args += [f"--bind={src}:{dst}" for src, dst in writable]
        self._out = log.open("wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.leader = 0
        try:
            self._boot()
        except BaseException:
            self.close()
            raise

    def _boot(self) -> None:
        deadline = time.monotonic() + BOOT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Unbootable(f"systemd-nspawn exited {self.proc.returncode} at boot:\n"
                                 f"{self.log.read_text(errors='replace')[-3000:]}")
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
            with contextlib.suppress(OSError):
                kids = children.read_text().split()
                # Its manager's socket: before it, systemctl says "offline" and gives up.
                if kids and Path(f"/proc/{kids[0]}/comm").read_text().strip() == "systemd" \
                        and Path(f"/proc/{kids[0]}/root/run/systemd/private").exists():
                    self.leader = int(kids[0])
                    state = self.run("systemctl", "is-system-running", "--wait", check=False,
                                     timeout=BOOT_S)
                    if state.stdout.strip() in ("running", "degraded"):
                        return
                    raise Unbootable(f"the container's systemd did not come up: "
                                     f"{state.stdout.strip()} {state.stderr.strip()}")
            time.sleep(0.05)
        raise Unbootable(f"systemd did not start in the container within {BOOT_S:.0f} s:\n"
                         f"{self.log.read_text(errors='replace')[-3000:]}")

    def run(self, *args: str, check: bool = True, timeout: float = 120, input: str | None = None
            ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["nsenter", "-t", str(self.leader), "-a", "env", "-i", f"PATH={PATH}",
             "LANG=C.UTF-8", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", *args],
            capture_output=True, text=True, timeout=timeout, check=False, input=input)
        if check and done.returncode != 0:
            raise AssertionError(f"in the container: {' '.join(args)}: exit {done.returncode}\n"
                                 f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return done

    def sh(self, script: str, check: bool = True, timeout: float = 120
           ) -> subprocess.CompletedProcess[str]:
        return self.run("sh", "-ec", script, check=check, timeout=timeout)

    def show(self, unit: str, *props: str) -> dict[str, str]:
        out = self.run("systemctl", "show", unit, *(f"-p{p}" for p in props)).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def close(self) -> None:
        if self.proc.poll() is None:
            # SIGTERM: nspawn asks the container's systemd to power off, then tears it down.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._out.close()


if __name__ == "__main__":
    # scripts/setup --test: build the rootfs now, once, rather than in the first test run.
    try:
        print(f"setup: the systemd container's rootfs is {rootfs()}", file=sys.stderr)
    except Unbootable as exc:
        print(f"setup: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
