"""The bot over real HTTP: /quiz → tap → verdict cycles against the fake Bot API server.

Each variant is a process long polling a `FakeBotApiServer` on 127.0.0.1 (keep-alive
connections, as Telegram's; BENCH_HTTP_KEEP_ALIVE=0 for one per call): (a) a bare PTB bot of the
same shape on PTB's default transport, (b) quizbot on PTB's HTTPXRequest (`QUIZBOT_HTTP=httpx`),
(c) quizbot on FastRequest (the default), (d) the bare bot on FastRequest and (e) a bare
aiogram 3 bot (where aiogram is installed), for scale. LEARNERS simulated learners each loop
/quiz → tap the first option → wait for the verdict edit; the server itself sends the next
update the moment the bot's call arrives, so nothing polls. One warm-up cycle per learner, then
CYCLES each are timed, with the bot process's CPU time (user + system, all threads) over the
same window: on a loaded machine CPU per cycle is the steadier figure. Variants alternate
a b c d e a b c d e ...; target: (c) ≥ 1.0× (a).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests import factories, sample_bank
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer
from tests.ops_support import write_bank

LEARNERS = int(os.environ.get("BENCH_HTTP_LEARNERS", "64"))
CYCLES = int(os.environ.get("BENCH_HTTP_CYCLES", "8"))
ROUNDS = int(os.environ.get("BENCH_HTTP_ROUNDS", "3"))
# 0: a new connection per call (the fake server's HTTP/1.0 mode), so pools hold nothing.
KEEP_ALIVE = os.environ.get("BENCH_HTTP_KEEP_ALIVE", "1") != "0"
FIRST_ID = 50_000
ROOT = Path(__file__).resolve().parents[2]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (every thread)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Learners(FakeBotApi):
    """A fake Bot API that plays LEARNERS learners: each answer of the bot triggers the next
    update at once (a tap for a question, the next /quiz for a verdict)."""

    def __init__(self, warm_up: int, timed: int) -> None:
        super().__init__()
        self.users = {FIRST_ID + i: factories.user(FIRST_ID + i, f"L{i}") for i in range(LEARNERS)}
        self.pending: dict[int, int] = {}  # chat → the question message awaiting its verdict
        self.cycles = 0
        self.marks = (warm_up, warm_up + timed)
        self.at: dict[int, tuple[float, float]] = {}  # cycles → (wall time, bot CPU)
        self.pid = 0
        self.finished = threading.Event()
        self._driver_lock = threading.Lock()

    def start(self, pid: int) -> None:
        """Every learner sends /quiz."""
        self.pid = pid
        for chat in self.users:
            self.ask(chat)

    def ask(self, chat: int) -> None:
        user = self.users[chat]
        self.push_update(factories.command("/quiz", user, factories.private_chat(user)))

    def handle(
        self, method: str, params: dict[str, Any], files: dict[str, bytes] | None = None
    ) -> tuple[int, Any]:
        status, body = super().handle(method, params, files)
        if status == 200:
            self._react(method.lower(), params, body["result"])
        return status, body

    def _react(self, method: str, params: dict[str, Any], result: Any) -> None:
        if method == "sendmessage" and isinstance(result, dict):
            chat = result["chat"]["id"]
            rows = (result.get("reply_markup") or {}).get("inline_keyboard", [])
            taps = [b["callback_data"] for r in rows for b in r if "callback_data" in b]
            data = next((d for d in taps if d.startswith("a:")), None)
            if chat in self.users and data:
                with self._driver_lock:
                    self.pending[chat] = result["message_id"]
                self.push_update(factories.callback(data, self.users[chat], result))
        elif method == "editmessagetext":
            chat, message_id = int(params["chat_id"]), int(params["message_id"])
            with self._driver_lock:
                if self.pending.get(chat) != message_id:
                    return
                del self.pending[chat]
                self.cycles += 1
                if self.cycles in self.marks:
                    self.at[self.cycles] = (time.perf_counter(), cpu_seconds(self.pid))
                if self.cycles >= self.marks[1]:
                    self.finished.set()
            if not self.finished.is_set():
                self.ask(chat)


@dataclass(frozen=True)
class Variant:
    name: str
    command: list[str]
    env: dict[str, str]


VARIANTS = [
    Variant("(a) bare PTB, PTB's default transport", ["-m", "tests.bench.bare_ptb_bot"], {}),
    Variant("(b) quizbot, HTTPXRequest", ["-m", "bot", "run"], {"QUIZBOT_HTTP": "httpx"}),
    Variant("(c) quizbot, FastRequest", ["-m", "bot", "run"], {"QUIZBOT_HTTP": "fast"}),
    Variant(
        "(d) bare PTB, FastRequest", ["-m", "tests.bench.bare_ptb_bot"], {"BARE_HTTP": "fast"}
    ),
]
if importlib.util.find_spec("aiogram") is not None:  # no dependency of quizbot: for scale only
    VARIANTS.append(Variant("(e) bare aiogram 3", ["-m", "tests.bench.bare_aiogram_bot"], {}))


def run(variant: Variant, questions: Path, tmp: Path) -> tuple[float, float]:
    """(cycles per second, bot CPU ms per cycle) of one timed run."""
    api = Learners(warm_up=LEARNERS, timed=LEARNERS * CYCLES)
    db = tmp / f"bot-{time.monotonic_ns()}.sqlite3"
    with FakeBotApiServer(api, keep_alive=KEEP_ALIVE) as server:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))}
        env = {
            **base,
            "PYTHONPATH": os.pathsep.join([str(ROOT), base.get("PYTHONPATH", "")]),
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": server.url,
            "QUIZBOT_DB": str(db),
            "QUIZBOT_QUESTIONS": str(questions),
            "QUIZBOT_FLOOD_BURST": "0",  # the learners tap as fast as the bot answers
            "QUIZBOT_LOG_LEVEL": "WARNING",
            **variant.env,
        }
        log = (tmp / "bot.log").open("ab")
        proc = subprocess.Popen(
            [sys.executable, *variant.command], cwd=ROOT, env=env, stdout=log, stderr=log
        )
        try:
            server.wait_for(lambda a: proc.poll() is None and a.count("getUpdates") > 0, 60)
            api.start(proc.pid)
            if not api.finished.wait(300):
                raise AssertionError(f"{variant.name}: {api.cycles} cycles only")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
    (t0, c0), (t1, c1) = api.at[api.marks[0]], api.at[api.marks[1]]
    cycles = api.marks[1] - api.marks[0]
    return cycles / (t1 - t0), (c1 - c0) * 1000 / cycles


def main() -> None:
    print(
        f"   {LEARNERS} learners, {CYCLES} timed cycles each, {ROUNDS} rounds, interleaved,"
        f" keep-alive {'on' if KEEP_ALIVE else 'off'}"
    )
    bank = sample_bank.bank([sample_bank.question(f"q{i}") for i in range(CYCLES + 20)])
    rates: dict[str, list[float]] = {v.name: [] for v in VARIANTS}
    cpus: dict[str, list[float]] = {v.name: [] for v in VARIANTS}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        questions = write_bank(tmp / "banks", bank)
        for _ in range(ROUNDS):
            for variant in VARIANTS:
                rate, cpu = run(variant, questions, tmp)
                rates[variant.name].append(rate)
                cpus[variant.name].append(cpu)
    base_rates, base_cpus = rates[VARIANTS[0].name], cpus[VARIANTS[0].name]
    for variant in VARIANTS:
        r, c = rates[variant.name], cpus[variant.name]
        ratio = sorted(x / b for x, b in zip(r, base_rates, strict=True))
        cpu_ratio = statistics.median(b / x for x, b in zip(c, base_cpus, strict=True))
        print(
            f"   {variant.name:40} {min(r):6.0f} / {statistics.median(r):6.0f} / {max(r):6.0f}"
            f" cycles/s; × (a): {ratio[0]:.2f} / {statistics.median(ratio):.2f} /"
            f" {ratio[-1]:.2f}; CPU {min(c):.1f} / {statistics.median(c):.1f} / {max(c):.1f}"
            f" ms a cycle (× (a) by CPU: {cpu_ratio:.2f})"
        )
