"""Property-based fuzzing of the compiler: any schema and query text either compiles or raises
``CompileError`` with diagnostics that render and point inside the file; no other exception,
ever. The oracle and the strategies live in ``fuzz_support.py``.

Strategies: (a) raw text from an alphabet weighted toward the language's tokens, as a schema
file and as a query file; (b) token-level mutations (delete, insert, duplicate, swap, replace)
of the repository's libraries (``schemas/**`` and ``tests/cases/**``, read at test time);
(c) grammar-shaped libraries from a small generator, which must compile unless a mistake was
injected on purpose (then they must not), and of which most must compile.

Default: a few hundred derandomized examples per strategy (CI). A large run with fresh random
data::

    SCHEMAC_FUZZ_EXAMPLES=20000 tests/run tests/compiler/test_fuzz.py --hypothesis-show-statistics

``SCHEMAC_FUZZ_STRICT=1`` also fails on the known bugs of ``fuzz_support.KNOWN_BUGS``.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, note
from hypothesis import strategies as st

from fuzz_support import (
    check_sources,
    fuzz_settings,
    generated_library,
    mutated_library,
    run_case,
    seed_libraries,
    token_soup,
)

#: A schema every query-side strategy compiles against: enum, every scalar, defaults,
#: full and partial exclusive constraints, a module.
FIXED_SCHEMA = """\
enum Status { Pending, Running, 'in progress', Done }

type T {
  required a: str;
  b: int64;
  c: float64 { default := 1.5 };
  required d: bool { default := false };
  s: Status { default := Status.Pending };
  at: datetime { default := now() };
  j: json;
  u: uuid;
  y: bytes;
  n: decimal;
  constraint exclusive on (.a);
  constraint exclusive on (.b, .s) filter .s = Status.Pending and .d;
}

module m {
  type U { required name: str { constraint exclusive; }; order: int32; }
}
"""

QUERY_PREFIXES = ("", "insert T { ", "update T filter ", "update T set { ", "insert m::U { name := ",
                  "insert T { a := $a } unless conflict on ")


def test_fixed_schema_compiles():
    assert check_sources({"fz/schema.esdl": FIXED_SCHEMA,
                          "fz/queries/q.edgeql": "insert T { a := $a } unless conflict on (.a);"}) == "ok"


def test_seed_libraries_are_found():
    libs = seed_libraries()
    assert libs, "no schema library under schemas/ or tests/cases/"
    assert all(any(p.endswith(".esdl") for p, _ in lib) for lib in libs)


@fuzz_settings(300)
@given(schema=token_soup())
def test_raw_schema_text(schema):
    run_case({"fz/schema.esdl": schema, "fz/queries/q.edgeql": "insert T { a := $a };"})


@fuzz_settings(300)
@given(prefix=st.sampled_from(QUERY_PREFIXES), query=token_soup(40))
def test_raw_query_text(prefix, query):
    run_case({"fz/schema.esdl": FIXED_SCHEMA, "fz/queries/q.edgeql": prefix + query})


@fuzz_settings(300)
@given(sources=mutated_library())
def test_mutated_repository_libraries(sources):
    run_case(sources)


def test_generated_libraries():
    """(c): valid-by-construction libraries compile, spoiled ones do not, and most compile."""
    outcomes: Counter = Counter()

    @fuzz_settings(250)
    @given(lib=generated_library())
    def run(lib):
        for path, text in sorted(lib.sources.items()):
            note(f"--- {path}\n{text}")
        outcome = run_case(lib.sources)
        outcomes[outcome] += 1
        if outcome.startswith("known:"):
            return
        if lib.valid:
            assert outcome == "ok", "a valid-by-construction library did not compile:\n" + _diagnostics(lib.sources)
        else:
            assert outcome == "error", f"a library with an injected mistake ({lib.mistake}) compiled"

    run()
    total = sum(outcomes.values())
    print(f"generated libraries: {dict(outcomes)}")
    assert total >= 50
    compiled = outcomes["ok"] + sum(n for o, n in outcomes.items() if o.startswith("known:"))
    assert compiled >= 0.6 * total, f"the generator produced too few compiling libraries: {dict(outcomes)}"


def _diagnostics(sources) -> str:
    from schemac.pipeline import compile_library
    from schemac.diagnostics import CompileError

    from fuzz_support import OPTIONS

    try:
        compile_library(sources, OPTIONS)
    except CompileError as e:
        return e.render(dict(sources))
    return "(compiled)"
