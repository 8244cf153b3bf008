"""The bot on a genuinely full filesystem (`python -m tests.bench storage_full`).

The database lives on its own small tmpfs (mounted here: this needs root, else the bench says
so and stops). The bot runs as a real process, polling a fake Bot API. Learners ask a first
question while there is space; then the WAL is checkpointed and cut to nothing (so no write
finds room left in it) and a filler file takes every free byte, and while the disk is
full 20 new learners send /quiz and 5 learners tap an answer on their question. The bench
counts what they got (the "can't save right now" reply, a question, or nothing), taps with no
callback answer, traceback lines in the bot's log and what `quizbot health` says. Then the
filler is removed: how many of the 20 got their question once space returned, and whether 20
more learners are served as usual.

Both modes: polling, and webhook, where the bench posts each update again every second until
the bot answers 200 (as Telegram does) and asks `GET /healthz` too. `QUIZBOT_BENCH_MODES=polling`
runs one. `QUIZBOT_BENCH_BEFORE=/path/to/another/checkout` runs that checkout's bot too,
interleaved with this one (before, after, before, after...), for a before/after comparison.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, fields
from itertools import count
from pathlib import Path
from statistics import median
from typing import Any

from tests import factories
from tests.botprocess import BotProcess
from tests.fakes import TOKEN, FakeBotApi, FakeBotApiServer, post_webhook
from tests.ops_support import free_port

REPS = 3
SIZE = "24m"  # the tmpfs: the bot's database, its WAL and its bank cache fit easily
TAPPERS = 5
ASKERS = 20
FAULT_WAIT_S = 15.0  # how long the learners wait for a reply while the disk is full
RECOVERY_WAIT_S = 30.0
CANNOT_SAVE = "I can't save right now"
VERDICTS = ("✅", "❌", "Selected:")  # a verdict, or a "select two" pick held
THIS_CHECKOUT = Path(__file__).resolve().parents[2]
SECRET = "bench-secret"
UPDATE_IDS = count(1)  # webhook mode: Telegram numbers the updates it posts


@dataclass
class Run:
    quiz_cannot_save: int = 0  # of ASKERS /quiz while full: told "can't save"
    quiz_question: int = 0  # ... got a question all the same (the write fitted somewhere)
    quiz_silent: int = 0  # ... got nothing within FAULT_WAIT_S
    taps_unanswered: int = 0  # of TAPPERS taps while full: no answerCallbackQuery
    taps_cannot_save: int = 0  # ... answered "can't save"
    taps_verdict: int = 0  # ... answered with a verdict (the answer fitted in the WAL's slack)
    tracebacks: int = 0  # "Traceback (most recent call last)" lines in the log
    fault_log_lines: int = 0  # log lines naming a storage fault
    health_ok_while_full: int = 0  # 1: `quizbot health` exited 0 on the full disk
    late_questions: int = 0  # of the ASKERS: their question came once space returned
    recovered: int = 0  # of ASKERS new learners after space returned: got a question
    health_ok_after: int = 0  # 1: `quizbot health` exited 0 once space returned
    healthz_while_full: int = 0  # webhook mode: GET /healthz's status on the full disk
    healthz_after: int = 0  # ... once space returned
    late_taps: int = 0  # of the taps unanswered while full: answered once space returned
    refused_posts: int = 0  # webhook mode: posts answered other than 200 (sent again)
    notes: list[str] = field(default_factory=list)  # what health said, the taps' answers


def mount_tmpfs(where: Path) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def umount(where: Path) -> None:
    subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(where: Path) -> Path:
    """Take every free byte of the filesystem at `where` with one file; its path."""
    filler = where / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for chunk in (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1):
            block = b"\0" * chunk
            while True:
                try:
                    os.write(fd, block)
                except OSError as err:
                    if err.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
    return filler


def truncate_wal(db: Path) -> None:
    """Copy the WAL into the database and cut it to nothing (a reader may do it), so that the
    next write needs new space: without it, writes can reuse the room of a WAL that grew
    before, and a full disk would go unnoticed for a while."""
    for _ in range(50):
        done = factories.one(db, "PRAGMA wal_checkpoint(TRUNCATE)")
        if done is not None and not done[0] and Path(f"{db}-wal").stat().st_size == 0:
            return
        time.sleep(0.1)
    raise RuntimeError("the WAL could not be truncated")


def health(checkout: Path, db: Path) -> tuple[int, str]:
    """1 when `quizbot health` says ok (exit 0), else 0; and the error it names."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "BOT_"))},
        "QUIZBOT_DB": str(db),
        "BOT_TOKEN": TOKEN,
        "PYTHONPATH": str(checkout),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        env=env,
        cwd=db.parent.parent,
        capture_output=True,
        check=False,
        timeout=60,
    )
    try:
        report = json.loads(done.stdout)
        database = report.get("database", {})
        error = "; ".join(
            str(e)
            for e in (
                report.get("error"),
                database.get("error"),
                database.get("bot", {}).get("problem"),
                None if report.get("question_banks", {}).get("ok", True) else "banks",
            )
            if e
        )
    except (ValueError, AttributeError):
        said = (done.stdout + done.stderr).decode(errors="replace").strip().splitlines()
        error = said[-1] if said else f"exit {done.returncode}"
    return int(done.returncode == 0), error


