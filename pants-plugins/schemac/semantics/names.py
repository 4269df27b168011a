"""Identifier spelling for generated code: Go exported names with initialisms, TypeScript
camelCase, and quoting of object keys that are not identifiers."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from json.encoder import encode_basestring, encode_basestring_ascii

#: Go initialisms written in all caps: golint's list
#: (https://go.dev/wiki/CodeReviewComments#initialisms), staticcheck's additions to it (ST1003:
#: amqp db gid rtp sip ts) and the identifiers of goods and accounts that data schemas use
#: (isbn issn sku upc ean gtin iban).
GO_INITIALISMS = frozenset(
    """acl api ascii cpu css dns eof guid html http https id ip json lhs qps ram rhs rpc sla smtp
    sql ssh tcp tls ttl udp ui uid uri url utf8 uuid vm xml xmpp xsrf xss
    amqp db gid rtp sip ts
    isbn issn sku upc ean gtin iban""".split()
)

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|\b|_)|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_TS_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def words(name: str):
    """Split ``enqueue_job``, ``QueueStatus``, ``userID`` into lower-case words (``größe_max``:
    ``größe``, ``max``: see :func:`_unicode_words`)."""
    if not name.isascii():
        return [w.lower() for w in _unicode_words(name)]
    return [w.lower() for w in _WORD.findall(name)]


def _unicode_words(name: str):
    """The words of a name with letters beyond ASCII (Gel names may have them: ``nämé``,
    ``名前``, https://docs.geldata.com/reference/edgeql/lexical#identifiers), as written: its
    runs of letters and digits, each split where a lower-case letter meets an upper-case one or
    letters meet digits; only the characters Go and TypeScript accept in a name are kept (letters,
    decimal digits)."""
    out = []
    for run in re.findall(r"[^\W_]+", name):
        if run.isascii():
            out.extend(_WORD.findall(run))
            continue
        run = "".join(c for c in run if _go_letter(c))
        if not run:
            continue
        start = 0
        for i in range(1, len(run)):
            prev, c = run[i - 1], run[i]
            if (c.isupper() and prev.islower()) or (c.isdigit() != prev.isdigit()):
                out.append(run[start:i])
                start = i
        out.append(run[start:])
    return out


def _exported(out: str) -> str:
    """A Go name exported: ``X`` before it unless it starts with an upper-case letter (``名前``
    has no case: ``X名前``; https://go.dev/ref/spec#Exported_identifiers)."""
    return out if out[:1].isupper() else "X" + out


@functools.lru_cache(maxsize=None)  # a few hundred distinct words make up every name
def _go_word(word: str) -> str:
    """One word of a Go name (as :func:`words` finds it, any case), capitalised or an initialism."""
    w = word.lower()
    if w in GO_INITIALISMS:
        return w.upper()
    if w.endswith("s") and w[:-1] in GO_INITIALISMS:  # ids -> IDs, urls -> URLs
        return w[:-1].upper() + "s"
    return w.capitalize()


@functools.lru_cache(maxsize=None)  # pure, and asked again and again for the same names
def go_name(name: str) -> str:
    """Exported Go name: ``claim_job`` -> ``ClaimJob``, ``id`` -> ``ID``, ``user_url`` ->
    ``UserURL``. A name starting with a digit gets an ``X`` prefix."""
    if not name.isascii():
        return _exported("".join([_go_word(w) if w.isascii() else w[:1].upper() + w[1:]
                                  for w in _unicode_words(name)]) or "X")
    out = "".join([_go_word(w) for w in _WORD.findall(name)]) or "X"
    return "X" + out if out[0].isdigit() else out


def _go_letter(c: str) -> bool:
    """A character Go accepts inside an identifier: a Unicode letter, ``_`` or a decimal digit
    (https://go.dev/ref/spec#Identifiers)."""
    cat = unicodedata.category(c)
    return cat[0] == "L" or cat == "Nd" or c == "_"


@functools.lru_cache(maxsize=None)
def go_member(member: str) -> str:
    """The suffix of an enum member's Go constant (the enum's type name comes first):
    ``Pending`` -> ``Pending``, ``in progress`` -> ``InProgress``, ``projects:read`` ->
    ``ProjectsRead``. Letters outside ASCII are kept (``été`` -> ``Été``, ``日本`` -> ``日本``);
    a member with no letter or digit at all is ``X``."""
    if member.isascii():
        return go_name(member)
    parts = []
    for run in re.findall(r"[^\W_]+", member):
        if run.isascii():
            parts.append("".join([_go_word(w) for w in _WORD.findall(run)]))
        else:
            run = "".join(c for c in run if _go_letter(c))
            parts.append(run[:1].upper() + run[1:])
    out = "".join(parts) or "X"
    return "X" + out if out[0].isdigit() else out


@functools.lru_cache(maxsize=None)  # pure, and asked again and again for the same names
def ts_camel(name: str) -> str:
    """TypeScript function name: ``enqueue_job`` -> ``enqueueJob``."""
    ws = words(name)
    return (ws[0] + "".join([w.capitalize() for w in ws[1:]])) if ws else "x"


@functools.lru_cache(maxsize=None)  # pure, and asked again and again for the same names
def ts_pascal(name: str) -> str:
    """TypeScript type name: ``enqueue_job`` -> ``EnqueueJob``, ``uq_job_name`` -> ``UqJobName``."""
    # capitalize() lower-cases the rest of each (ASCII) word, as words() does
    if not name.isascii():
        out = "".join([w.capitalize() for w in _unicode_words(name)]) or "X"
        return "X" + out if out[0].isdigit() else out
    return "".join([w.capitalize() for w in _WORD.findall(name)]) or "X"


@functools.lru_cache(maxsize=None)  # pure; the same field names come back in every query
def ts_key(name: str) -> str:
    """An object key: bare when it is an identifier, else a JSON string literal."""
    return name if _TS_IDENT.match(name) else json.dumps(name)


# ``json.dumps`` of a ``str`` is one call of json's (C) string encoder, after building an
# encoder object (a new one per call with ``ensure_ascii=False``): the encoder is called
# directly for a ``str``, with the same result.


def js_string(value: str) -> str:
    """A double-quoted JS/TS string literal (JSON escaping is valid JS)."""
    if type(value) is str:
        return encode_basestring(value)
    return json.dumps(value, ensure_ascii=False)


#: Characters outside the Basic Multilingual Plane: JSON writes them as a surrogate pair
#: (``\\ud83d\\ude00``), which Go rejects ("escape sequence is invalid Unicode code point").
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def go_string(value: str) -> str:
    """A Go interpreted string literal: JSON's ASCII escaping (valid Go), except that a character
    outside the BMP is ``\\UXXXXXXXX`` (Go spec, "Rune literals"), not a surrogate pair."""
    if type(value) is not str:
        value = str(value)
    if value.isascii() or not _ASTRAL.search(value):
        return encode_basestring_ascii(value)
    parts = []
    last = 0
    for m in _ASTRAL.finditer(value):
        parts.append(encode_basestring_ascii(value[last:m.start()])[1:-1])
        parts.append("\\U%08x" % ord(m.group()))
        last = m.end()
    parts.append(encode_basestring_ascii(value[last:])[1:-1])
    return '"' + "".join(parts) + '"'


def go_raw(value: str) -> str:
    """A Go raw string literal; an interpreted literal when ``value`` has a backquote or a
    carriage return (Go drops carriage returns from raw string literals)."""
    return f"`{value}`" if "`" not in value and "\r" not in value else go_string(value)


def ts_template(value: str) -> str:
    """A TS template literal holding ``value`` verbatim: escapes backquote, backslash, ``${``,
    and carriage returns (a template literal reads a CR or CRLF as LF)."""
    escaped = value.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${").replace("\r", "\\r")
    return f"`{escaped}`"


#: Characters that end a ``//`` comment line in Go or TypeScript (JS also ends lines at
#: U+2028 and U+2029), and other control characters.
_COMMENT_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def comment_safe(text: str, block: bool = True) -> str:
    """``text`` (a file path, a line of a doc) for a ``//`` comment line, or with ``block`` a
    line of a ``/** */`` comment: control and line-breaking characters as ``\\uXXXX``, and
    with ``block`` ``*/`` as ``*\\/``."""
    if _COMMENT_UNSAFE.search(text):
        text = _COMMENT_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)
    return text.replace("*/", "*\\/") if block else text
