#!/usr/bin/env bash
# .ci/go121.sh — print the path of Go 1.21's `go`, installing it first when it is missing.
#
# Pants 2.17 drives only Go <= 1.21 (see pants.toml [golang]), so both ./pants (its Go backend is
# enabled: even `export-codegen ::` needs a Go to expand go_mod targets) and tests/run need one.
# It is Debian's golang-1.21-go from the <codename>-backports suite, whose `go` lives at
# /usr/lib/go-1.21/bin/go (the directory pants.toml's go_search_paths names). Installing needs root
# (or sudo) and the machine's Debian mirror; the system's apt sources and lists are not changed
# (a private source list and list directory under ~/.cache/schemac/apt are used).
#
# Prints nothing but the path on stdout; progress and errors go to stderr. Exits non-zero when
# Go 1.21 cannot be made available.
set -euo pipefail

log() { printf '[go121] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

go121_path() { dpkg -L golang-1.21-go 2>/dev/null | grep -m1 '/bin/go$' || true; }

# Writes apt source lines for <codename> and <codename>-backports, using the mirror (and key)
# that the machine's own Debian entries use. Reads the system's lists, never changes them.
apt_backports_sources() {
  python3 - "$1" <<'PY'
import pathlib, re, sys
codename = sys.argv[1]
found = []
def add(uri, suites, signed_by):
    if codename in suites:
        found.append((uri, signed_by))
etc = pathlib.Path("/etc/apt")
one_line = ([etc / "sources.list"] if (etc / "sources.list").exists() else []) + sorted((etc / "sources.list.d").glob("*.list"))
for f in one_line:
    for line in f.read_text().splitlines():
        m = re.match(r"\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line.split("#", 1)[0])
        if m:
            s = re.search(r"signed-by=([^\s\]]+)", m.group(1) or "")
            add(m.group(2), [m.group(3)], s.group(1) if s else "")
for f in sorted((etc / "sources.list.d").glob("*.sources")):
    for stanza in re.split(r"\n\s*\n", f.read_text()):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            k, v = line.split(":", 1)
            fields[k.strip().lower()] = v.strip()
        if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
            continue
        for uri in fields.get("uris", "").split():
            add(uri, fields.get("suites", "").split(), fields.get("signed-by", ""))
if not found:
    sys.exit("no apt source for suite %r in /etc/apt" % codename)
uri, signed_by = found[0]
opt = "[signed-by=%s] " % signed_by if signed_by.startswith("/") else ""
for suite in (codename, codename + "-backports"):
    print("deb %s%s %s main" % (opt, uri, suite))
PY
}

install_go121() {
  local codename apt_dir
  command -v apt-get >/dev/null || die "no apt-get: install Go 1.21 by hand (see pants.toml [golang])"
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || die "cannot tell the Debian codename"
  apt_dir="${XDG_CACHE_HOME:-$HOME/.cache}/schemac/apt"
  mkdir -p "$apt_dir/lists/partial"
  apt_backports_sources "$codename" > "$apt_dir/sources.list"
  # A private source list, list directory and no package caches: the system's apt
  # configuration and state are left as they are.
  local opts=(
    -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
    -o "APT::Sandbox::User=root" -o "Acquire::Retries=3"
  )
  log "installing golang-1.21-go from $codename-backports (once)"
  as_root apt-get "${opts[@]}" -q update >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${opts[@]}" -q -y \
    --no-install-recommends install golang-1.21-go >/dev/null
}

path="$(go121_path)"
if [ -z "$path" ]; then
  install_go121
  path="$(go121_path)"
fi
[ -n "$path" ] && [ -x "$path" ] || die "golang-1.21-go is not installed"
echo "$path"
