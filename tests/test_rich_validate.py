"""Rich content is checked when a bank loads: a formula mathtext cannot typeset, or an image
Telegram would refuse, is a problem naming the file, the question and the field."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.bank import rich_checks
from bot.bank.images import image_info
from bot.bank.loader import load_banks
from bot.bank.problems import Problem
from bot.bank.rich import formulas
from bot.bank.rich_checks import text_fields
from bot.config import BUNDLED_QUESTIONS

RICH = Path(__file__).resolve().parent / "fixtures" / "rich"
ROOT = Path(__file__).resolve().parent.parent


def png_header(width: int, height: int) -> bytes:
    """The first bytes of a PNG of that size (enough for the size check)."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + ihdr + b"\x00" * 4


def copy_bank(tmp_path: Path) -> Path:
    bank = tmp_path / "rich"
    shutil.copytree(RICH, bank)
    return bank


def problems_of(bank: Path) -> list[Problem]:
    result = load_banks([bank])
    assert "rich" not in result.banks  # a bank with a problem is not served
    return result.problems


def test_the_fixture_bank_loads_with_its_image(tmp_path: Path) -> None:
    result = load_banks([RICH])
    assert result.problems == []
    bank = result.banks["rich"]
    assert bank.images == {"deploy-kv-cache-per-token": (RICH / "kv-layout.png").resolve()}


def test_a_formula_mathtext_cannot_typeset_names_file_question_and_field(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path)
    path = bank / "arch-attention-scaling.yaml"
    text = path.read_text()
    path.write_text(text.replace("It makes the attention weights", r"It makes $\frac{1}$ weights"))
    [problem] = problems_of(bank)
    assert problem.file == path and problem.question_id == "arch-attention-scaling"
    assert problem.field == "options.1.text"
    assert (
        problem.line
        == text.splitlines().index(
            "  - text: It makes the attention weights of each query add up to 1."
        )
        + 1
    )
    assert problem.message.startswith(r"formula $\frac{1}$ cannot be typeset: Expected \frac")


def test_unknown_command_in_the_explanation(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path)
    path = bank / "arch-attention-scaling.yaml"
    path.write_text(path.read_text().replace(r"\mathrm{Var}", r"\variance"))
    [problem] = problems_of(bank)
    assert (problem.question_id, problem.field) == ("arch-attention-scaling", "explanation")
    assert r"Unknown symbol: \variance" in problem.message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "image file 'kv-layout.png' not found beside the question"),
        (b"GIF89a" + b"\x00" * 20, "is not a PNG, JPEG or WebP file"),
        (b"just text, named .png\n", "is not a PNG, JPEG or WebP file"),
        (png_header(9000, 1500), "is 9000x1500 px: width + height is over 10000"),
        (png_header(4200, 200), "is 4200x200 px: one side is over 20 times the other"),
        (png_header(0, 10), "its size in pixels cannot be read"),
    ],
)
def test_an_image_telegram_would_refuse(
    tmp_path: Path, content: bytes | None, expected: str
) -> None:
    bank = copy_bank(tmp_path)
    image = bank / "kv-layout.png"
    if content is None:
        image.unlink()
    else:
        image.write_bytes(content)
    [problem] = problems_of(bank)
    assert problem.file == bank / "deploy-kv-cache-per-token.yaml"
    assert (problem.question_id, problem.field, problem.line) == (
        "deploy-kv-cache-per-token",
        "image",
        5,
    )
    assert expected in problem.message


def test_an_image_over_10_mb(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path)
    image = bank / "kv-layout.png"
    with image.open("wb") as f:
        f.write(png_header(600, 300))
        f.truncate(10 * 1024 * 1024 + 1)  # sparse: no 10 MB written
    [problem] = problems_of(bank)
    assert problem.field == "image" and "is 10.0 MB, over Telegram's 10 MB" in problem.message


@pytest.mark.parametrize(
    "name", ["../outside.png", "/etc/passwd", "sub/../../x.png", ".hidden.png"]
)
def test_an_image_path_must_stay_beside_the_question(tmp_path: Path, name: str) -> None:
    bank = copy_bank(tmp_path)
    path = bank / "deploy-kv-cache-per-token.yaml"
    path.write_text(path.read_text().replace("image: kv-layout.png", f"image: '{name}'"))
    [problem] = problems_of(bank)
    assert (problem.question_id, problem.field) == ("deploy-kv-cache-per-token", "image")
    assert "should match pattern" in problem.message


