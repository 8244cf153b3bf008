"""A small XML tree read with expat, refusing what makes XML dangerous to parse.

A document type declaration is refused outright: it is where entities are declared, and
entities are how XML explodes in memory (the "billion laughs") or reaches for files and URLs
(external entities). Moodle's exports never carry one. Each element keeps its line, so
problems can say where they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat


class XmlRefused(Exception):
    """The document is not well-formed or uses a refused feature; `line` is where."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class Element:
    """An element: its tag, attributes, text (children's tails included) and line."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def find(self, tag: str) -> Element | None:
        """The first child with this tag."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        """Every child with this tag, in order."""
        return [c for c in self.children if c.tag == tag]


def parse(data: bytes) -> Element:
    """The root element of `data`, or XmlRefused for a DOCTYPE, an entity or bad XML."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    roots: list[Element] = []

    def refuse(what: str) -> int:
        raise XmlRefused(f"{what} refused: an import file needs none", parser.CurrentLineNumber)

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = Element(tag, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def chars(text: str) -> None:
        if stack:
            stack[-1].parts.append(text)

    parser.StartDoctypeDeclHandler = lambda *args: refuse("a DOCTYPE declaration")
    parser.EntityDeclHandler = lambda *args: refuse("an entity declaration")
    parser.ExternalEntityRefHandler = lambda *args: refuse("an external entity")
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        message = f"not well-formed XML: {expat.errors.messages[exc.code]}"
        raise XmlRefused(message, exc.lineno) from None
    if not roots:
        raise XmlRefused("no XML element in the file", 1)
    return roots[0]
