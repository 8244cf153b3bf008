"""Load question banks from YAML folders, collecting every problem instead of stopping early."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from bot.bank.cache import BankCache, FolderCache
from bot.bank.models import Bank, BankMeta, Question
from bot.bank.parsing import parse_questions, read_yaml, validation_problems
from bot.bank.problems import BankError, LineFinder, Problem
from bot.bank.rich_checks import image_check

__all__ = ["BankError", "LoadResult", "Problem", "find_bank_dirs", "load_bank", "load_banks"]

BANK_FILE = "bank.yaml"
QUESTION_SUFFIXES = (".yaml", ".yml")


@dataclass
class LoadResult:
    """Banks that loaded cleanly, by id, and every problem found on the way."""

    banks: dict[str, Bank] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # Where each loaded bank lives: its folder, and the file of each question by id.
    folders: dict[str, Path] = field(default_factory=dict)
    files: dict[str, dict[str, Path]] = field(default_factory=dict)


def _load_meta(bank_dir: Path, problems: list[Problem]) -> BankMeta | None:
    parsed = read_yaml(bank_dir / BANK_FILE, problems)
    if parsed is None:
        return None
    if not isinstance(parsed.data, dict):
        problems.append(Problem(parsed.path, 1, None, None, "bank.yaml must be a mapping"))
        return None
    try:
        return BankMeta.model_validate(parsed.data)
    except ValidationError as exc:
        problems.extend(validation_problems(parsed, exc, None))
        return None


def question_files(bank_dir: Path) -> list[Path]:
    """Every question file under a bank folder, recursively and sorted; hidden entries skipped."""
    found: list[str] = []
    top = str(bank_dir)
    for root, dirs, files in os.walk(bank_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        at_top = root == top
        for name in files:
            if name.startswith(".") or not name.lower().endswith(QUESTION_SUFFIXES):
                continue
            if at_top and name == BANK_FILE:
                continue
            found.append(os.path.join(root, name))
    # Sorted part by part, as Paths sort, without building 10,000 Paths to compare them.
    found.sort(key=lambda name: name.split(os.sep))
    return [Path(name) for name in found]


class _Lines:
    """Finds the line of a field in a file only when a problem needs it (reading it then)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source: bytes | None = None

    def line(self, loc: Sequence[str | int]) -> int | None:
        if self.source is None:
            try:
                self.source = self.path.read_bytes()
            except OSError:
                return None
        return LineFinder(self.source).line(loc)


def _questions(
    paths: list[Path], cache: FolderCache | None
) -> list[tuple[Question | None, list[Problem]]]:
    """The question of each file, in order, or its problems: from the cache when the file is
    unchanged, else parsed (on two cores when many files need it)."""
    questions: list[tuple[Question | None, list[Problem]]] = [(None, [])] * len(paths)
    todo: list[int] = []
    stats: list[os.stat_result | None] = []
    if cache is None:
        todo = list(range(len(paths)))
    else:
        for i, path in enumerate(paths):
            try:
                # Taken before the file is read: a change while reading leaves a stale stamp.
                stat: os.stat_result | None = os.stat(path)
            except OSError:
                stat = None
            if stat is not None and (question := cache.get(path, stat)) is not None:
                questions[i] = (question, [])
            else:
                todo.append(i)
                stats.append(stat)
    digests = [] if cache is None else [s is not None and cache.racy(s) for s in stats]
    results = parse_questions([paths[i] for i in todo], digests)
    for n, (i, result) in enumerate(zip(todo, results, strict=True)):
        questions[i] = (result.question, result.problems)
        if cache is not None and result.question is not None and (stat := stats[n]):
            cache.put(paths[i], stat, result.question, result.sha256)
    return questions