def test_jpeg_and_webp_sizes_are_read() -> None:
    jpeg = (
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
        b"\xff\xc0\x00\x11\x08\x01\x90\x02\x80\x03\x01\x22\x00"
    )
    info = image_info(jpeg)
    assert info is not None and (info.kind, info.width, info.height) == ("jpeg", 640, 400)
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00" + (
        (800 - 1).to_bytes(3, "little") + (600 - 1).to_bytes(3, "little")
    )
    info = image_info(vp8x)
    assert info is not None and (info.kind, info.width, info.height) == ("webp", 800, 600)


def jpeg_with_metadata(width: int, height: int, metadata: int) -> bytes:
    """A JPEG's markers with `metadata` bytes of APP1 (EXIF) and APP2 segments before its
    frame header, as a camera writes them (no picture data: the size check reads none)."""
    out = b"\xff\xd8" + b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    for i in range(0, metadata, 65_533):
        chunk = min(65_533, metadata - i)
        out += (b"\xff\xe1" if i == 0 else b"\xff\xe2") + (chunk + 2).to_bytes(2, "big")
        out += b"\x00" * chunk
    size = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    out += b"\xff\xc0\x00\x11\x08" + size + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return out + b"\xff\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00\xff\xd9"


@pytest.mark.parametrize("metadata", [70_000, 400_000])
def test_a_jpeg_with_large_metadata_before_its_size(tmp_path: Path, metadata: int) -> None:
    bank = copy_bank(tmp_path)
    path = bank / "deploy-kv-cache-per-token.yaml"
    path.write_text(path.read_text().replace("image: kv-layout.png", "image: kv-layout.jpg"))
    (bank / "kv-layout.png").unlink()
    data = jpeg_with_metadata(1200, 800, metadata)
    assert data.index(b"\xff\xc0") > 64 * 1024
    (bank / "kv-layout.jpg").write_bytes(data)
    result = load_banks([bank])
    assert result.problems == []
    assert result.banks["rich"].images["deploy-kv-cache-per-token"] == bank / "kv-layout.jpg"
    info = image_info(data)
    assert info is not None and (info.kind, info.width, info.height) == ("jpeg", 1200, 800)
    # Past the frame header the size check has nothing to read: a cut one is refused.
    (bank / "kv-layout.jpg").write_bytes(data[: data.index(b"\xff\xc0") + 6])
    [problem] = problems_of(bank)
    assert "its size in pixels cannot be read" in problem.message


def test_validate_prints_the_problem_line(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path)
    (bank / "kv-layout.png").write_bytes(b"not an image")
    run = subprocess.run(
        [sys.executable, "-m", "bot", "validate", str(bank)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert run.returncode != 0
    assert (
        f"{bank / 'deploy-kv-cache-per-token.yaml'}:5: deploy-kv-cache-per-token: image: "
        "image 'kv-layout.png' is not a PNG, JPEG or WebP file"
    ) in run.stdout + run.stderr


def test_prices_are_not_formulas(tmp_path: Path) -> None:
    # The bundled bank writes prices with dollar signs: none of them is read as a formula.
    result = load_banks([BUNDLED_QUESTIONS])
    assert result.problems == []
    questions = [q for b in result.banks.values() for q in b.questions.values()]
    texts = [text for q in questions for _, text in text_fields(q)]
    assert any("$" in t for t in texts)
    assert not any(formulas(t) for t in texts)


def test_an_unchanged_question_is_not_typeset_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checking a formula takes mathtext a while: it is done when a file is parsed, and a file
    # the bank cache holds is not parsed again. Its image is checked at every load.
    bank = copy_bank(tmp_path)
    cache = tmp_path / "bank.cache"
    assert load_banks([bank], cache).problems == []
    checked: list[str] = []
    monkeypatch.setattr(rich_checks, "formula_error", lambda s: checked.append(s))
    assert load_banks([bank], cache).problems == []
    assert checked == []
    (bank / "kv-layout.png").unlink()
    assert [p.field for p in load_banks([bank], cache).problems] == ["image"]