def texts(api: FakeBotApi, chat_id: int) -> list[str]:
    return [str(m.get("text", "") or m.get("caption", "")) for m in api.messages_to(chat_id)]


def got_question(api: FakeBotApi, chat_id: int) -> bool:
    return any(m.get("reply_markup") for m in api.messages_to(chat_id))


def wait(predicate: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.2)


def answered(api: FakeBotApi, callback_id: str) -> list[str]:
    """The texts of the callback answers to one press."""
    return [
        str(c.params.get("text", ""))
        for c in api.calls_of("answerCallbackQuery")
        if str(c.params.get("callback_query_id")) == callback_id
    ]


class Telegram:
    """How updates reach the bot: queued for getUpdates, or posted to its webhook and posted
    again every second until it answers 200, as Telegram does."""

    def __init__(self, api: FakeBotApi, url: str | None) -> None:
        self.api, self.url = api, url
        self.refused = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def send(self, update: dict[str, Any]) -> None:
        if self.url is None:
            self.api.push_update(update)
            return
        update = {**update, "update_id": next(UPDATE_IDS)}
        thread = threading.Thread(target=self._post, args=(update,), daemon=True)
        thread.start()
        self._threads.append(thread)

    def _post(self, update: dict[str, Any]) -> None:
        assert self.url is not None
        while not self._stop.is_set():
            try:
                if post_webhook(self.url, update, SECRET) == 200:
                    return
            except OSError:
                pass
            self.refused += 1
            self._stop.wait(1.0)

    def healthz(self) -> int:
        if self.url is None:
            return 0
        health_url = self.url.rsplit("/", 1)[0] + "/healthz"
        try:
            with urllib.request.urlopen(health_url, timeout=10) as reply:
                return int(reply.status)
        except urllib.error.HTTPError as err:
            return int(err.code)
        except OSError:
            return -1

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(5)


