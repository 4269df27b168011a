"""docs/language.md says what the compiler does: every example in it is compiled here.

An example is a group of fenced blocks whose info string names it, ```` ```esdl example=NAME ````:

* ``esdl`` blocks are schema files (``schema.esdl``, or ``file=other.esdl``);
* ``edgeql`` blocks are query files (``query=QNAME`` -> ``queries/QNAME.edgeql``);
* ``sql``, ``ts`` and ``go`` blocks are fragments of the output: each must occur verbatim in
  the library's output of that language (``sql``: the migration or a query's SQL). A line
  holding only ``...`` separates fragments that are checked separately;
* a ``text`` block is diagnostics: the example must fail to compile (or compile with warnings),
  and every fragment must occur in the rendered diagnostics.

An example without a ``text`` block must compile without errors and without warnings. Blocks
without ``example=`` are not checked (syntax summaries). The runner options ``ts_int64=`` and
``go_driver=`` on any block of an example compile the whole example with them
(```` ```go example=NAME go_driver=database/sql ````).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
FENCE = re.compile(r"^```(\w+)[ \t]+([^\n]*\bexample=[^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)


def examples() -> "OrderedDict[str, List[Tuple[str, Dict[str, str], str, int]]]":
    """``{example name: [(language, attributes, body, line), ...]}`` in document order."""
    text = DOC.read_text(encoding="utf-8")
    out: "OrderedDict[str, list]" = OrderedDict()
    for m in FENCE.finditer(text):
        attrs = dict(a.split("=", 1) for a in m.group(2).split())
        line = text.count("\n", 0, m.start()) + 1
        out.setdefault(attrs["example"], []).append((m.group(1), attrs, m.group(3), line))
    return out


EXAMPLES = examples()


def fragments(body: str) -> List[str]:
    parts, cur = [], []
    for line in body.splitlines():
        if line.strip() == "...":
            parts.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    parts.append("\n".join(cur))
    return [p.strip("\n") for p in parts if p.strip()]


def test_the_document_has_examples():
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_example(name):
    blocks = EXAMPLES[name]
    sources: Dict[str, str] = {}
    expected: List[Tuple[str, str, int]] = []
    runner_options: Dict[str, str] = {}
    for lang, attrs, body, line in blocks:
        runner_options.update({k: v for k, v in attrs.items() if k in ("ts_int64", "go_driver")})
        if lang == "esdl":
            sources[attrs.get("file", "schema.esdl")] = body
        elif lang == "edgeql":
            sources[f"queries/{attrs['query']}.edgeql"] = body
        elif lang in ("sql", "ts", "go", "text"):
            expected += [(lang, frag, line) for frag in fragments(body)]
        else:
            raise AssertionError(f"docs/language.md:{line}: unknown example block language {lang!r}")
    options = Options(library=re.sub(r"[^a-z0-9]", "", name.lower()) or "example", **runner_options)
    outputs: Dict[str, str] = {}
    try:
        lib = check_library(sources, options)
        warnings = lib.warnings
        outputs = compile_library(sources, options)
        diagnostics = "\n\n".join(w.render(sources) for w in warnings)
        sql = [text for path, text in outputs.items() if path.startswith("sql/")] + [q.sql for q in lib.queries]
    except CompileError as e:
        diagnostics, warnings, sql = e.render(sources), e.diagnostics, []
    wants_diagnostics = any(lang == "text" for lang, _, _ in expected)
    if not wants_diagnostics:
        assert not diagnostics, f"example {name!r} reports diagnostics the document does not show:\n{diagnostics}"
    elif not diagnostics:
        pytest.fail(f"example {name!r} compiles cleanly, but the document shows diagnostics")
    haystacks = {
        "text": [diagnostics],
        "sql": sql,
        "ts": [t for p, t in outputs.items() if p.startswith("ts/")],
        "go": [t for p, t in outputs.items() if p.startswith("go/")],
    }
    for lang, frag, line in expected:
        assert any(frag in h for h in haystacks[lang]), (
            f"docs/language.md:{line}: this {lang} fragment of example {name!r} is not in the compiler's "
            f"output:\n{frag}\n--- output ---\n" + "\n".join(haystacks[lang])[:6000])


def test_the_diagnostics_table_lists_every_code():
    from schemac.diagnostics import CODES

    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("\n## Diagnostics"):]
    listed = re.findall(r"^\| (E\d{4}|W\d{4}|[A-Z]{2}\d{3}) \| ([^|]+) \|", table, re.M)
    assert {code for code, _ in listed} == set(CODES)
    for code, meaning in listed:
        assert meaning.strip() == CODES[code], code


def test_known_issues_match_the_open_reproducers():
    """Every item of "Known issues" names a reproducer in test_product_findings.py that is still
    xfail, and every xfail reproducer there is listed."""
    import test_product_findings as findings

    text = DOC.read_text(encoding="utf-8")
    listed = set(re.findall(r"\(`(test_\w+)`\)", text[text.index("\n## Known issues"):]))

    def is_xfail(fn) -> bool:
        return any(m.name == "xfail" for m in getattr(fn, "pytestmark", []))

    tests = {n: f for n, f in vars(findings).items() if n.startswith("test_") and callable(f)}
    assert listed <= set(tests), f"unknown reproducers: {listed - set(tests)}"
    fixed = sorted(n for n in listed if not is_xfail(tests[n]))
    assert not fixed, (f"fixed, but still a known issue in docs/language.md: {fixed}; remove the item and "
                       "update the sections that link to 'Known issues'")
    missing = sorted(n for n, f in tests.items() if is_xfail(f) and n not in listed)
    assert not missing, f"open reproducers missing from docs/language.md's Known issues: {missing}"
