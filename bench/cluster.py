"""A fleet on one machine: the production topology as separate hosts, put through what a real
fleet lives through, measured from the players' side.

    .venv/bin/python bench/cluster.py --scenario rolling --tables 20
    .venv/bin/python bench/cluster.py --scenario all        # 100 tables, 200 watchers
    .venv/bin/python bench/cluster.py --short               # CI: 10 tables, 2 scenarios
    .venv/bin/python bench/cluster.py --cleanup             # remove what a killed run left

Hosts are network namespaces (`dmn-db`, `dmn-redis`, `dmn-node1`, `dmn-node2`, `dmn-proxy`,
`dmn-load`) joined by a router namespace (`dmn-hub`), all in 10.77.0.0/24. Nothing is created in
the root namespace; every namespace, process and folder is removed at the end, on an error or on
Ctrl-C (and by `--cleanup`). Without root or `ip netns` (`--net loopback`, chosen by itself when
namespaces cannot be made) the hosts are 127.0.0.x addresses on this machine's loopback instead,
and the partition scenarios are skipped.

- db: PostgreSQL 15 (a private cluster, run as the `postgres` user; fsync off: a bench);
- redis: redis-server, no persistence (`--save "" --appendonly no`);
- node1, node2: each two daphnes (`python -m dominoes_site.serve`, drained on SIGTERM, or plain
  daphne on a tree without it) and one Celery worker; beat on node1 and a standby beat on node2
  (the lease in Redis decides which one sends: dominoes_site/beat.py);
- proxy: HAProxy with `deploy/haproxy.cfg` as it is in the repository (only the addresses come
  from the environment): a table's sockets hashed to one daphne by the table's id, everything else
  by fewest connections, health checks on `/healthz`, an hour's tunnel timeout;
- load: this script's players, who connect only through the proxy, with `Host` and `Origin` the
  site's name (dominologist.test), as a browser would.

The load: `--tables` one-on-one Citizen tables (every other one played for Dollars), each with its
two players moving at a human pace (one move every 2-6 s per table), `--watchers` silent watcher
sockets spread over the tables, and every player's notices socket. The clients are bench/soak.py's
(docs/protocol.md: `hello` with the last seq after every connect, resume on a gap, `wash`, `ping`),
reconnecting as the page does: at once (0-500 ms of jitter) after a 1012 on a working socket,
after 1, 2, 4 ... 15 s otherwise.

Each scenario (`--scenario`, or `all`) runs while the load plays, then the tables fall quiet and
the run checks: moves lost (acknowledged, missing from the database), moves applied twice, deaf
sockets (open and answered, yet short of their table's seq after a quiet settle), every game
replaying to its stored state (the engine from the action log and every dealt hand's seed), money
conserved (the ledger's reconciliation, and every unit's balances summing to zero); and per
scenario the time until every table moves again (each table is asked to move at once from the
scenario's moment), the longest pause a player saw (a socket's close to its next resume), sockets
closed by code, errors received. JSON goes to bench/results/cluster-<scenario>-<date>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import datetime as dt
import itertools
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import soak
from bench.soak import (
    Client,
    Context,
    Group,
    Tally,
    choose_action,
    scan_logs,
)
from bench.ws_load import (
    BIN,
    HOUSE_VARIABLES,
    PG_BIN,
    ROOT,
    code_revision,
    latency_summary,
    players_with_sessions,
)

#: Every namespace this script makes starts with this (and `--cleanup` removes any of them).
PREFIX = "dmn-"
#: The hosts and the last byte of their address (10.77.0.X, or 127.0.0.X on loopback).
HOSTS = {"db": 2, "redis": 3, "proxy": 10, "node1": 11, "node2": 12, "load": 20}
NODES = ("node1", "node2")
DAPHNES_PER_NODE = 2
SUBNET = "10.77.0"
SITE = "dominologist.test"
#: Folders of this script's runs (for `--cleanup`).
TMP_PREFIX = "dmn-cluster-"
#: A move's update that has not reached a connected, answered socket after this long: late.
LATE_SECONDS = 5.0
#: ... and after this long (bench/soak.py's limit): very late (deaf if it never comes: the
#: scenario's end says).
DEAF_SECONDS = 15.0
#: Errors a page meets in normal play and shows nobody: a wash for a hand dealt meanwhile, an act
#: on a version the game has left (the page catches up and acts again).
QUIET_ERRORS = ("bad_wash", "stale")
#: How long a table may take to move again before it counts as stuck.
RECOVERY_LIMIT = 60.0
CLONE_NEWNET = 0x40000000
#: The scenarios, in the order `all` runs them.
SCENARIOS = (
    "rolling",
    "lost-machine",
    "redis",
    "postgres",
    "partition-redis",
    "partition-postgres",
    "beat",
)
ALIASES = {"partition": ("partition-redis", "partition-postgres"), "all": SCENARIOS}
#: Pass/fail lines of each scenario (the brief's table), in seconds.
LIMITS = {
    # (a table that cannot move is a pause its players see too)
    "rolling": {"pause_max_s": 2.0, "drain_s": 10.0, "recovery_max_s": 2.0},
    "lost-machine": {"recovery_max_s": 5.0},
    "redis": {"recovery_max_s": 5.0},
    "postgres": {"recovery_max_s": 5.0},
    "partition-redis": {"recovery_max_s": 5.0},
    "partition-postgres": {"recovery_max_s": 5.0},
    "beat": {"standby_sweep_s": 30.0},
}


def log(message: str) -> None:
    print(f"[cluster {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- hosts: network namespaces joined by a router, or loopback addresses ------------------------


class Net:
    """The hosts. `netns`: a namespace each, a veth to the router namespace `dmn-hub` (which
    forwards between them; a partition is a blackhole rule there). `loopback`: 127.0.0.X."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.entered: str | None = None

    @staticmethod
    def ns(host: str) -> str:
        return PREFIX + host

    def addr(self, host: str) -> str:
        return f"{SUBNET if self.mode == 'netns' else '127.0.0'}.{HOSTS[host]}"

    def wrap(self, host: str, command: list[str]) -> list[str]:
        if self.mode != "netns":
            return command
        return ["ip", "netns", "exec", self.ns(host), *command]

    @staticmethod
    def _ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)

    @staticmethod
    def possible() -> bool:
        """Whether namespaces can be made here (root and a working `ip netns`)."""
        if os.geteuid() != 0 or shutil.which("ip") is None:
            return False
        probe = f"{PREFIX}probe-{os.getpid()}"
        made = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
        if made:
            subprocess.run(["ip", "netns", "del", probe], capture_output=True)
        return made

    def up(self) -> None:
        if self.mode != "netns":
            return
        hub = self.ns("hub")
        self._ip("netns", "add", hub)
        self._ip("-n", hub, "link", "set", "lo", "up")
        subprocess.run(
            ["ip", "netns", "exec", hub, "sysctl", "-qw", "net.ipv4.ip_forward=1"], check=True
        )
        for host, last in HOSTS.items():
            ns, address = self.ns(host), f"{SUBNET}.{last}"
            self._ip("netns", "add", ns)
            # Point to point: the host's eth0 has its /32, the hub's end has the gateway .1.
            self._ip(
                "-n",
                hub,
                "link",
                "add",
                f"to-{host}",
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                ns,
            )
            self._ip("-n", hub, "addr", "add", f"{SUBNET}.1/32", "dev", f"to-{host}")
            self._ip("-n", hub, "link", "set", f"to-{host}", "up")
            self._ip("-n", hub, "route", "add", f"{address}/32", "dev", f"to-{host}")
            self._ip("-n", ns, "link", "set", "lo", "up")
            self._ip("-n", ns, "addr", "add", f"{address}/32", "dev", "eth0")
            self._ip("-n", ns, "link", "set", "eth0", "up")
            self._ip("-n", ns, "route", "add", f"{SUBNET}.1/32", "dev", "eth0")
            self._ip(
                "-n", ns, "route", "add", f"{SUBNET}.0/24", "via", f"{SUBNET}.1", "dev", "eth0"
            )
            # docs/deploy.md: a connection queued at a closing daphne goes to the new one
            # (where the kernel knows the setting; it is per namespace).
            subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.tcp_migrate_req=1"],
                capture_output=True,
            )

    def enter(self, host: str) -> None:
        """Move this process (before it starts any thread) into `host`'s namespace."""
        if self.mode != "netns":
            return
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(f"/run/netns/{self.ns(host)}", os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns into {self.ns(host)}")
        finally:
            os.close(fd)
        self.entered = host

    def cut(self, host: str, other: str, *, on: bool) -> None:
        """Drop every packet between two hosts (both ways), silently, at the router."""
        hub = self.ns("hub")
        a, b = self.addr(host), self.addr(other)
        for priority, src, dst in ((100, a, b), (101, b, a)):
            if on:
                self._ip(
                    "-n",
                    hub,
                    "rule",
                    "add",
                    "from",
                    src,
                    "to",
                    dst,
                    "blackhole",
                    "priority",
                    str(priority),
                )
            else:
                with contextlib.suppress(subprocess.CalledProcessError):
                    self._ip("-n", hub, "rule", "del", "priority", str(priority))

    def pids(self, host: str) -> list[int]:
        if self.mode != "netns":
            return []
        out = subprocess.run(
            ["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True, timeout=30
        ).stdout
        return [int(p) for p in out.split() if p.isdigit() and int(p) != os.getpid()]

    @staticmethod
    def remove_all() -> list[str]:
        """Kill every process inside any dmn-* namespace, then delete the namespaces."""
        if shutil.which("ip") is None:
            return []
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        names = [line.split()[0] for line in listed.splitlines() if line.startswith(PREFIX)]
        for name in names:
            out = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
            for pid in out.stdout.split():
                if pid.isdigit() and int(pid) != os.getpid():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
        for name in names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        return names


def free_port_on(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def wait_for_port(address: str, port: int, seconds: float, alive: Any = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if alive is not None and not alive():
            raise RuntimeError(f"{address}:{port}: the process exited before listening")
        with contextlib.suppress(OSError), socket.create_connection((address, port), timeout=1):
            return
        time.sleep(0.2)
    raise RuntimeError(f"{address}:{port} not listening after {seconds:g} s")


def cleanup_leftovers() -> None:
    """What a killed run left: namespaces (and their processes), loopback processes, folders."""
    names = Net.remove_all()
    killed = 0
    for folder in Path(tempfile.gettempdir()).glob(TMP_PREFIX + "*"):
        registry = folder / "pids"
        if registry.exists():
            for line in registry.read_text().split():
                with contextlib.suppress(ValueError, OSError):
                    pid = int(line)
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if str(folder).encode() in cmdline or b"dominoes_site" in cmdline:
                        os.kill(pid, signal.SIGKILL)
                        killed += 1
        pg = folder / "pg" / "data" / "postmaster.pid"
        if pg.exists():
            with contextlib.suppress(ValueError, OSError):
                os.kill(int(pg.read_text().split()[0]), signal.SIGKILL)
                killed += 1
        shutil.rmtree(folder, ignore_errors=True)
    log(f"cleanup: namespaces removed {names or 'none'}; loopback processes killed {killed}")


# --- the fleet's processes ----------------------------------------------------------------------


class Fleet:
    """Every server process of the fleet, by name, with its host and log."""

    def __init__(self, args: argparse.Namespace, net: Net) -> None:
        self.args = args
        self.net = net
        self.tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
        self.tmp.chmod(0o755)  # PostgreSQL (its own user) keeps its data below
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.hosts: dict[str, str] = {}
        self.logs: dict[str, list[Path]] = defaultdict(list)
        self.generation: Counter[str] = Counter()
        loop = net.mode != "netns"
        self.ports = {
            "postgres": free_port_on(net.addr("db")) if loop else 5432,
            "redis": free_port_on(net.addr("redis")) if loop else 6379,
            "proxy": free_port_on(net.addr("proxy")) if loop else 80,
        }
        self.daphnes: list[tuple[str, str, int]] = []  # (name, node, port)
        for node in NODES:
            for i in range(DAPHNES_PER_NODE):
                port = free_port_on(net.addr(node)) if loop else 8001 + i
                self.daphnes.append((f"{node}-daphne{i + 1}", node, port))
        self.pg_data = self.tmp / "pg" / "data"
        self.stats_socket = self.tmp / "haproxy.sock"
        self.serve = (ROOT / "dominoes_site" / "serve.py").exists()
        # A daphne may start beside the one it replaces, on its address (SO_REUSEPORT)
        self.reuse_port = (
            self.serve and "REUSE_PORT" in (ROOT / "dominoes_site" / "serve.py").read_text()
        )
        self.secret = os.urandom(32).hex()
        self.env = self._env()

    # environment ------------------------------------------------------------------------------

    @property
    def site(self) -> str:
        port = self.ports["proxy"]
        return SITE if port == 80 else f"{SITE}:{port}"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in HOUSE_VARIABLES}
        env.update({name: "" for name in HOUSE_VARIABLES})
        env.update(
            DJANGO_SETTINGS_MODULE="dominoes_site.settings",
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            DEBUG="false",
            SECRET_KEY=self.secret,  # one key for the fleet: every node reads every session
            ALLOWED_HOSTS=SITE,
            CSRF_TRUSTED_ORIGINS=f"http://{self.site}",
            # The proxy serves plain HTTP here (no certificate in a bench): with TLS at the proxy
            # keep the redirect on (X-Forwarded-Proto says https).
            SECURE_SSL_REDIRECT="false",
            LOG_LEVEL="WARNING",
            DATABASE_URL=(
                f"postgres://postgres@{self.net.addr('db')}:{self.ports['postgres']}/dominoes"
            ),
            REDIS_URL=f"redis://{self.net.addr('redis')}:{self.ports['redis']}/0",
            # Prometheus's place: the fleet's own network reads each daphne's /metrics.
            METRICS_ALLOWED_NETWORKS=f"{self.net.addr('load').rsplit('.', 1)[0]}.0/24",
        )
        return env

    def node_env(self, node: str) -> dict[str, str]:
        var = self.tmp / node / "var"
        var.mkdir(parents=True, exist_ok=True)
        return {**self.env, "VAR_DIR": str(var)}

    # spawning ---------------------------------------------------------------------------------

    def spawn(
        self, name: str, host: str, command: list[str], env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        self.generation[name] += 1
        path = self.tmp / "logs" / f"{name}.{self.generation[name]}.log"
        path.parent.mkdir(exist_ok=True)
        self.logs[name].append(path)
        with open(path, "ab") as out:
            process = subprocess.Popen(
                self.net.wrap(host, command),
                cwd=ROOT,
                env=env if env is not None else self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        with open(self.tmp / "pids", "a") as registry:
            registry.write(f"{process.pid}\n")
        self.procs[name] = process
        self.hosts[name] = host
        return process

    def run(self, host: str, command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("check", True)
        kwargs.setdefault("timeout", 600)
        return subprocess.run(self.net.wrap(host, command), cwd=ROOT, **kwargs)

    @staticmethod
    def _as_postgres(*command: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)

    # PostgreSQL and Redis ----------------------------------------------------------------------

    def start_postgres(self) -> None:
        pg = self.pg_data.parent
        pg.mkdir()
        if os.geteuid() == 0:
            shutil.chown(pg, "postgres", "postgres")
        subprocess.run(
            self._as_postgres(
                str(PG_BIN / "initdb"),
                "-D",
                str(self.pg_data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ),
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=120,
        )
        with open(self.pg_data / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {SUBNET}.0/24 trust\nhost all all 127.0.0.0/8 trust\n")
        self.pg_ctl("start")
        self.run(
            "db",
            self._as_postgres(
                str(PG_BIN / "createdb"),
                "-h",
                self.net.addr("db"),
                "-p",
                str(self.ports["postgres"]),
                "-U",
                "postgres",
                "dominoes",
            ),
            timeout=60,
        )

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = (
            f"-p {self.ports['postgres']} -k {self.pg_data.parent} "
            f"-c listen_addresses={self.net.addr('db')} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=300 -c shared_buffers=128MB"
        )
        command = [
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(self.pg_data),
            "-l",
            str(self.pg_data.parent / "postgres.log"),
            "-w",
            "-t",
            "60",
            *extra,
        ]
        if action in ("start", "restart"):
            command += ["-o", options]
        self.run("db", self._as_postgres(*command, action), stdout=subprocess.DEVNULL, timeout=120)

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.pg_data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def start_redis(self) -> None:
        port = self.ports["redis"]
        process = self.spawn(
            "redis",
            "redis",
            [
                "redis-server",
                "--bind",
                self.net.addr("redis"),
                "--port",
                str(port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                str(self.tmp),
            ],
        )
        wait_for_port(self.net.addr("redis"), port, 20, alive=lambda: process.poll() is None)

    # the app nodes ----------------------------------------------------------------------------

    def daphne_command(self, node: str, port: int) -> list[str]:
        head = (
            [sys.executable, "-m", "dominoes_site.serve"] if self.serve else [str(BIN / "daphne")]
        )
        return [
            *head,
            "-b",
            self.net.addr(node),
            "-p",
            str(port),
            "--proxy-headers",
            "--websocket_connect_timeout",
            "20",
            "dominoes_site.asgi:application",
        ]

    def start_daphne(self, name: str) -> None:
        _, node, port = next(d for d in self.daphnes if d[0] == name)
        env = self.node_env(node)
        if self.reuse_port:
            env["DAPHNE_REUSE_PORT"] = "1"  # docs/deploy.md: each daphne's address, shared
        self.spawn(name, node, self.daphne_command(node, port), env)

    def wait_listening(self, name: str, seconds: float = 90) -> None:
        """Until the daphne process now named `name` listens on its address (another one, the
        one it replaces, may listen there too)."""
        _, node, port = next(d for d in self.daphnes if d[0] == name)
        process = self.procs[name]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and process.poll() is None:
            found = self.run(
                node, ["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True
            ).stdout
            if f"pid={process.pid}," in found:
                return
            time.sleep(0.2)
        raise RuntimeError(f"{name} (pid {process.pid}) is not listening on port {port}")

    def wait_daphne(self, name: str, seconds: float = 90) -> None:
        _, node, port = next(d for d in self.daphnes if d[0] == name)
        process = self.procs[name]
        wait_for_port(self.net.addr(node), port, seconds, alive=lambda: process.poll() is None)

    def start_worker(self, node: str) -> None:
        self.spawn(
            f"{node}-worker",
            node,
            [
                str(BIN / "celery"),
                "-A",
                "dominoes_site",
                "worker",
                "-l",
                "INFO",
                "--concurrency",
                "2",
                "-n",
                f"worker@{node}",
            ],
            self.node_env(node),
        )

    def beat_command(self, node: str) -> list[str]:
        var = self.tmp / node / "var"
        return [
            str(BIN / "celery"),
            "-A",
            "dominoes_site",
            "beat",
            "-l",
            "INFO",
            "--pidfile",
            str(var / "celerybeat.pid"),
            "-s",
            str(var / "celerybeat-schedule"),
        ]

    def start_beat(self, node: str = "node1") -> None:
        self.spawn(f"{node}-beat", node, self.beat_command(node), self.node_env(node))

    def start_standby_beat(self) -> bool:
        """The standby beat on node2: the same beat command (the leader's lease decides which
        one sends: dominoes_site/beat.py), or `--standby-beat`'s command line; `none` for no
        standby. False: none started."""
        if self.args.standby_beat == "none":
            return False
        if self.args.standby_beat:
            command = self.args.standby_beat.split()
        else:
            command = self.beat_command("node2")
        self.spawn("node2-beat", "node2", command, self.node_env("node2"))
        return True

    def start_node(self, node: str, *, beat: bool) -> None:
        names = [d[0] for d in self.daphnes if d[1] == node]
        for name in names:
            self.start_daphne(name)
        self.start_worker(node)
        if beat:
            self.start_beat(node)
        for name in names:
            self.wait_daphne(name)

    def kill_host(self, host: str) -> list[str]:
        """SIGKILL every process of a host (its whole namespace), as when the machine dies."""
        killed = []
        for name, process in self.procs.items():
            if self.hosts[name] == host and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                killed.append(name)
        for pid in self.net.pids(host):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for name in killed:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.procs[name].wait(timeout=10)
        return killed

    # the proxy --------------------------------------------------------------------------------

    def start_proxy(self) -> None:
        env = {
            **os.environ,
            "DOMINOES_LISTEN": f"{self.net.addr('proxy')}:{self.ports['proxy']}",
            "DOMINOES_HOST": SITE,
            "HAPROXY_STATS_SOCKET": str(self.stats_socket),
        }
        for i, (_, node, port) in enumerate(self.daphnes, 1):
            env[f"DOMINOES_WEB{i}"] = f"{self.net.addr(node)}:{port}"
        process = self.spawn(
            "haproxy",
            "proxy",
            ["/usr/sbin/haproxy", "-W", "-db", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
            env,
        )
        wait_for_port(
            self.net.addr("proxy"), self.ports["proxy"], 30, alive=lambda: process.poll() is None
        )

    def haproxy(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.stats_socket))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def server_states(self) -> dict[str, str]:
        """Each daphne as HAProxy sees it in both backends: "UP" when up in both, else e.g.
        "web DOWN, tables UP"."""
        seen: dict[str, dict[str, str]] = defaultdict(dict)
        with contextlib.suppress(OSError):
            for line in self.haproxy("show stat").splitlines():
                fields = line.split(",")
                if len(fields) > 17 and fields[0] in ("web", "tables") and fields[1][:3] == "web":
                    name = self.daphnes[int(fields[1][3:]) - 1][0]
                    seen[name][fields[0]] = fields[17]
        return {
            name: "UP"
            if all(v.startswith("UP") for v in by.values()) and len(by) == 2
            else ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
            for name, by in seen.items()
        }

    def table_sockets_by_node(self) -> dict[str, int]:
        """How many table sockets HAProxy has open to each app node now."""
        counts = dict.fromkeys(NODES, 0)
        for name, count in self.table_sockets_by_daphne().items():
            node = next(d[1] for d in self.daphnes if d[0] == name)
            counts[node] += count
        return counts

    def table_sockets_by_daphne(self) -> dict[str, int]:
        """How many table sockets HAProxy has open to each daphne now."""
        counts = {d[0]: 0 for d in self.daphnes}
        with contextlib.suppress(OSError):
            for line in self.haproxy("show stat").splitlines():
                fields = line.split(",")
                if len(fields) > 17 and fields[0] == "tables" and fields[1][:3] == "web":
                    counts[self.daphnes[int(fields[1][3:]) - 1][0]] += int(fields[4] or 0)
        return counts

    def wait_up(
        self, names: list[str], seconds: float = 90, *, strict: bool = False
    ) -> float | None:
        """Seconds until HAProxy sees every daphne named UP; None (or, strict, an error) when
        that did not happen within `seconds`."""
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            states = self.server_states()
            if all(states.get(n, "").startswith("UP") for n in names):
                return round(time.monotonic() - started, 2)
            time.sleep(0.2)
        if strict:
            raise RuntimeError(f"HAProxy does not see {names} UP: {self.server_states()}")
        log(f"  HAProxy does not see {names} UP after {seconds:g} s: {self.server_states()}")
        return None

    # stopping ---------------------------------------------------------------------------------

    def close(self) -> None:
        for process in self.procs.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 8
        for process in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        if (self.pg_data / "postmaster.pid").exists():
            with contextlib.suppress(Exception):
                self.pg_ctl("stop", "-m", "immediate")
        if self.args.keep:
            log(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


# --- setup and results: Django processes on node1 -----------------------------------------------


def setup_role(spec_path: str, out_path: str) -> None:
    """Players with sessions (and the signup grant), their started one-on-one Citizen tables
    (every other one for Dollars), and the watchers' sessions."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()
    from django.conf import settings

    from ledger.services import StakeSpec, signup_grant
    from tables import services
    from tables.models import Game

    spec = json.loads(Path(spec_path).read_text())
    started = time.monotonic()
    users, sessions = players_with_sessions("Fleet", 2 * spec["tables"])
    for user in users:
        signup_grant(user=user)
    watchers = players_with_sessions("Watcher", spec["watchers"])[1] if spec["watchers"] else []
    tables = []
    staked = 0
    for t in range(spec["tables"]):
        host, guest = users[2 * t], users[2 * t + 1]
        stake = StakeSpec(dollars=spec["stake"]) if spec["stake"] and t % 2 == 0 else None
        table = services.table_create(host=host, mode="citizen", players=2, stake=stake)
        staked += stake is not None
        services.seat_take(table_id=table.pk, user=guest, number=1)
        for user in (host, guest):
            services.seat_ready(table_id=table.pk, user=user, ready=True)
        tables.append({"table": table.pk, "sessions": sessions[2 * t : 2 * t + 2]})
    playing = Game.objects.filter(status=Game.Status.PLAYING).count()
    assert playing == spec["tables"], f"{playing} games started, {spec['tables']} wanted"
    out = {
        "cookie": settings.SESSION_COOKIE_NAME,
        "tables": tables,
        "watchers": watchers,
        "staked": staked,
        "setup_seconds": round(time.monotonic() - started, 1),
    }
    Path(out_path).write_text(json.dumps(out))


def results_role(spec_path: str, out_path: str) -> None:
    """What the database says: each table's seq, every player action, every game replayed by the
    engine against its stored state, and the ledger's reconciliation."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()
    from django.db.models import Sum

    from history.replay import ActionRecord, DealRecord, replay_game
    from ledger.models import Account
    from ledger.services import reconcile_run
    from tables.models import Game, GameAction, Hand, Table

    ids = json.loads(Path(spec_path).read_text())["tables"]
    seqs = dict(Table.objects.filter(pk__in=ids).values_list("pk", "seq"))
    actions: dict[str, list[Any]] = defaultdict(list)
    for table_id, number, version, seat, action in (
        GameAction.objects.filter(game__table_id__in=ids, by_server=False)
        .order_by("game_id", "version")
        .values_list("game__table_id", "game__number", "version", "seat", "action")
    ):
        actions[str(table_id)].append([number, version, seat, action])
    replays = {"games": 0, "ok": 0, "finished": 0, "bad": []}
    for game in Game.objects.filter(table_id__in=ids).exclude(status=Game.Status.WAITING):
        records = [
            ActionRecord(version=v, seat=s, kind=k, action=a)
            for v, s, k, a in GameAction.objects.filter(game=game)
            .order_by("version")
            .values_list("version", "seat", "kind", "action")
        ]
        # Every dealt hand, the one in play included: this is the house checking itself.
        deals = {
            h.number: DealRecord(
                number=h.number,
                seed=h.server_seed,
                commitment=h.commitment,
                contributions=dict(h.contributions or {}),
                washers=None if h.washers is None else list(h.washers),
            )
            for h in Hand.objects.filter(game=game, dealt_at__isnull=False)
        }
        replay = replay_game(game.state["settings"], deals, records)
        replays["games"] += 1
        replays["finished"] += game.status == Game.Status.FINISHED
        rebuilt = json.loads(json.dumps(replay.state.to_json()))
        stored = json.loads(json.dumps(game.state))
        last = records[-1].version if records else 0
        problems = []
        if not replay.complete:
            problems.append(f"replay stopped: {replay.error}")
        if last != game.version:
            problems.append(f"last action version {last}, game version {game.version}")
        if rebuilt != stored:
            keys = sorted(k for k in set(rebuilt) | set(stored) if rebuilt.get(k) != stored.get(k))
            problems.append(f"state differs in {keys[:8]}")
        if game.status == Game.Status.FINISHED and not replay.matches(game.result):
            problems.append("result differs")
        if problems:
            replays["bad"].append({"table": game.table_id, "game": game.number, "why": problems})
        else:
            replays["ok"] += 1
    run = reconcile_run()
    sums = {
        f"{row['currency']}/{row['good_id'] or ''}": row["total"]
        for row in Account.objects.values("currency", "good_id").annotate(total=Sum("balance"))
    }
    Path(out_path).write_text(
        json.dumps(
            {
                "seq": {str(k): v for k, v in seqs.items()},
                "actions": actions,
                "replays": replays,
                "money": {
                    "reconcile_mismatches": run.mismatch_count,
                    "accounts": run.accounts_checked,
                    "postings": run.postings_checked,
                    "balance_sums": sums,
                },
            }
        )
    )


# --- the players ---------------------------------------------------------------------------------


class Target:
    """Where the players connect: the proxy, with the site's name as Host and Origin."""

    address = "127.0.0.1"
    port = 80
    site = SITE


async def fleet_connect(path: str, cookie: str, timeout: float) -> Any:
    from websockets.asyncio.client import connect

    return await connect(
        f"ws://{Target.site}{path}",
        host=Target.address,
        port=Target.port,
        proxy=None,
        origin=f"http://{Target.site}",  # type: ignore[arg-type]
        additional_headers=[("Cookie", cookie)],
        compression=None,
        ping_interval=None,
        open_timeout=timeout,
        close_timeout=2,
        max_size=2**22,
    )


async def _soak_connect(port: int, path: str, cookie: str, timeout: float) -> Any:
    return await fleet_connect(path, cookie, timeout)


soak.ws_connect = _soak_connect  # bench/soak.py's clients, through the proxy


class FleetClient(Client):
    """bench/soak.py's table socket, moving and reconnecting as the page does: told `reconnect`
    by a server being drained, it opens a new socket through the proxy, says hello there and
    closes the old one once the new one is answered (the old one is read until then); after
    the server's close it reconnects at once (0-500 ms) after a 1012 on a working socket, after
    200-1000 ms after another close of a working socket, after 1 s (then 2, 4 ... 15) else."""

    down_at: float | None = None
    moving = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retired: set[Any] = set()  # sockets this client closed after moving off them

    def _takes(self, ws: Any, message: dict[str, Any]) -> bool:
        # Once moved, the old socket's last words are only the answers to its requests.
        return ws is self.ws or message.get("type") in ("ack", "error")

    async def _handle(self, message: dict[str, Any]) -> None:
        if message.get("type") == "reconnect":
            self.tally.n["told_to_move"] += 1
            if not self.moving and self.ws is not None and not self.ctx.stopping:
                task = asyncio.create_task(self.move())
                soak.BACKGROUND.add(task)
                task.add_done_callback(soak.BACKGROUND.discard)
            return
        await super()._handle(message)

    async def move(self) -> None:
        """As the page's moveSocket(): a new socket, answered, then the old one closed. A
        failure changes nothing here: the server closes the old socket with 1012 later."""
        self.moving = True
        old = self.ws
        began = time.monotonic()
        try:
            try:
                new = await fleet_connect(f"/ws/tables/{self.table_id}/", self.cookie, 30)
            except Exception as exc:
                self.tally.handshakes[f"move {soak.handshake_cause(exc)}"] += 1
                if self.ws is None and not self.closing:  # closed meanwhile: reconnect
                    self._reconnect_soon(1012)
                return
            named = self.last_seq
            answer: dict[str, Any] | None = None
            try:
                await new.send(json.dumps({"type": "hello", "last_seq": named}))
                async with asyncio.timeout(soak.REPLY_TIMEOUT):
                    while answer is None:
                        message = json.loads(await new.recv())
                        if message.get("type") in ("snapshot", "resume"):
                            answer = message  # what came before it, the old socket carries
            except Exception:
                answer = None
            # The old socket may have been closed meanwhile (1012: the move took long): the
            # new one takes over all the same, as on the page.
            if answer is None or self.ws not in (old, None) or old is None:
                self.tally.n["moves_abandoned"] += 1
                with contextlib.suppress(Exception):
                    await new.close()
                if self.ws is None and not self.closing:  # nothing took over: as after a close
                    self._reconnect_soon(1012)
                return
            # Change over: the new socket is this client's from here on.
            if self.ws is old:
                self.retired.add(old)
            else:
                self.tally.n["moved_after_close"] += 1
            self.trace.append((self._now(), "moved"))
            self.ws = new
            self.buffer = []
            self.reader = asyncio.create_task(self._read(new))
            if self.last_seq is not None and int(answer["seq"]) < self.last_seq:
                # The old socket brought newer updates than this answer: nothing to draw.
                self.reply_seq = self.last_seq
                self.synced.set()
                if self.down_at is not None:
                    kind = "watcher" if self.watcher else "player"
                    self.tally.samples[f"pause_s:{kind}"].append(time.monotonic() - self.down_at)
                    self.down_at = None
            else:
                self.awaiting, self.hello_last, self.hello_at = "move", named, began
                await self._on_reply(answer)
            self.tally.n["moved"] += 1
            self.tally.samples["move_s"].append(time.monotonic() - began)
            # As the page: a request sent on the old socket is answered there; wait for its
            # answer (2 s at most) before closing it.
            until = time.monotonic() + 2.0
            while self.pending and time.monotonic() < until:
                await asyncio.sleep(0.05)
            with contextlib.suppress(Exception):
                await old.close()
        finally:
            self.moving = False

    def _closed(self, ws: Any) -> None:
        if ws in self.retired:
            self.retired.discard(ws)
            self.trace.append((self._now(), "closed_after_move", ws.close_code))
            return
        working = self.synced.is_set()
        code = self._forget(ws)
        if self.closing:
            return
        if self.down_at is None:
            self.down_at = time.monotonic()
        self.tally.closes[str(code)] += 1
        if code != 1012:
            self.tally.incident("unexpected_close", self, code=code, reason=ws.close_reason)
        if self.moving and code == 1012:
            return  # the socket being moved to takes over (move())
        self._reconnect_soon(code, working)

    def _reconnect_soon(self, code: int, working: bool = True) -> None:
        if self.auto_reconnect and not self.ctx.stopping:
            # As the page (static/js/table.js): a working socket at once after a 1012, after
            # 200-1000 ms after any other close; else after 1 s (then 2, 4 ... 15 s).
            if code == 1012 and working:
                delay = self.ctx.rng.uniform(0, 0.5)
            elif working:
                delay = self.ctx.rng.uniform(0.2, 1.0)
            else:
                delay = 1.0
            task = asyncio.create_task(self.reconnect("after_close", delay))
            soak.BACKGROUND.add(task)
            task.add_done_callback(soak.BACKGROUND.discard)

    async def _on_reply(self, message: dict[str, Any]) -> None:
        await super()._on_reply(message)
        if self.down_at is not None:
            kind = "watcher" if self.watcher else "player"
            self.tally.samples[f"pause_s:{kind}"].append(time.monotonic() - self.down_at)
            self.down_at = None


class NoticesClient:
    """A player's `/ws/notices/` socket (docs/protocol.md, "The notices socket")."""

    def __init__(self, load: Load, name: str, cookie: str) -> None:
        self.load = load
        self.name = name
        self.cookie = cookie
        self.ws: Any = None
        self.hello = False
        self.down_at: float | None = None
        self.moved_to: Any = None  # the greeted socket a move opened, which takes over
        self.moving = False

    async def run(self, delay: float) -> None:
        from websockets.exceptions import ConnectionClosed

        backoff = 1.0
        moved: Any = None
        while not self.load.ctx.stopping:
            tally = self.load.tally
            if moved is not None:  # greeted already: read on, no pause
                ws, moved = moved, None
                self.ws, self.hello = ws, True
            else:
                await asyncio.sleep(delay)
                try:
                    ws = await fleet_connect("/ws/notices/", self.cookie, 30)
                except Exception as exc:
                    tally.handshakes[f"notices {soak.handshake_cause(exc)}"] += 1
                    delay, backoff = backoff, min(15.0, backoff * 2)
                    continue
                self.ws, self.hello, backoff = ws, False, 1.0
            pinger = asyncio.create_task(self._ping(ws))
            try:
                async for raw in ws:
                    message = json.loads(raw)
                    kind = message.get("type")
                    self.load.tally.n[f"notices:{kind}"] += 1
                    if kind == "reconnect" and not self.moving:
                        task = asyncio.create_task(self._move(ws))
                        soak.BACKGROUND.add(task)
                        task.add_done_callback(soak.BACKGROUND.discard)
                    if kind == "hello":
                        self.hello = True
                        if self.down_at is not None:
                            pause = time.monotonic() - self.down_at
                            self.load.tally.samples["pause_s:notices"].append(pause)
                            self.down_at = None
                    elif kind == "error":
                        self.load.tally.errors[f"notices:{message.get('code')}"] += 1
            except ConnectionClosed:
                pass
            finally:
                pinger.cancel()
                self.ws = None
            if self.load.ctx.stopping:
                return
            if self.moved_to is not None:  # this client closed the old socket: moved
                moved, self.moved_to = self.moved_to, None
                self.load.tally.n["notices:moved"] += 1
                continue
            code = int(ws.close_code) if ws.close_code is not None else 1006
            self.load.tally.closes[f"notices:{code}"] += 1
            if code in (4001, 4003):
                return
            self.down_at = self.down_at or time.monotonic()
            # As static/js/notices.js: a working socket at once after a 1012, after 200-1000 ms
            # after any other close (then 2, 4 ... 15 s); one never greeted backs off.
            if code == 1012 and self.hello:
                delay = self.load.ctx.rng.uniform(0, 0.5)
            elif self.hello:
                delay, backoff = self.load.ctx.rng.uniform(0.2, 1.0), 2.0
            else:
                delay, backoff = backoff, min(15.0, backoff * 2)

    async def _ping(self, ws: Any) -> None:
        with contextlib.suppress(Exception):
            while True:
                await asyncio.sleep(25)
                await ws.send(json.dumps({"type": "ping"}))

    async def _move(self, old: Any) -> None:
        """As static/js/notices.js: a new socket, greeted, then the old one closed (the run loop
        reads on from the new one). A failure changes nothing: the server's 1012 comes later."""
        self.moving = True
        try:
            new = await fleet_connect("/ws/notices/", self.cookie, 30)
            async with asyncio.timeout(soak.REPLY_TIMEOUT):
                while json.loads(await new.recv()).get("type") != "hello":
                    pass
        except Exception as exc:
            self.load.tally.handshakes[f"notices move {soak.handshake_cause(exc)}"] += 1
            return
        finally:
            self.moving = False
        if self.ws is not old:
            with contextlib.suppress(Exception):
                await new.close()
            return
        self.moved_to = new
        with contextlib.suppress(Exception):
            await old.close()

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


class FleetTable:
    """One table played at a human pace; asked to move at once from a scenario's moment on."""

    def __init__(self, load: Load, group: Group, seed: int) -> None:
        self.load = load
        self.group = group
        self.rng = random.Random(seed)
        self.poke = asyncio.Event()
        self.probe_since: float | None = None
        self.recovered: float | None = None
        self.busy = False
        self.offered: set[int] = set()
        self.tasks: list[asyncio.Task[None]] = []

    def probe(self, since: float) -> None:
        self.probe_since, self.recovered = since, None
        self.poke.set()

    async def run(self) -> None:
        load, group = self.load, self.group
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(c.synced.wait() for c in group.players)), 120)
        lo, hi = load.args.move_seconds
        while not load.ctx.stopping:
            pause = 0.3 if self.probe_since is not None else self.rng.uniform(lo, hi)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.poke.wait(), pause)
            self.poke.clear()
            if load.ctx.stopping:
                break
            if load.quiet:
                continue
            self.busy = True
            try:
                await self.step()
            finally:
                self.busy = False
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def step(self) -> None:
        load, group = self.load, self.group
        waited_from = time.monotonic()
        while True:
            group.watch()
            head = group.head()
            if head is not None:
                key, view = head
                if view.get("phase") == "game_over":
                    self.rematch(key[0])
                    return
                seat = view.get("to_act")
                actor = group.players[seat] if isinstance(seat, int) else None
                if actor is not None and actor.synced.is_set() and actor.key == key:
                    action = choose_action(actor.view or {}, self.rng)
                    if action is not None:
                        break
            if time.monotonic() - waited_from > 5 or load.ctx.stopping:
                load.tally.n["waits_for_actor"] += 1
                return
            await group.wait_change(1.0)
        witnesses = [
            c for c in [*group.players, *load.watchers_of[group.table_id]] if c.synced.is_set()
        ]
        record = {
            "scenario": load.scenario,
            "table": group.table_id,
            "game": key[0],
            "base": key[1],
            "seat": seat,
            "action": action,
            "acked": None,
        }
        load.acts.append(record)
        sent = time.monotonic()
        reply = await actor.act(action, key[1])
        if reply is None:
            load.tally.n["acts_interrupted"] += 1
            return
        if reply.get("type") == "error":
            record["error"] = reply.get("code")
            if reply.get("code") == "stale":
                await actor.hello("stale")
            return
        now = time.monotonic()
        record["acked"] = int(reply["version"])
        load.tally.n["moves"] += 1
        load.tally.samples["ack_s"].append(now - sent)
        if self.probe_since is not None:
            self.recovered = now - self.probe_since
            self.probe_since = None
        target = (key[0], int(reply["version"]))
        late = sent + LATE_SECONDS
        until = sent + DEAF_SECONDS
        while True:
            group.watch()
            live = [c for c in witnesses if c.synced.is_set()]
            lagging = [c for c in live if c.key < target]
            if not lagging:
                if len(live) == len(witnesses):
                    load.tally.samples["delivery_s"].append(time.monotonic() - sent)
                return
            now = time.monotonic()
            if late and now > late:
                load.tally.n["updates_late_5s"] += len(lagging)  # slow, not (yet) deaf
                late = 0.0
            if now > until:
                # Open and answered, and still without its table's move after 15 s. Nothing is
                # done about it (the page would do nothing either): a socket that never hears
                # it is deaf at the end of the scenario, after the quiet settle.
                load.tally.n["updates_later_15s"] += len(lagging)
                for c in lagging:
                    load.tally.incident("update_later_15s", c, wanted=target, have=c.key)
                return
            await group.wait_change(min(until, late or until) - now)

    def rematch(self, number: int) -> None:
        if number in self.offered:
            return
        self.offered.add(number)
        self.load.tally.n["games_finished"] += 1
        for player in self.group.players:
            self.tasks.append(asyncio.create_task(self.offer(player, number)))

    async def offer(self, player: Client, number: int) -> None:
        await asyncio.sleep(self.rng.uniform(1, 3))
        while not self.load.ctx.stopping:
            head = self.group.head()
            if head is not None and head[0][0] > number:
                return
            ready = player.synced.is_set() and player.key[0] == number
            if ready and await player.send({"type": "rematch", "want": True}):
                self.load.tally.n["rematch_offers"] += 1
                return
            await asyncio.sleep(0.5)


class Load:
    """Every socket of the run and the tables' players."""

    def __init__(self, args: argparse.Namespace, setup: dict[str, Any]) -> None:
        self.args = args
        self.ctx = Context([Target.port], setup["cookie"], random.Random(args.seed))
        self.tally = Tally("warm-up")
        self.scenario = "warm-up"
        self.quiet = False
        self.acts: list[dict[str, Any]] = []
        self.tables: list[FleetTable] = []
        self.players: list[FleetClient] = []
        self.watchers: list[FleetClient] = []
        self.watchers_of: dict[int, list[FleetClient]] = defaultdict(list)
        self.notices: list[NoticesClient] = []
        cookie = setup["cookie"]
        for t, spec in enumerate(setup["tables"]):
            group = Group(spec["table"])
            for s, session in enumerate(spec["sessions"]):
                c = FleetClient(self.ctx, self.tally, group, f"t{t}.s{s}", session, Target.port)
                group.players.append(c)
                self.players.append(c)
                self.notices.append(NoticesClient(self, f"t{t}.s{s}.n", f"{cookie}={session}"))
            self.tables.append(FleetTable(self, group, args.seed * 1000003 + t))
        for w, session in enumerate(setup["watchers"]):
            group = self.tables[w % len(self.tables)].group
            c = FleetClient(
                self.ctx, self.tally, group, f"w{w}", session, Target.port, watcher=True
            )
            if group.watcher is None:
                group.watcher = c
            self.watchers.append(c)
            self.watchers_of[group.table_id].append(c)
        self.background: list[asyncio.Task[Any]] = []

    @property
    def sockets(self) -> list[FleetClient]:
        return [*self.players, *self.watchers]

    def new_tally(self, name: str) -> Tally:
        self.tally = Tally(name)
        self.scenario = name
        for c in self.sockets:
            c.tally = self.tally
        return self.tally

    async def start(self, ramp: float) -> None:
        rng = random.Random(self.args.seed + 17)

        async def arrive(c: FleetClient, delay: float) -> None:
            await asyncio.sleep(delay)
            tries = 0
            while not await c.open("connect"):
                tries += 1
                if tries >= 6:
                    return
                await asyncio.sleep(min(15.0, 2.0**tries))
            await c.wait_reply(60)

        arrivals = [arrive(c, rng.uniform(0, ramp)) for c in self.sockets]
        for n in self.notices:
            self.background.append(asyncio.create_task(n.run(rng.uniform(0, ramp))))
        for c in self.players:
            self.background.append(
                asyncio.create_task(soak.pinger(self.ctx, c, random.Random(rng.random())))
            )
        await asyncio.gather(*arrivals)
        self.background += [asyncio.create_task(t.run()) for t in self.tables]

    def probe(self, since: float) -> None:
        for t in self.tables:
            t.probe(since)

    async def recovery(self, since: float, limit: float = RECOVERY_LIMIT) -> dict[str, Any]:
        """Ask every table to move from `since` on; the time each took (None: not within limit)."""
        self.probe(since)
        deadline = since + limit
        while time.monotonic() < deadline and any(t.recovered is None for t in self.tables):
            await asyncio.sleep(0.2)
        times = [t.recovered for t in self.tables]
        done = sorted(x for x in times if x is not None)
        for t in self.tables:
            t.probe_since = None
        return {
            "tables": len(times),
            "moved_again": len(done),
            "p50_s": round(done[len(done) // 2], 2) if done else None,
            "max_s": round(done[-1], 2) if done else None,
            "stuck_tables": [t.group.table_id for t in self.tables if t.recovered is None][:20],
        }

    async def settle(self, seconds: float) -> None:
        """Stop moving, let every move in flight finish, then wait `seconds` more."""
        self.quiet = True
        deadline = time.monotonic() + 40
        while any(t.busy for t in self.tables) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(seconds)

    async def stop(self) -> None:
        self.ctx.stopping = True
        for t in self.tables:
            t.poke.set()
        for task in self.background:
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self.sockets), return_exceptions=True)
        await asyncio.gather(*(n.close() for n in self.notices), return_exceptions=True)


# --- checks ---------------------------------------------------------------------------------------


def judge_moves(acts: list[dict[str, Any]], db: dict[str, Any]) -> dict[str, Any]:
    """Acknowledged moves missing from the database, and player actions in the database that no
    act (or more than one application of one act) explains."""

    def canon(action: Any) -> str:
        return json.dumps({k: v for k, v in action.items() if k != "seat"}, sort_keys=True)

    stored: dict[tuple[int, int, int], tuple[int, str]] = {}
    for table, rows in db["actions"].items():
        for number, version, seat, action in rows:
            stored[(int(table), number, version)] = (seat, canon(action))
    sent: dict[tuple[int, int, int], list[dict[str, Any]]] = defaultdict(list)
    for act in acts:
        sent[(act["table"], act["game"], act["base"] + 1)].append(act)
    lost = []
    for act in acts:
        if act["acked"] is None:
            continue
        row = stored.get((act["table"], act["game"], act["base"] + 1))
        if row is None or row != (act["seat"], canon(act["action"])):
            lost.append(act)
    unexplained = []
    for key, (seat, action) in stored.items():
        if not any(a["seat"] == seat and canon(a["action"]) == action for a in sent.get(key, [])):
            unexplained.append({"table": key[0], "game": key[1], "version": key[2], "seat": seat})
    return {
        "acts_sent": len(acts),
        "acked": sum(a["acked"] is not None for a in acts),
        "database_player_moves": len(stored),
        "lost": len(lost),
        "lost_detail": lost[:20],
        "applied_twice_or_unexplained": len(unexplained),
        "unexplained_detail": unexplained[:20],
    }


def deaf_sockets(load: Load, db: dict[str, Any]) -> dict[str, Any]:
    """After a quiet settle: every open, answered socket must have its table's seq."""
    deaf, not_open, waiting = [], 0, 0
    for c in load.sockets:
        want = db["seq"][str(c.table_id)]
        if c.ws is None:
            not_open += 1
        elif not c.synced.is_set() or c.awaiting is not None:
            waiting += 1
        elif (c.last_seq or 0) < want:
            deaf.append(
                {
                    "socket": c.name,
                    "table": c.table_id,
                    "have": c.last_seq,
                    "want": want,
                    "recent": list(c.trace)[-8:],
                }
            )
    return {
        "deaf": len(deaf),
        "deaf_detail": deaf[:20],
        "not_open": not_open,
        "waiting_for_answer": waiting,
    }


BEAT_SEND = re.compile(r"^\[?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)\b.*Sending due task (\S+)")


def beat_sends(fleet: Fleet) -> dict[str, list[float]]:
    """Every periodic task any beat sent, with its time (epoch seconds), from the beats' logs."""
    sends: dict[str, list[float]] = defaultdict(list)
    for name, paths in fleet.logs.items():
        if not name.endswith("-beat"):
            continue
        for path in paths:
            with contextlib.suppress(OSError):
                for line in path.read_text(errors="replace").splitlines():
                    m = BEAT_SEND.match(line)
                    if m:
                        when = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
                        sends[m.group(2)].append(when.timestamp())
    return {k: sorted(v) for k, v in sends.items()}


HAPROXY_STATE = re.compile(r"^Server (web|tables)/(web\d) is (UP|DOWN), reason: ([^,]+)")


def haproxy_changes(fleet: Fleet, offsets: dict[str, int]) -> list[str]:
    """The daphnes HAProxy took out and put back during a scenario, with its reasons."""
    changes = []
    for path in fleet.logs["haproxy"]:
        with contextlib.suppress(OSError), open(path, "rb") as f:
            f.seek(offsets.get(str(path), 0))
            for line in f.read().decode(errors="replace").splitlines():
                m = HAPROXY_STATE.match(line)
                if m:
                    name = fleet.daphnes[int(m.group(2)[3:]) - 1][0]
                    changes.append(f"{m.group(1)}: {name} {m.group(3)} ({m.group(4)})")
    return changes


def twice_sent(sends: dict[str, list[float]]) -> dict[str, int]:
    """Sends of one periodic task closer together than half its usual interval."""
    out = {}
    for task, times in sends.items():
        gaps = [b - a for a, b in itertools.pairwise(times)]
        if len(gaps) < 3:
            continue
        usual = sorted(gaps)[len(gaps) // 2]
        close = sum(g < usual / 2 for g in gaps)
        if close:
            out[task] = close
    return out


# --- scenarios ------------------------------------------------------------------------------------


def scrape_node(fleet: Fleet, node: str) -> dict[str, float] | None:
    """One node's figures as Prometheus reads them: `/metrics` of the first of its daphnes that
    answers (in multiprocess mode each daphne serves every process of its host), summed over
    processes; None when none answers."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    for _name, host, port in fleet.daphnes:
        if host != node:
            continue
        request = urllib.request.Request(
            f"http://{fleet.net.addr(node)}:{port}/metrics", headers={"Host": SITE}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
        except Exception:
            continue
        figures: dict[str, float] = defaultdict(float)
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels = ",".join(
                    f"{k}={v}" for k, v in sorted(sample.labels.items()) if k != "pid"
                )
                figures[f"{sample.name}{{{labels}}}" if labels else sample.name] += sample.value
        return dict(figures)
    return None


def scrape(fleet: Fleet) -> dict[str, dict[str, float] | None]:
    return {node: scrape_node(fleet, node) for node in NODES}


def _fleet_sum(scraped: dict[str, dict[str, float] | None], key: str) -> float:
    return sum((figures or {}).get(key, 0.0) for figures in scraped.values())


def _histogram_quantiles(
    before: dict[str, dict[str, float] | None],
    after: dict[str, dict[str, float] | None],
    name: str,
) -> dict[str, Any]:
    """A histogram's count and p50/p99 (the upper bound of the bucket it falls in) over the
    scenario, from the bucket counts' growth, as Prometheus's histogram_quantile reads them."""
    grown: dict[float, float] = defaultdict(float)
    keys = {k for figures in after.values() for k in figures or {}}
    for key in keys:
        if key.startswith(f"{name}_bucket{{"):
            labels = dict(pair.split("=", 1) for pair in key[key.index("{") + 1 : -1].split(","))
            # summed over the other labels (a task's name, ...)
            grown[float(labels["le"])] += _fleet_sum(after, key) - _fleet_sum(before, key)
    total = grown.get(float("inf"), 0.0)
    out: dict[str, Any] = {"count": int(total)}
    for q in (0.5, 0.99):
        out[f"p{int(q * 100)}_le_s"] = next(
            (b for b in sorted(grown) if total and grown[b] >= q * total), None
        )
    return out


def judge_metrics(
    load: Load,
    before: dict[str, dict[str, float] | None],
    after: dict[str, dict[str, float] | None],
    acts: tuple[int, int, int],
    unacked: int,
) -> dict[str, Any]:
    """What the fleet's own metrics say about the scenario, and whether they agree with what
    the players saw: the moves counted against the moves sent and acked, the open sockets
    against the sockets the players hold, messages the channel layer dropped."""

    def grew(key: str) -> int:
        return round(_fleet_sum(after, key) - _fleet_sum(before, key))

    def grew_by(prefix: str) -> dict[str, int]:
        keys = {k for figures in after.values() for k in (figures or {}) if k.startswith(prefix)}
        return {k[len(prefix) :].strip("{}"): grew(k) for k in sorted(keys) if grew(k)}

    first, at_before, last = acts
    window = load.acts[first:last]
    acked = sum(1 for a in window if a.get("acked") is not None)
    # acts unacked when the first reading began, and acts sent while it was taken, may have been
    # counted before it or after it
    in_flight = unacked + (at_before - first)
    open_table = sum(1 for c in load.sockets if c.ws is not None)
    open_notices = sum(1 for n in load.notices if n.ws is not None)
    return {
        "read_from": {node: figures is not None for node, figures in after.items()},
        "read_before": {node: figures is not None for node, figures in before.items()},
        "player_moves": grew("dominoes_moves_total{by=player}"),
        "server_moves": grew("dominoes_moves_total{by=server}"),
        "acts_sent": len(window),
        "acts_acked": acked,
        "acts_in_flight_at_first_reading": in_flight,
        "move_ack": _histogram_quantiles(before, after, "dominoes_move_ack_seconds"),
        "gym_clock_lateness": _histogram_quantiles(
            before, after, "dominoes_gym_clock_lateness_seconds"
        ),
        "task_lateness": _histogram_quantiles(before, after, "dominoes_task_lateness_seconds"),
        "layer_send_failures": grew_by("dominoes_channel_layer_send_failures_total"),
        "layer_resyncs": grew("dominoes_channel_layer_resyncs_total"),
        "database_retries": grew_by("dominoes_database_retries_total"),
        "handshakes_rejected": grew_by("dominoes_handshakes_rejected_total"),
        "presence_swept": grew("dominoes_presence_swept_total"),
        "sockets_open": {
            "table": int(_fleet_sum(after, "dominoes_sockets_open{kind=table}")),
            "notices": int(_fleet_sum(after, "dominoes_sockets_open{kind=notices}")),
        },
        "players_hold": {"table": open_table, "notices": open_notices},
        "celery_queue": _fleet_sum(after, "dominoes_celery_queue_depth"),
    }


async def thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return await asyncio.to_thread(fn, *args, **kwargs)


async def scenario_rolling(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    """Every daphne in turn, as docs/deploy.md's rolling deploy: the new daphne started beside
    it on its address (SO_REUSEPORT), listening, then the old one SIGTERMed (drained: its
    sockets move to the new one, where the proxy's routing sends them); the next only once
    HAProxy sees it UP. (On a tree without SO_REUSEPORT: put in maintenance at the proxy,
    SIGTERMed, started again, made ready.)"""
    drains = []
    handover = fleet.reuse_port
    out["procedure"] = "handover (SO_REUSEPORT)" if handover else "maintenance, restart"
    for index, (name, _, _) in enumerate(fleet.daphnes, start=1):
        process = fleet.procs[name]
        before = fleet.table_sockets_by_daphne()
        if handover:
            fleet.start_daphne(name)  # the new one: fleet.procs[name] from here on
            await thread(fleet.wait_listening, name)
        else:
            # out of the proxy's rotation first (existing sockets stay), so no new connection
            # meets the closed port and HAProxy's 1 s retry turn-around
            fleet.haproxy(f"set server web/web{index} state maint")
            fleet.haproxy(f"set server tables/web{index} state maint")
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            code = await thread(process.wait, 30)
        except subprocess.TimeoutExpired:
            code = None
            process.kill()
        took = time.monotonic() - stopped
        if not handover:
            fleet.start_daphne(name)
            await thread(fleet.wait_daphne, name)
            fleet.haproxy(f"set server web/web{index} state ready")
            fleet.haproxy(f"set server tables/web{index} state ready")
        up = await thread(fleet.wait_up, [name])
        drains.append(
            {
                "daphne": name,
                "exit": code,
                "drain_s": round(took, 2),
                "back_up_s": round(time.monotonic() - stopped, 2),
                "haproxy_up_s": up,
                # Where the drained daphne's table sockets went (HAProxy's count per daphne).
                "table_sockets_before": before,
                "table_sockets_after": fleet.table_sockets_by_daphne(),
            }
        )
        log(
            f"  {name}: exit {code} after {took:.2f} s; "
            f"UP again at {time.monotonic() - stopped:.1f} s"
        )
    out["drains"] = drains
    return time.monotonic()


async def scenario_lost_machine(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    at = time.monotonic()
    out["killed"] = await thread(fleet.kill_host, "node1")
    log(f"  node1 lost: {out['killed']}")
    out["recovery"] = await load.recovery(at)
    log(f"  every table moves again: {out['recovery']}")
    await thread(fleet.start_node, "node1", beat=True)
    out["node1_back_s"] = await thread(fleet.wait_up, [d[0] for d in fleet.daphnes])
    return at


async def scenario_redis(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    process = fleet.procs["redis"]
    process.send_signal(signal.SIGKILL)
    await thread(process.wait, 10)
    await asyncio.sleep(fleet.args.redis_down)
    await thread(fleet.start_redis)
    back = time.monotonic()
    log(f"  Redis down {fleet.args.redis_down:g} s, an empty one is back")
    out["recovery"] = await load.recovery(back)
    out["all_up_s"] = await thread(fleet.wait_up, [d[0] for d in fleet.daphnes])
    return back


async def scenario_postgres(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    started = time.monotonic()
    await thread(fleet.pg_ctl, "restart", "-m", "fast")
    back = time.monotonic()
    out["restart_s"] = round(back - started, 2)
    log(f"  PostgreSQL restarted (-m fast) in {back - started:.2f} s")
    out["recovery"] = await load.recovery(back)
    out["all_up_s"] = await thread(fleet.wait_up, [d[0] for d in fleet.daphnes])
    return back


async def _partition(fleet: Fleet, load: Load, out: dict[str, Any], other: str) -> float:
    if fleet.net.mode != "netns":
        out["skipped"] = "needs network namespaces"
        return time.monotonic()
    # The node whose daphnes hold most table sockets (after a lost machine they all sit on the
    # node that took them over: cutting the other one would test nothing).
    sockets = fleet.table_sockets_by_node()
    node = max(sockets, key=lambda n: sockets[n])
    out["cut"] = {"node": node, "from": other, "table_sockets_by_node": sockets}
    fleet.net.cut(node, other, on=True)
    log(
        f"  {node} (table sockets by node: {sockets}) cut from {other} for "
        f"{fleet.args.partition_seconds:g} s"
    )
    try:
        await asyncio.sleep(fleet.args.partition_seconds)
        out["states_during"] = fleet.server_states()
    finally:
        fleet.net.cut(node, other, on=False)
    healed = time.monotonic()
    out["recovery"] = await load.recovery(healed)
    out["all_up_s"] = await thread(fleet.wait_up, [d[0] for d in fleet.daphnes])
    return healed


async def scenario_partition_redis(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    return await _partition(fleet, load, out, "redis")


async def scenario_partition_postgres(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    return await _partition(fleet, load, out, "db")


async def scenario_beat(fleet: Fleet, load: Load, out: dict[str, Any]) -> float:
    standby = "node2-beat" in fleet.procs
    beat = fleet.procs["node1-beat"]
    killed = time.time()
    os.killpg(beat.pid, signal.SIGKILL)
    await thread(beat.wait, 10)
    out["standby"] = standby
    if standby:
        await asyncio.sleep(LIMITS["beat"]["standby_sweep_s"] + 2)
    else:
        out["note"] = "no standby beat (--standby-beat): beat is started again on node1 after 5 s"
        await asyncio.sleep(5)
        fleet.start_beat("node1")
    deadline = time.monotonic() + 90
    while True:
        sends = beat_sends(fleet)
        after = [t for t in sends.get("gym-clock-sweep", []) if t > killed]
        if after or time.monotonic() > deadline:
            break
        await asyncio.sleep(1)
    out["next_gym_sweep_s"] = round(after[0] - killed, 2) if after else None
    return time.monotonic()


SCENARIO_RUNNERS = {
    "rolling": scenario_rolling,
    "lost-machine": scenario_lost_machine,
    "redis": scenario_redis,
    "postgres": scenario_postgres,
    "partition-redis": scenario_partition_redis,
    "partition-postgres": scenario_partition_postgres,
    "beat": scenario_beat,
}


async def run_scenario(
    name: str, fleet: Fleet, load: Load, results_dir: Path, table_ids: list[int]
) -> dict[str, Any]:
    args = fleet.args
    load.quiet = False
    tally = load.new_tally(name)
    offsets = {str(p): p.stat().st_size for ps in fleet.logs.values() for p in ps if p.exists()}
    first_act = len(load.acts)
    # acts waiting for their ack now may land on either side of the first reading
    unacked = sum(1 for a in load.acts if a.get("acked") is None and "error" not in a)
    metrics_before = await thread(scrape, fleet)
    acts_at_reading = len(load.acts)
    log(f"scenario {name}: {args.before:g} s of play first")
    await asyncio.sleep(args.before)
    out: dict[str, Any] = {"scenario": name}
    load_before = [round(x, 1) for x in os.getloadavg()]
    moment = await SCENARIO_RUNNERS[name](fleet, load, out)
    if "recovery" not in out and not out.get("skipped"):
        out["recovery"] = await load.recovery(moment)
    await asyncio.sleep(args.after)
    await load.settle(args.settle)
    metrics_after = await thread(scrape, fleet)
    metrics = judge_metrics(
        load,
        metrics_before,
        metrics_after,
        (first_act, acts_at_reading, len(load.acts)),
        unacked,
    )
    asked = fleet.tmp / "results-spec.json"
    asked.write_text(json.dumps({"tables": table_ids}))
    path = fleet.tmp / "results.json"
    await thread(django_role, fleet, "results", str(asked), str(path))
    db = json.loads(path.read_text())
    moves = judge_moves(load.acts, db)
    deaf = deaf_sockets(load, db)
    # The deaf ones counted, each asks for what it missed, so the next scenario starts whole.
    for c in load.sockets:
        if c.synced.is_set() and (c.last_seq or 0) < db["seq"][str(c.table_id)]:
            c.awaiting = None
            await c.hello("after_check")
    sends = beat_sends(fleet)
    pauses = {
        k.split(":")[1]: latency_summary(v)
        for k, v in tally.samples.items()
        if k.startswith("pause_s:")
    }
    player_pause = max(tally.samples.get("pause_s:player", [0.0]) or [0.0])
    errors = dict(tally.errors)
    closes = dict(tally.closes)
    # What a player sees: an error message, or a page that falls back to its back-off (any close
    # but 1012), or a handshake refused.
    shown = (
        sum(v for k, v in errors.items() if k.split(":")[-1] not in QUIET_ERRORS)
        + sum(v for k, v in closes.items() if not k.endswith("1012"))
        + sum(tally.handshakes.values())
    )
    found_logs = scan_logs([p for ps in fleet.logs.values() for p in ps], offsets, None)
    out.update(
        {
            "date": dt.datetime.now().isoformat(timespec="seconds"),
            "revision": code_revision(),
            "net": fleet.net.mode,
            "tables": len(load.tables),
            "players": len(load.players),
            "watchers": len(load.watchers),
            "notices_sockets": len(load.notices),
            "moves": moves,
            "sockets": deaf,
            "replays": db["replays"],
            "money": db["money"],
            "closes_by_code": closes,
            "errors": errors,
            "handshake_failures": dict(tally.handshakes),
            "errors_shown": shown,
            "pauses": pauses,
            "longest_player_pause_s": round(player_pause, 2),
            "counts": dict(tally.n),
            "ack": latency_summary(tally.samples.get("ack_s", [])),
            # every timing the sockets took: handshake_s:<why>, reply_s:<why> (hello -> answer),
            # pause_s:<socket kind> (close -> answered again), pong_s, ...
            "timings_ms": {
                k: {m: round(x, 1) for m, x in latency_summary(v).items()}
                for k, v in sorted(tally.samples.items())
            },
            "delivery": latency_summary(tally.samples.get("delivery_s", [])),
            "beat": {"sends": {k: len(v) for k, v in sends.items()}, "twice": twice_sent(sends)},
            "haproxy_changes": haproxy_changes(fleet, offsets),
            "logs": {k: v for k, v in found_logs.items() if v["tracebacks"] or v["error_lines"]},
            "load_average": {
                "before": load_before,
                "after": [round(x, 1) for x in os.getloadavg()],
            },
            "incidents": tally.incidents[:100],
            "metrics": metrics,
        }
    )
    out["verdict"] = verdict(name, out)
    results_dir.mkdir(parents=True, exist_ok=True)
    target = results_dir / f"cluster-{name}-{dt.date.today().isoformat()}.json"
    target.write_text(json.dumps(out, indent=1, default=str))
    out["file"] = str(target)
    print_summary(out)
    return out


def verdict(name: str, out: dict[str, Any]) -> dict[str, bool]:
    if out.get("skipped"):
        return {}
    rec = out.get("recovery") or {}
    v = {
        "moves lost 0": out["moves"]["lost"] == 0,
        "moves applied twice 0": out["moves"]["applied_twice_or_unexplained"] == 0,
        "deaf sockets 0": out["sockets"]["deaf"] == 0,
        "games replay": not out["replays"]["bad"],
        "money conserved": out["money"]["reconcile_mismatches"] == 0
        and all(v == 0 for v in out["money"]["balance_sums"].values()),
        "no 1011": not any(k.endswith("1011") for k in out["closes_by_code"]),
    }
    m = out["metrics"]
    slack = m["acts_in_flight_at_first_reading"]
    v["metrics read from every node"] = all(m["read_from"].values()) and all(
        m["read_before"].values()
    )
    v["metrics: moves counted = moves acked"] = (
        m["acts_acked"] - slack <= m["player_moves"] <= m["acts_sent"] + slack
    )
    v["metrics: open sockets = sockets the players hold"] = m["sockets_open"] == m["players_hold"]
    v["metrics: channel layer dropped nothing"] = not m["layer_send_failures"].get(
        "outcome=given_up"
    )
    limit = LIMITS[name].get("recovery_max_s")
    if limit:
        v[f"every table moves within {limit:g} s"] = (
            rec.get("moved_again") == rec.get("tables") and (rec.get("max_s") or 1e9) <= limit
        )
    if name == "rolling":
        v["longest pause <= 2 s"] = (
            out["longest_player_pause_s"] <= LIMITS["rolling"]["pause_max_s"]
        )
        v["no error shown"] = out["errors_shown"] == 0
        v["drained within 10 s, exit 0"] = all(
            d["exit"] == 0 and d["drain_s"] <= LIMITS["rolling"]["drain_s"] for d in out["drains"]
        )
    if name == "beat":
        v["no periodic task sent twice"] = not out["beat"]["twice"]
        if out.get("standby"):
            v["standby sweeps within 30 s"] = (out.get("next_gym_sweep_s") or 1e9) <= 30
    return v


def print_summary(out: dict[str, Any]) -> None:
    name = out["scenario"]
    if out.get("skipped"):
        print(f"\n== {name}: skipped ({out['skipped']})")
        return
    rec = out.get("recovery") or {}
    m, s = out["moves"], out["sockets"]
    rows = [
        ("moves acked / in database", f"{m['acked']} / {m['database_player_moves']}"),
        ("moves lost / applied twice", f"{m['lost']} / {m['applied_twice_or_unexplained']}"),
        (
            "deaf sockets at end",
            f"{s['deaf']}",
        ),
        (
            "updates later than 5 s / 15 s",
            f"{out['counts'].get('updates_late_5s', 0)} / "
            f"{out['counts'].get('updates_later_15s', 0)}; delivery p50 "
            f"{out['delivery']['p50_ms']:.0f} ms, p99 {out['delivery']['p99_ms']:.0f} ms",
        ),
        (
            "load average before / after",
            f"{out['load_average']['before']} / {out['load_average']['after']}",
        ),
        ("sockets not open / waiting at end", f"{s['not_open']} / {s['waiting_for_answer']}"),
        ("games replayed ok", f"{out['replays']['ok']} of {out['replays']['games']}"),
        (
            "money: reconcile mismatches, sums",
            f"{out['money']['reconcile_mismatches']}, {out['money']['balance_sums']}",
        ),
        (
            "tables moving again",
            f"{rec.get('moved_again')}/{rec.get('tables')}, "
            f"p50 {rec.get('p50_s')} s, max {rec.get('max_s')} s",
        ),
        (
            "longest pause: player / notices",
            f"{out['longest_player_pause_s']} s / "
            f"{(out['pauses'].get('notices') or {}).get('max_ms', 0) / 1000:.2f} s",
        ),
        ("closes by code", json.dumps(out["closes_by_code"])),
        ("errors received / shown", f"{json.dumps(out['errors'])} / {out['errors_shown']}"),
        ("handshake failures", json.dumps(out["handshake_failures"])),
        (
            "HAProxy took a daphne out",
            f"{sum(' DOWN ' in c for c in out['haproxy_changes'])} times",
        ),
        (
            "server logs with tracebacks/errors",
            ", ".join(
                f"{k}: {v['tracebacks']} tb, {v['error_lines']} err" for k, v in out["logs"].items()
            )
            or "none",
        ),
    ]
    m = out["metrics"]
    rows.append(
        (
            "metrics: moves / acked; ack p50, p99",
            f"{m['player_moves']} (+{m['server_moves']} server) / {m['acts_acked']}; "
            f"<= {m['move_ack']['p50_le_s']} s, <= {m['move_ack']['p99_le_s']} s",
        )
    )
    rows.append(
        (
            "metrics: sockets open / held",
            f"{json.dumps(m['sockets_open'])} / {json.dumps(m['players_hold'])}",
        )
    )
    rows.append(
        (
            "metrics: layer failures, resyncs, db",
            f"{json.dumps(m['layer_send_failures'])}, {m['layer_resyncs']}, "
            f"{json.dumps(m['database_retries'])}",
        )
    )
    if name == "rolling":
        rows.append(("drains (s)", ", ".join(f"{d['drain_s']}" for d in out["drains"])))
    if name == "beat":
        rows.append(
            (
                "next Gym sweep after kill",
                f"{out.get('next_gym_sweep_s')} s; standby: {out.get('standby')}",
            )
        )
        rows.append(("periodic tasks sent twice", json.dumps(out["beat"]["twice"])))
    print(f"\n== {name} ({out['file']})")
    for label, value in rows:
        print(f"  {label:38} {value}")
    for label, ok in out["verdict"].items():
        print(f"  {'PASS' if ok else 'FAIL'}  {label}")


# --- main -----------------------------------------------------------------------------------------


def django_role(fleet: Fleet, role: str, *args: str) -> None:
    fleet.run(
        "node1",
        [sys.executable, str(Path(__file__).resolve()), f"--_{role}", *args],
        env=fleet.node_env("node1"),
        timeout=1800,
    )


async def drive(
    args: argparse.Namespace, fleet: Fleet, setup: dict[str, Any], names: list[str]
) -> list[dict[str, Any]]:
    load = Load(args, setup)
    log(
        f"load: {len(load.players)} players, {len(load.watchers)} watchers, "
        f"{len(load.notices)} notices sockets through {Target.address}:{Target.port}, "
        f"ramp {args.ramp:g} s"
    )
    await load.start(args.ramp)
    answered = sum(c.synced.is_set() for c in load.sockets)
    log(
        f"load: {answered} of {len(load.sockets)} table sockets answered; warm-up {args.warmup:g} s"
    )
    await asyncio.sleep(args.warmup)
    results = []
    table_ids = [t.group.table_id for t in load.tables]
    try:
        for name in names:
            results.append(await run_scenario(name, fleet, load, Path(args.results), table_ids))
    finally:
        await load.stop()
    return results


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--scenario",
        default="rolling",
        help=f"{', '.join(SCENARIOS)}, 'partition' (both) or 'all'; several: a,b",
    )
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--watchers", type=int, default=200)
    p.add_argument("--stake", type=int, default=5, help="Dollars on every other table (0: none)")
    p.add_argument(
        "--move-seconds", type=lambda s: tuple(float(x) for x in s.split(",")), default=(2.0, 6.0)
    )
    p.add_argument("--ramp", type=float, default=10.0, help="seconds over which the sockets arrive")
    p.add_argument("--warmup", type=float, default=10.0)
    p.add_argument("--before", type=float, default=10.0, help="play before each scenario's fault")
    p.add_argument("--after", type=float, default=10.0, help="play after each table moved again")
    p.add_argument("--settle", type=float, default=3.0, help="quiet seconds before the checks")
    p.add_argument("--redis-down", type=float, default=2.0)
    p.add_argument("--partition-seconds", type=float, default=10.0)
    p.add_argument(
        "--standby-beat",
        default="",
        help="command line of the standby beat on node2 (default: the same beat; none: no standby)",
    )
    p.add_argument("--net", choices=("auto", "netns", "loopback"), default="auto")
    p.add_argument(
        "--short", action="store_true", help="CI: 10 tables, 20 watchers, rolling then redis"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--results", default=str(ROOT / "bench" / "results"))
    p.add_argument("--keep", action="store_true", help="keep the run's folder (logs)")
    p.add_argument(
        "--cleanup", action="store_true", help="remove what an earlier run left, and exit"
    )
    p.add_argument("--_setup", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--_results", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.short:
        args.tables, args.watchers, args.scenario = 10, 20, "short"
        args.ramp, args.warmup, args.before, args.after = 5.0, 5.0, 5.0, 5.0
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._setup:
        setup_role(*args._setup)
        return 0
    if args._results:
        results_role(*args._results)
        return 0
    if args.cleanup:
        cleanup_leftovers()
        return 0
    if args.scenario == "short":
        names = ["rolling", "redis"]
    else:
        names = [n for part in args.scenario.split(",") for n in ALIASES.get(part, (part,))]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenario {unknown}: {SCENARIOS}")
    mode = args.net
    if mode == "auto":
        mode = "netns" if Net.possible() else "loopback"
    if mode == "netns" and Net.remove_all():
        log("removed namespaces an earlier run left")

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)  # also when started with SIGINT ignored (a background job)
    net = Net(mode)
    fleet: Fleet | None = None
    started = time.monotonic()
    try:
        net.up()
        fleet = Fleet(args, net)
        log(f"hosts: {mode} ({', '.join(f'{h} {net.addr(h)}' for h in HOSTS)}); folder {fleet.tmp}")
        fleet.start_postgres()
        fleet.start_redis()
        log("db and redis up; migrating")
        fleet.run(
            "node1",
            [sys.executable, "manage.py", "migrate", "-v", "0"],
            env=fleet.node_env("node1"),
        )
        spec = fleet.tmp / "setup-spec.json"
        spec.write_text(
            json.dumps({"tables": args.tables, "watchers": args.watchers, "stake": args.stake})
        )
        out = fleet.tmp / "setup.json"
        django_role(fleet, "setup", str(spec), str(out))
        setup = json.loads(out.read_text())
        log(
            f"setup: {args.tables} tables ({setup['staked']} for Dollars), "
            f"{args.watchers} watchers, {setup['setup_seconds']} s; starting the nodes "
            f"({'dominoes_site.serve' if fleet.serve else 'daphne'})"
        )
        fleet.start_node("node1", beat=True)
        fleet.start_node("node2", beat=False)
        if fleet.start_standby_beat():
            log("standby beat started on node2")
        fleet.start_proxy()
        up = fleet.wait_up([d[0] for d in fleet.daphnes], strict=True)
        log(f"proxy up, every daphne UP after {up} s")
        Target.address, Target.port, Target.site = (
            net.addr("proxy"),
            fleet.ports["proxy"],
            fleet.site,
        )
        net.enter("load")  # the players' host: from here on this process is on the load host
        results = asyncio.run(drive(args, fleet, setup, names))
        failed = [r["scenario"] for r in results if not all(r["verdict"].values())]
        log(
            f"done in {(time.monotonic() - started) / 60:.1f} min; "
            f"{'every check passed' if not failed else 'FAILED: ' + ', '.join(failed)}"
        )
        return 1 if failed else 0
    except KeyboardInterrupt:
        log("interrupted: cleaning up")
        return 130
    finally:
        if fleet is not None:
            fleet.close()
        if mode == "netns":
            Net.remove_all()


if __name__ == "__main__":
    sys.exit(main())