def _load_one_bank(
    bank_dir: Path,
    problems: list[Problem],
    files: dict[str, Path],
    cache: FolderCache | None = None,
) -> Bank | None:
    """Load a bank folder; None (with problems appended) when anything is wrong."""
    before = len(problems)
    meta = _load_meta(bank_dir, problems)
    questions: dict[str, Question] = {}
    images: dict[str, Path] = {}
    first_file: dict[str, Path] = {}
    paths = question_files(bank_dir)
    topics = None if meta is None else {t.id for t in meta.topics}
    misconceptions = None if meta is None else {m.id for m in meta.misconceptions}
    for path, (question, found) in zip(paths, _questions(paths, cache), strict=True):
        problems.extend(found)
        if question is None:
            continue
        lines = _Lines(path)
        if question.id in first_file:
            problems.append(
                Problem(
                    path,
                    lines.line(("id",)),
                    question.id,
                    "id",
                    f"duplicate id: also used by {first_file[question.id]}",
                )
            )
            continue
        first_file[question.id] = path
        if topics is not None and question.topic not in topics:
            assert meta is not None
            declared = ", ".join(t.id for t in meta.topics)
            problems.append(
                Problem(
                    path,
                    lines.line(("topic",)),
                    question.id,
                    "topic",
                    f"topic {question.topic!r} is not declared in {BANK_FILE} "
                    f"(declared: {declared})",
                )
            )
        if misconceptions is not None:
            for i, option in enumerate(question.options):
                if option.misconception and option.misconception not in misconceptions:
                    problems.append(
                        Problem(
                            path,
                            lines.line(("options", i, "misconception")),
                            question.id,
                            f"options.{i}.misconception",
                            f"misconception {option.misconception!r} is not declared in "
                            f"{BANK_FILE}",
                        )
                    )
        if question.image is not None:
            problem, image = image_check(question, path, lines.line)
            if problem is not None:
                problems.append(problem)
            if image is not None:
                images[question.id] = image
        questions[question.id] = question
        files[question.id] = path
    if meta is not None and not questions and len(problems) == before:
        problems.append(
            Problem(bank_dir / BANK_FILE, None, None, None, "the bank has no question files")
        )
    if meta is None or len(problems) > before:
        return None
    # Everything in it is validated already; Bank(...) would validate each question again.
    return Bank.model_construct(meta=meta, questions=questions, images=images)


def bank_dir_of(file: Path) -> Path | None:
    """The nearest folder above a question file that holds bank.yaml."""
    for parent in file.resolve().parents:
        if (parent / BANK_FILE).is_file():
            return parent
    return None


def find_bank_dirs(path: Path, problems: list[Problem]) -> list[Path]:
    """`path` itself when it holds bank.yaml, else its sub-folders that do."""
    if (path / BANK_FILE).is_file():
        return [path]
    if not path.is_dir():
        problems.append(Problem(path, None, None, None, "no such bank folder"))
        return []
    subs = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    banks = [p for p in subs if (p / BANK_FILE).is_file()]
    for sub in subs:
        # A folder of question files without its bank.yaml would otherwise be skipped silently.
        if sub not in banks and any(f.suffix.lower() in QUESTION_SUFFIXES for f in sub.iterdir()):
            problems.append(Problem(sub / BANK_FILE, None, None, None, "missing bank.yaml"))
    if not banks and not problems:
        problems.append(Problem(path, None, None, None, "no bank.yaml here or in any subfolder"))
    return banks


@contextmanager
def _gc_paused() -> Iterator[None]:
    # Loading creates hundreds of thousands of small objects that all stay alive; the cyclic
    # collector would run dozens of times over them and free nothing (~20% of the load time).
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            # Straight into the oldest generation, which full collections still search: else
            # the first young collections walk all of them once more (~0.1 s per 10,000
            # questions). Skipped if anyone froze objects on purpose: unfreeze would undo it.
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def load_banks(
    paths: Sequence[Path], cache: Path | None = None, *, write: bool = True
) -> LoadResult:
    """Load every bank under `paths`; banks with any problem are left out of `banks`.

    With `cache` (a file path), unchanged question files come from that cache and the cache
    is brought up to date afterwards (unless `write` is False)."""
    with _gc_paused():
        bank_cache = BankCache(cache, write=write) if cache is not None else None
        result = _load_banks(paths, bank_cache)
        if bank_cache is not None:
            bank_cache.save()
        return result


def _load_banks(paths: Sequence[Path], cache: BankCache | None = None) -> LoadResult:
    result = LoadResult()
    owner: dict[str, Path] = {}
    seen: set[Path] = set()
    for path in paths:
        for bank_dir in find_bank_dirs(Path(path), result.problems):
            # The same folder named twice (questions/ and questions/genai-llm) is one bank.
            if bank_dir.resolve() in seen:
                continue
            seen.add(bank_dir.resolve())
            files: dict[str, Path] = {}
            folder_cache = cache.folder(bank_dir) if cache is not None else None
            bank = _load_one_bank(bank_dir, result.problems, files, folder_cache)
            if bank is None:
                continue
            if bank.id in owner:
                result.problems.append(
                    Problem(
                        bank_dir / BANK_FILE,
                        LineFinder((bank_dir / BANK_FILE).read_bytes()).line(("id",)),
                        None,
                        "id",
                        f"duplicate bank id {bank.id!r}: also used by {owner[bank.id]}",
                    )
                )
                continue
            owner[bank.id] = bank_dir / BANK_FILE
            result.banks[bank.id] = bank
            result.folders[bank.id] = bank_dir
            result.files[bank.id] = files
    return result


def load_bank(path: Path) -> Bank:
    """Load the single bank in `path`, raising BankError with every problem found."""
    result = load_banks([path])
    if result.problems:
        raise BankError(result.problems)
    if len(result.banks) != 1:
        found = ", ".join(sorted(result.banks)) or "none"
        raise BankError(
            [Problem(Path(path), None, None, None, f"expected one bank, found {found}")]
        )
    return next(iter(result.banks.values()))