def once(checkout: Path, tmp: Path, first: int, mode: str) -> Run:
    run = Run()
    disk = tmp / f"disk{first}"
    if not mount_tmpfs(disk):
        raise PermissionError("mounting a tmpfs needs root")
    api = FakeBotApi()
    try:
        with FakeBotApiServer(api) as server:
            args: tuple[str, ...] = ()
            env: dict[str, str] = {}
            url = None
            if mode == "webhook":
                port = free_port()
                url = f"http://127.0.0.1:{port}/hook"
                args = ("--webhook", url)
                env = {"QUIZBOT_WEBHOOK_SECRET": SECRET, "QUIZBOT_WEBHOOK_PORT": str(port)}
            bot = BotProcess(server, tmp, *args, env=env, db=disk / "bot.sqlite3")
            bot.env["PYTHONPATH"] = str(checkout)
            bot.env["QUIZBOT_LOG_LEVEL"] = "INFO"
            telegram = Telegram(api, url)
            bot.start()
            try:
                if url is None:
                    server.wait_for(lambda a: a.count("getUpdates") >= 1, timeout=60)
                else:
                    server.wait_for(lambda a: a.webhook_url == url, timeout=60)
                tappers = [factories.user(first + i, "T") for i in range(TAPPERS)]
                for u in tappers:
                    telegram.send(factories.command("/quiz", u, factories.private_chat(u)))
                wait(lambda: all(got_question(api, int(u["id"])) for u in tappers), 30)
                questions = [api.last_message(int(u["id"])) or {} for u in tappers]
                time.sleep(1.5)  # the inbox's done marks written
                truncate_wal(bot.db)
                filler = fill(disk)

                askers = [factories.user(first + 100 + i, "A") for i in range(ASKERS)]
                for u in askers:
                    telegram.send(factories.command("/quiz", u, factories.private_chat(u)))
                presses = []
                for u, message in zip(tappers, questions, strict=True):
                    data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
                    press = factories.callback(data, u, message)
                    presses.append(press["callback_query"]["id"])
                    telegram.send(press)

                def all_heard() -> bool:
                    return all(texts(api, int(u["id"])) for u in askers) and all(
                        answered(api, p) for p in presses
                    )

                wait(all_heard, FAULT_WAIT_S)
                for u in askers:
                    said = texts(api, int(u["id"]))
                    if any(CANNOT_SAVE in t for t in said):
                        run.quiz_cannot_save += 1
                    elif got_question(api, int(u["id"])):
                        run.quiz_question += 1
                    else:
                        run.quiz_silent += 1
                for p in presses:
                    said = answered(api, p)
                    run.taps_unanswered += not said
                    run.taps_cannot_save += any(CANNOT_SAVE in t for t in said)
                    run.taps_verdict += any(t.startswith(VERDICTS) for t in said)
                unanswered = [p for p in presses if not answered(api, p)]
                run.healthz_while_full = telegram.healthz()
                run.health_ok_while_full, said = health(checkout, bot.db)
                run.notes.append(f"health while full: {said or 'ok'}")
                run.notes.extend(sorted({t for p in presses for t in answered(api, p)}))

                filler.unlink()  # space returns
                waiting = [u for u in askers if not got_question(api, int(u["id"]))]
                wait(
                    lambda: all(got_question(api, int(u["id"])) for u in waiting),
                    RECOVERY_WAIT_S,
                )
                run.late_questions = sum(got_question(api, int(u["id"])) for u in waiting)
                wait(lambda: all(answered(api, p) for p in unanswered), 5)
                run.late_taps = sum(bool(answered(api, p)) for p in unanswered)
                fresh = [factories.user(first + 200 + i, "F") for i in range(ASKERS)]
                for u in fresh:
                    telegram.send(factories.command("/quiz", u, factories.private_chat(u)))
                wait(lambda: all(got_question(api, int(u["id"])) for u in fresh), RECOVERY_WAIT_S)
                run.recovered = sum(got_question(api, int(u["id"])) for u in fresh)
                time.sleep(2.0)  # a heartbeat written again
                run.healthz_after = telegram.healthz()
                run.health_ok_after, said = health(checkout, bot.db)
                run.notes.append(f"health after: {said or 'ok'}")
            finally:
                telegram.stop()
                run.refused_posts = telegram.refused
                bot.stop()
            log = bot.output()
            run.tracebacks = log.count("Traceback (most recent call last)")
            run.fault_log_lines = sum(
                "storage fault" in line or "database or disk is full" in line
                for line in log.splitlines()
            )
    finally:
        umount(disk)
        shutil.rmtree(disk, ignore_errors=True)
    return run


def spread(values: list[int]) -> str:
    return f"{min(values)} / {median(values):g} / {max(values)}"


def main() -> None:
    """Print each run's counts, then min / median / max per checkout."""
    before = os.environ.get("QUIZBOT_BENCH_BEFORE")
    checkouts = [("before", Path(before)), ("after", THIS_CHECKOUT)] if before else []
    checkouts = checkouts or [("this", THIS_CHECKOUT)]
    modes = [m for m in os.environ.get("QUIZBOT_BENCH_MODES", "polling,webhook").split(",") if m]
    runs: dict[str, list[Run]] = {f"{m} {name}": [] for m in modes for name, _ in checkouts}
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            for rep in range(REPS):
                for name, checkout in checkouts:
                    n += 1
                    try:
                        run = once(checkout, Path(tmp), 10_000 * n, mode)
                    except PermissionError as err:
                        print(f"   cannot run: {err}")
                        return
                    runs[f"{mode} {name}"].append(run)
                    print(f"   {mode} {name} #{rep + 1}: {json.dumps(run.__dict__)}", flush=True)
    for name, got in runs.items():
        print(f"   {name} (min / median / max of {len(got)}):")
        for f in fields(Run):
            if f.name == "notes":
                continue
            print(f"     {f.name}: {spread([getattr(r, f.name) for r in got])}")


if __name__ == "__main__":
    main()
