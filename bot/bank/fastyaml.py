"""`yaml.safe_load` for plain question files, about twice as fast when libyaml is installed.

PyYAML's C loader still builds a node object per scalar and resolves and constructs it in
Python, which is most of the time spent loading a 10,000-question bank. Question files are
plain mappings, lists and scalars, so we build the objects straight from libyaml's events.
Anything unusual (anchors, aliases, explicit tags, merge keys, several documents) falls back
to the full loader, so the result is always what `yaml.load(..., CSafeLoader)` returns.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.resolver import Resolver

# None when PyYAML was built without libyaml: then every file takes the full loader.
CParser: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None)

FullLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
# Tags of plain scalars we construct ourselves, through SafeConstructor's own functions.
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp")
)
_RESOLVERS: dict[str, list[tuple[str, Any]]] = Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = yaml.SafeLoader("")


class _Fallback(Exception):
    """The document uses a feature the fast path does not handle."""


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


class SafeLoader(FullLoader):  # type: ignore[misc]
    """The full loader, reporting an impossible date with its line instead of a ValueError."""

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


# Keys and short values ("id", "text", "true", "medium") repeat in every file: resolve once.
_PLAIN_CACHE: dict[str, Any] = {}
_CACHEABLE_CHARS = 40


def _plain(value: str) -> Any:
    cached = _PLAIN_CACHE.get(value, _PLAIN_CACHE)
    if cached is not _PLAIN_CACHE:
        return cached
    result = _resolve_plain(value)
    if len(value) <= _CACHEABLE_CHARS:
        if len(_PLAIN_CACHE) > 50_000:
            _PLAIN_CACHE.clear()
        _PLAIN_CACHE[value] = result
    return result


def _resolve_plain(value: str) -> Any:
    for tag, regexp in _RESOLVERS.get(value[:1], ()):
        if regexp.match(value):
            if tag not in _SCALAR_TAGS:
                raise _Fallback
            node = yaml.ScalarNode(tag, value)
            return _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)
    return value


def _build(parser: Any) -> Any:
    # One flat loop over the events. The open container and its pending key live in locals
    # (the stacks hold only the outer ones), and the hot path, a scalar, comes first.
    stack: list[Any] = []
    keys: list[Any] = []
    no_key: Any = keys  # a sentinel no key can be equal to
    top: Any = None  # the innermost open container; None at the top level
    top_is_list = False
    key: Any = no_key
    root: Any = None
    documents = 0
    cache_get = _PLAIN_CACHE.get
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    get_event = parser.get_event
    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar_event:
            if event.anchor is not None:
                raise _Fallback
            tag = event.tag
            if tag is None:
                if event.implicit[0]:
                    value: Any = cache_get(event.value, no_key)
                    if value is no_key:
                        try:
                            value = _plain(event.value)
                        except (ValueError, OverflowError) as exc:
                            raise _invalid(event.value, exc, event.start_mark) from None
                else:
                    value = event.value
            elif tag == "!" or tag == _STR:
                value = event.value
            else:
                raise _Fallback
            if top_is_list:
                top.append(value)
            elif key is not no_key:
                top[key] = value
                key = no_key
            elif top is None:
                root = value
            elif value == "<<":
                raise _Fallback
            elif value in top:
                raise DuplicateKey(value, event.start_mark)
            else:
                key = value
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None or event.tag not in (None, "!"):
                raise _Fallback
            if top is not None and not top_is_list and key is no_key:
                raise _Fallback  # a mapping or a list as a key
            stack.append(top)
            keys.append(key)
            top_is_list = kind is sequence_start
            top = [] if top_is_list else {}
            key = no_key
        elif kind is mapping_end or kind is sequence_end:
            value = top
            top = stack.pop()
            key = keys.pop()
            top_is_list = type(top) is list
            if top_is_list:
                top.append(value)
            elif top is None:
                root = value
            else:
                top[key] = value
                key = no_key
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _Fallback  # let the full loader raise its "single document" error
        elif kind is yaml.StreamEndEvent:
            return root
        elif kind is alias_event:
            raise _Fallback


def load(source: bytes | str) -> Any:
    """Parse one YAML document like `yaml.load(source, CSafeLoader)` would."""
    if CParser is not None:
        parser = CParser(source)
        try:
            return _build(parser)
        except _Fallback:
            pass
        finally:
            parser.dispose()
    return yaml.load(source, Loader=SafeLoader)
