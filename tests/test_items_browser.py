"""The HTML report in a real browser: headless Chromium loads it from disk, we read the DOM it
rendered and check its phone-sized screenshot."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from bot.analysis.render_html import render_html
from bot.storage import item_sql
from tests.item_model import Item, Model, insert_rows, make_bank, new_database, question

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed and cannot be here (.ci/run installs Debian's "
    "`chromium` with apt-get when apt is available)",
)


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and the inflated image data of a PNG (stdlib only)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    questions = [question(f"q{i}", "alpha") for i in range(6)]
    questions.append(question("mis-keyed-one", "alpha", stem="Pick the <right> one & go"))
    bank = make_bank(questions, bank_id="demo")
    conn = new_database(tmp_path / "a.db")
    model = Model(bank, {"mis-keyed-one": Item(true_key=(2,))})
    insert_rows(conn, bank.id, model.rows(80, per_learner=len(questions)))
    path = tmp_path / "report.html"
    path.write_text(render_html(item_sql.item_report(conn, bank)), encoding="utf-8")
    return path


def test_report_renders_in_chromium(report_file: Path, tmp_path: Path) -> None:
    url = report_file.resolve().as_uri()
    dom = _chromium(tmp_path / "profile-dom", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    # The summary, the flagged question in the table and in its card, escaped text intact.
    assert '<section id="summary">' in html
    assert "80</b> learners" in html and "flagged" in html
    assert '<a href="#q-mis-keyed-one">mis-keyed-one</a>' in html
    assert "likely mis-keyed</b>: option C is picked by" in html
    assert "Pick the &lt;right&gt; one &amp; go" in html
    # The first table row is the worst question.
    first_row = html.split("<tbody>", 1)[1].split("</tr>", 1)[0]
    assert "mis-keyed-one" in first_row

    shot = tmp_path / "shot.png"
    run = _chromium(
        tmp_path / "profile-shot", f"--screenshot={shot}", "--window-size=412,915", url
    )
    assert run.returncode == 0, run.stderr[-2000:]
    width, height, pixels = _png_pixels(shot)
    assert (width, height) == (412, 915)
    assert shot.stat().st_size > 10_000
    # Not a blank page: text and bars give the image many distinct byte values.
    assert len(set(pixels)) > 50
