"""deploy/ stays consistent with the code: settings, commands and paths the recipes name."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.cli import build_parser
from bot.config import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
ENV_LINE = re.compile(r"^#?\s*([A-Z][A-Z0-9_]*)=", re.MULTILINE)
ENV_NAME = re.compile(r"\b((?:QUIZBOT|BOT)_[A-Z0-9_]+)\b")


def settings_env_names() -> set[str]:
    """The environment variables Settings reads (each field's validation alias)."""
    names = set()
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        assert isinstance(alias, str), f"Settings.{name} has no env name"
        names.add(alias)
    return names


def subcommands() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices is not None
    return set(sub.choices)


def test_env_example_names_every_setting_once() -> None:
    text = (DEPLOY / ".env.example").read_text()
    named = ENV_LINE.findall(text)
    assert sorted(named) == sorted(set(named)), "a setting is listed twice"
    assert set(named) == settings_env_names()


def test_env_example_shows_the_defaults() -> None:
    text = (DEPLOY / ".env.example").read_text()
    shown = dict(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=(.*)$", text, re.MULTILINE))
    for info in Settings.model_fields.values():
        default = info.default
        if info.default_factory is not None or default is None or isinstance(default, frozenset):
            continue  # unset / computed defaults are described in words
        expected = str(default).lower() if isinstance(default, bool) else str(default)
        assert shown[str(info.validation_alias)] == expected, info.validation_alias


def test_recipes_only_use_settings_that_exist() -> None:
    known = settings_env_names()
    for name in ("Dockerfile", "docker-compose.yml", "quizbot.service"):
        used = set(ENV_NAME.findall((DEPLOY / name).read_text()))
        assert used, name
        assert used <= known, f"{name}: unknown settings {sorted(used - known)}"


def test_recipes_run_commands_that_exist() -> None:
    commands = subcommands()
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    unit = (DEPLOY / "quizbot.service").read_text()
    assert 'CMD ["quizbot", "run"]' in dockerfile and "run" in commands
    assert 'CMD ["quizbot", "health"]' in dockerfile and "health" in commands
    assert "ExecStart=/opt/quizbot/.venv/bin/quizbot run\n" in unit
    for copied in re.findall(r"^COPY (?!--from)(\S+)", dockerfile, re.MULTILINE):
        assert (ROOT / copied).exists(), copied


def test_dockerfile_and_unit_essentials() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.MULTILINE)
    assert "USER quizbot" in dockerfile and "QUIZBOT_DB=/data/quizbot.sqlite3" in dockerfile
    assert 'VOLUME ["/data"]' in dockerfile and "HEALTHCHECK" in dockerfile
    unit = (DEPLOY / "quizbot.service").read_text()
    for line in (
        "Restart=on-failure",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "ReadWritePaths=/var/lib/quizbot",
        "EnvironmentFile=/etc/quizbot/quizbot.env",
        "KillSignal=SIGTERM",
        "ExecReload=/bin/kill -HUP $MAINPID",
    ):
        assert line in unit.splitlines(), line
    assert re.search(r"^TimeoutStopSec=\d+$", unit, re.MULTILINE)


def test_compose_file_is_valid_yaml_with_volume_and_restart() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    service = compose["services"]["quizbot"]
    assert service["build"]["dockerfile"] == "deploy/Dockerfile"
    assert service["env_file"] == ".env" and service["restart"] == "unless-stopped"
    assert "quizbot-data:/data" in service["volumes"] and "quizbot-data" in compose["volumes"]


def test_postgres_compose_runs_two_bots_on_one_database_behind_the_proxy() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.postgres.yml").read_text())
    services = compose["services"]
    assert {"postgres", "bot-1", "bot-2", "caddy"} <= set(services)
    for name in ("bot-1", "bot-2"):
        bot = services[name]
        assert bot["build"]["dockerfile"] == "deploy/Dockerfile"
        assert bot["environment"]["QUIZBOT_DB"].startswith("postgresql://")
        assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert '".[postgres]"' in (DEPLOY / "Dockerfile").read_text()
    caddy = (DEPLOY / "Caddyfile").read_text()
    assert "bot-1:8443 bot-2:8443" in caddy and "health_uri /healthz" in caddy
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]


def test_template_unit_runs_one_process_per_port() -> None:
    unit = (DEPLOY / "quizbot@.service").read_text()
    lines = unit.splitlines()
    assert "ExecStart=/opt/quizbot/.venv/bin/quizbot run" in lines
    assert "Environment=QUIZBOT_WEBHOOK_PORT=%i" in lines
    assert "EnvironmentFile=/etc/quizbot/quizbot.env" in lines
    used = set(ENV_NAME.findall(unit))
    assert used <= settings_env_names(), sorted(used - settings_env_names())
    # The template is sandboxed as the single unit is: the same hardening block, line for line.
    single = (DEPLOY / "quizbot.service").read_text()

    def hardening(text: str) -> str:
        return text[text.index("# --- Hardening") : text.index("\n[Install]")].strip()

    assert hardening(unit) == hardening(single)
    assert "SystemCallFilter=@system-service" in hardening(unit)


def test_deploy_files_point_at_sections_that_exist() -> None:
    """A comment's "(docs/operations.md, "Deploying")" names a heading of that document."""
    for path in DEPLOY.iterdir():
        if not path.is_file():
            continue
        for doc, section in re.findall(r'\(([\w./-]+\.md|README), "([^"]+)"\)', path.read_text()):
            named = DEPLOY.parent / (doc if doc.endswith(".md") else f"{doc}.md")
            headings = re.findall(r"^#+ (.+)$", named.read_text(), re.M)
            assert section in headings, (path.name, doc, section)
