"""YAML for question files: PyYAML's safe loader (libyaml's CSafeLoader when installed), which
also reports a duplicate key and an impossible date with their line instead of keeping the last
key silently or raising a bare ValueError.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError

# PyYAML built without libyaml has only the pure-Python loader.
_Base: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class InvalidScalar(ConstructorError):
    """A plain scalar that looks like a date or number but is none (`2026-02-30`)."""

    def __init__(self, value: str, reason: str, mark: Any) -> None:
        super().__init__(None, None, f"{value!r} is not a valid date or number ({reason})", mark)


class DuplicateKey(ConstructorError):
    """A mapping names the same key twice; YAML loaders would silently keep the last."""

    def __init__(self, key: Any, mark: Any) -> None:
        super().__init__(None, None, f"duplicate key {key!r} in the same mapping", mark)


def _invalid(value: str, error: Exception, mark: Any) -> InvalidScalar:
    return InvalidScalar(value, str(error), mark)


class SafeLoader(_Base):  # type: ignore[misc]
    """The safe loader, naming the line of an impossible date or a duplicate key."""

    def construct_yaml_timestamp(self, node: Any) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:
            raise _invalid(node.value, exc, node.start_mark) from None

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = self.construct_object(key_node)
                if key in seen:
                    raise DuplicateKey(key, key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)


SafeLoader.add_constructor("tag:yaml.org,2002:timestamp", SafeLoader.construct_yaml_timestamp)


def load(source: bytes | str) -> Any:
    """Parse one YAML document (plain mappings, lists and scalars in question files)."""
    return yaml.load(source, Loader=SafeLoader)
