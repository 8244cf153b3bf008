"""JSON Schema of question files and bank.yaml, generated from the models for editors.

Editors with the YAML language server validate while authoring through the first line of each
file, `# yaml-language-server: $schema=<relative path to the schema>`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bot.bank.models import BankMeta, Question

SCHEMA_DIR = Path(__file__).resolve().parent
QUESTION_SCHEMA = "question.schema.json"
BANK_SCHEMA = "bank.schema.json"
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _schema(model: type[BaseModel], title: str) -> dict[str, Any]:
    schema = model.model_json_schema(mode="validation")
    return {"$schema": _DIALECT, **schema, "title": title}


def question_schema() -> dict[str, Any]:
    """The JSON Schema of one question file."""
    return _schema(Question, "quizbot question")


def bank_schema() -> dict[str, Any]:
    """The JSON Schema of a bank's bank.yaml."""
    return _schema(BankMeta, "quizbot bank.yaml")


def render(schema: dict[str, Any]) -> str:
    """The schema as the committed file holds it (stable key order, trailing newline)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def schema_texts() -> dict[str, str]:
    """File name to rendered text, for both schema files."""
    return {QUESTION_SCHEMA: render(question_schema()), BANK_SCHEMA: render(bank_schema())}


def write_schemas(out_dir: Path = SCHEMA_DIR) -> list[Path]:
    """Write both schema files into `out_dir`; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_texts().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(out_dir: Path = SCHEMA_DIR) -> list[Path]:
    """Schema files in `out_dir` that are missing or differ from the models."""
    stale = []
    for name, text in schema_texts().items():
        path = out_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
    return stale


def schema_ref(schema_name: str, from_dir: Path) -> str:
    """The `$schema=` value pointing at a schema file, relative to `from_dir` when possible."""
    target = SCHEMA_DIR / schema_name
    try:
        return Path(os.path.relpath(target, from_dir.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return target.as_uri()


def header(schema_name: str, from_dir: Path) -> str:
    """The first line of a generated YAML file: the editor's schema hint."""
    return f"# yaml-language-server: $schema={schema_ref(schema_name, from_dir)}\n"
