"""The services every handler needs, reached through a typed context instead of bot_data keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from telegram.ext import Application, CallbackContext, ExtBot, JobQueue

from bot.practice.core import Core
from bot.schedule.push import PushService
from bot.schedule.ticker import Ticker
from bot.telegram.alerts import AdminAlerts
from bot.telegram.inbox import Inbox
from bot.telegram.outbound.flood import FloodGate
from bot.telegram.outbound.group_budget import GroupBudget
from bot.telegram.outbound.refusals import RefusalGate
from bot.telegram.outbound.throttle import EditThrottle
from bot.telegram.webhook_guard import RateLimitedLog


@dataclass(slots=True)
class Services(Core):
    """The core services and what only the bot has; created in post_init, closed in
    post_shutdown."""

    push: PushService
    alerts: AdminAlerts
    throttle: EditThrottle  # live-count edits per group
    flood: FloodGate = field(default_factory=lambda: FloodGate(0, 60))  # per-sender updates
    inbox: Inbox | None = None  # updates stored before they are acknowledged
    refusals: RefusalGate = field(default_factory=RefusalGate)  # "admins only", out loud
    budget: GroupBudget = field(default_factory=GroupBudget)  # a group's messages a minute
    # The database's count of bank reloads that this process's catalog has caught up with.
    bank_version: int = 0


@dataclass
class OpsState:
    """What the running bot last saw and last wrote for `quizbot health`."""

    last_update_at: float | None = None
    last_written_at: float = float("-inf")
    updates_seen: int = 0
    # Storage faults by kind, each logged once a minute with the count held back.
    storage_faults: dict[str, RateLimitedLog] = field(default_factory=dict)
    # "I can't save right now": once a minute per user and chat.
    told_cannot_save: RefusalGate = field(default_factory=lambda: RefusalGate(60.0))
    unsaved_at_stop: bool = False  # the stop could not be recorded: `run` exits non-zero


class BotData:
    """Application-wide state; PTB creates it empty (one per application), post_init fills it."""

    def __init__(self) -> None:
        self.services: Services | None = None
        self.ops = OpsState()
        self.ticker: Ticker | None = None  # repeating jobs on monotonic time


class QuizContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    """CallbackContext with typed access to our services."""

    @property
    def services(self) -> Services:
        services = self.bot_data.services
        if services is None:
            raise RuntimeError("services are not ready: post_init has not run")
        return services


QuizApp = Application[
    ExtBot[None],
    QuizContext,
    dict[Any, Any],
    dict[Any, Any],
    BotData,
    JobQueue[Any],
]
