"""Imports point one way: cli -> commands -> telegram -> schedule -> practice -> storage ->
domain -> bank, and only bot/telegram imports the `telegram` library.

Each module's imports are read with `ast` (lazy imports inside functions count too). A module
may import its own layer or any lower one. To place a new package, add it to RANKS; one not
listed gets DEFAULT_RANK (the practice layer: it may use storage and the domain, and nothing
that talks to Telegram).
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"

# Higher imports lower. Equal ranks may import each other; the domain-level packages are
# ordered so that learning < mock < analysis (a later one may use an earlier one).
RANKS: dict[str, int] = {
    "bot.bank": 0,
    "bot.domain": 10,
    "bot.learning": 11,
    "bot.mock": 12,
    "bot.analysis": 13,
    "bot.charts": 14,  # a view helper for telegram/ and commands/: domain in, pictures out
    "bot.config": 15,
    "bot.logging_setup": 15,
    "bot.storage": 20,
    "bot.health": 25,
    "bot.practice": 30,
    "bot.schedule": 40,
    "bot.telegram": 50,
    "bot.commands": 60,
    "bot.cli": 70,
    "bot.__main__": 70,
    "bot.plural": 0,  # wording shared by every layer that shows counts
    "bot": 0,  # bot/__init__.py
}
DEFAULT_RANK = RANKS["bot.practice"]
TELEGRAM_LIBRARY = ("telegram",)
ALLOWED_TELEGRAM = "bot.telegram"
# The SQLite driver is the SQLite engine's: everything else goes through bot/storage/port.py.
DRIVERS = ("sqlite3", "aiosqlite")
# And the Anki importer: an .apkg holds an SQLite file, which is a format to read, not a database
# of the bot's (it is opened read-only from a temporary copy).
ALLOWED_DRIVERS = ("bot.storage.sqlite", "bot.bank.importers.anki")
TESTS = BOT.parent / "tests"
# The adapters allowed a dependency's private name: PTB publishes no alias for the "default
# value or value" parameters of BaseRequest.do_request, which the fake request must spell to
# override it (test_private_names_the_adapter_uses_still_exist fails if it goes).
PRIVATE_ADAPTERS = {"tests.fakes.request": "telegram._utils.types"}
# The bot's files that read a dependency's private attribute off an object, each with a test
# that fails loudly when the dependency changes it: aiosqlite's connection internals
# (tests/test_db_readers.py), PTB's Bot._post (tests/test_json_api.py), matplotlib's per-glyph
# drawing (tests/test_charts.py).
PRIVATE_ATTRIBUTE_ADAPTERS = {
    "bot/storage/sqlite/aio.py",
    "bot/telegram/outbound/json_api.py",
    "bot/charts/agg_glyphs.py",
}


def module_name(path: Path) -> str:
    if not path.is_relative_to(BOT.parent):
        return path.stem
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def rank(module: str) -> int:
    """The rank of the longest RANKS prefix of a module name."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        found = RANKS.get(".".join(parts[:n]))
        if found is not None and (n > 1 or module == "bot"):
            return found
    return DEFAULT_RANK


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).rsplit(".", 0 if path.name == "__init__.py" else 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            # `from bot.storage import push_log` imports the module bot.storage.push_log.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def violations() -> list[str]:
    out = []
    for path in sorted(BOT.rglob("*.py")):
        me = module_name(path)
        for line, target in imports(path):
            where = f"{path.relative_to(BOT.parent)}:{line}"
            top = target.split(".")[0]
            if top in TELEGRAM_LIBRARY and not me.startswith(ALLOWED_TELEGRAM):
                out.append(f"{where}: {me} imports the telegram library ({target})")
            if top == "bot" and rank(target) > rank(me):
                out.append(f"{where}: {me} (rank {rank(me)}) imports {target} ({rank(target)})")
    return out


def test_no_layer_imports_a_higher_one_and_only_bot_telegram_imports_telegram() -> None:
    assert violations() == []


def private_uses(path: Path, me: str) -> list[str]:
    """Imports of a dependency's private module or name, and private attributes read off an
    imported dependency (`yaml._yaml`), outside the adapter allowed them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: dict[str, str] = {}  # local name -> third-party module it is
    out: list[str] = []

    def private(dotted: str) -> bool:
        return any(p.startswith("_") and not p.startswith("__") for p in dotted.split("."))

    def dependency(dotted: str) -> bool:  # the standard library's typing names are fine
        return dotted.split(".")[0] not in ("bot", "tests", *sys.stdlib_module_names)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if dependency(alias.name):
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
                    if private(alias.name):
                        out.append(f"{me}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if not dependency(node.module):
                continue
            names = [f"{node.module}.{a.name}" for a in node.names]
            for dotted in (node.module, *names):
                if private(dotted) and PRIVATE_ADAPTERS.get(me) != node.module:
                    out.append(f"{me}:{node.lineno} imports {dotted}")
                    break
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and private(node.attr)
        ):
            out.append(f"{me}:{node.lineno} reads {modules[node.value.id]}.{node.attr}")
    return out


def test_only_the_sqlite_engine_imports_the_driver() -> None:
    found = [
        f"{path.relative_to(BOT.parent)}:{line}: {target}"
        for path in sorted(BOT.rglob("*.py"))
        if not module_name(path).startswith(ALLOWED_DRIVERS)
        for line, target in imports(path)
        if target.split(".")[0] in DRIVERS
    ]
    assert found == []


def test_only_tests_of_the_sqlite_engine_import_the_driver() -> None:
    """Other tests reach the database through the storage port and tests/factories.py, so the
    suite can run on another backend; the list of engine tests names only files that need it."""
    from tests.factories import SQLITE_ENGINE_TESTS

    importers = {
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*.py")
        if any(target.split(".")[0] in DRIVERS for _, target in imports(path))
    }
    assert sorted(importers - SQLITE_ENGINE_TESTS) == [], "use tests.factories instead"
    assert sorted(SQLITE_ENGINE_TESTS - importers) == [], "no longer imports the driver"


def test_no_private_name_of_a_dependency_outside_the_one_adapter() -> None:
    found = [
        use
        for path in sorted([*BOT.rglob("*.py"), *TESTS.rglob("*.py")])
        for use in private_uses(path, module_name(path) if path.is_relative_to(BOT) else
                                ".".join(path.relative_to(BOT.parent).with_suffix("").parts))
    ]  # fmt: skip
    assert found == []


def private_attributes(path: Path) -> list[str]:
    """Private attributes read off anything but `self` or `cls` (or a standard-library module,
    e.g. argparse._SubParsersAction in a type hint)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        if node.attr.startswith("__"):
            continue
        base = node.value
        if isinstance(base, ast.Name) and (
            base.id in ("self", "cls") or base.id in sys.stdlib_module_names
        ):
            continue
        out.append(f"{path.relative_to(BOT.parent)}:{node.lineno} {ast.unparse(node)}")
    return out


def test_private_attributes_are_read_only_in_the_adapters() -> None:
    found = [
        use
        for path in sorted(BOT.rglob("*.py"))
        if path.relative_to(BOT.parent).as_posix() not in PRIVATE_ATTRIBUTE_ADAPTERS
        for use in private_attributes(path)
    ]
    assert found == []
    for adapter in PRIVATE_ATTRIBUTE_ADAPTERS:  # each still needs its exemption
        assert private_attributes(BOT.parent / adapter), adapter


def test_the_private_check_sees_private_names(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import yaml\nfrom telegram._utils.types import X\nyaml._yaml.CParser\n")
    found = private_uses(probe, "probe")
    assert found == ["probe:2 imports telegram._utils.types", "probe:3 reads yaml._yaml"]


def test_private_names_the_adapter_uses_still_exist() -> None:
    from telegram.request import BaseRequest

    from tests.fakes.request import ODVInput

    # The fake request overrides do_request with this alias: a PTB release that moves or
    # changes it must fail here, not deep inside a test's setup.
    params = inspect.signature(BaseRequest.do_request).parameters
    assert params["read_timeout"].annotation == ODVInput[float] | None


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("bot.telegram.views.render", 50),
        ("bot.domain.models", 10),
        ("bot.learning.memory", 11),
        ("bot.storage", 20),
        ("bot", 0),
        ("bot.something_new.thing", DEFAULT_RANK),
    ],
)
def test_rank_of_a_module(module: str, expected: int) -> None:
    assert rank(module) == expected


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The parser finds plain, from- and relative imports, also inside functions."""
    source = tmp_path / "probe.py"
    source.write_text(
        "import telegram\nfrom bot.telegram import app\n"
        "def f():\n    from bot.schedule.push import PushService\n"
    )
    names = {name for _, name in imports(source)}
    assert {"telegram", "bot.telegram", "bot.telegram.app", "bot.schedule.push"} <= names
