"""TEMPORARY STUB of the CLI contract; replaced by the real compiler."""
import argparse
import os
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m schemac")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--library", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--go-package")
    c.add_argument("--go-import-path")
    c.add_argument("--ts-module", choices=["esm", "commonjs"], default="esm")
    c.add_argument("files", nargs="+")
    a = p.parse_args(argv)
    for sub_dir, name in (("sql", "000001_init.up.sql"), ("sql", "000001_init.down.sql"), ("ts", "index.ts"), ("go", "db.go")):
        os.makedirs(os.path.join(a.out, sub_dir), exist_ok=True)
        with open(os.path.join(a.out, sub_dir, name), "w") as f:
            f.write("-- stub for %s from %s\n" % (a.library, ",".join(sorted(a.files))))
    return 0
