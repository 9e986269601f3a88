#!/usr/bin/env bash
# deps.sh prepares this machine for building and testing zenbrain:
#   - a PostgreSQL server >= 15 (binaries: initdb, pg_ctl, postgres),
#   - the pgvector extension >= 0.8 for that server (a Debian package when one exists,
#     otherwise built from Debian trixie's pgvector source package),
#   - zenbrain's own extension zb_lexical (ext/zb_lexical: recall's lexical half compiled), built
#     with PGXS and installed for that server — optional: without root it is skipped and recall
#     scores BM25 in SQL,
#   - PgBouncer (Debian package pgbouncer), which the pooler tests run in front of the test server
#     (internal/zbtest.PgBouncer, on a free port of their own: the service Debian's package runs
#     on port 6432 is never used),
#   - the Go tools the build uses, pinned (sqlc), installed into ./bin.
# It is idempotent: when everything is present it only checks, in a few seconds.
# Environment:
#   ZB_PG_VERSION   PostgreSQL major version to install when none is found (default 15).
#   ZB_SKIP_PG=1    skip the PostgreSQL/pgvector part (e.g. when ZB_DATABASE_URL points at a
#                   server you manage; that server must have pgvector >= 0.8).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bindir="$here/bin"
sqlc_version=v1.31.1
pgvector_min=0.8.0
pg_major=${ZB_PG_VERSION:-15}

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

# version_ge A B: true when version A >= B (dotted numbers).
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@";
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@";
	else return 1; fi
}

have_apt() { command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; }

apt_updated=0
apt_install() {
	have_apt || return 1
	if [ $apt_updated -eq 0 ]; then
		as_root apt-get update -qq >/dev/null || return 1
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

unsupported() {
	cat >&2 <<MSG
deps: error: $1
deps: zenbrain needs PostgreSQL >= 15 with the pgvector extension >= $pgvector_min.
deps: This script installs them on Debian/Ubuntu (as root or with passwordless sudo).
deps: Otherwise either
deps:   - install PostgreSQL >= 15 and pgvector yourself (https://github.com/pgvector/pgvector#installation),
deps:     with pg_config on PATH, and run 'make deps' again; or
deps:   - point ZB_DATABASE_URL (and ZB_TEST_DATABASE_URL for the tests) at any PostgreSQL with pgvector
deps:     and run with ZB_SKIP_PG=1.
MSG
	exit 1
}

# find_pg_config prints the pg_config of the newest installed server >= 15.
find_pg_config() {
	local c best="" bestv=0 v
	for c in /usr/lib/postgresql/*/bin/pg_config $(command -v pg_config 2>/dev/null || true); do
		[ -x "$c" ] || continue
		v=$("$c" --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
		[[ "$v" =~ ^[0-9]+$ ]] || continue
		[ -x "$("$c" --bindir)/postgres" ] || continue
		if [ "$v" -ge 15 ] && [ "$v" -gt "$bestv" ]; then best=$c; bestv=$v; fi
	done
	[ -n "$best" ] && echo "$best"
}

pgvector_version() { # prints the installed default_version of pgvector for pg_config $1
	local ctl
	ctl="$("$1" --sharedir)/extension/vector.control"
	[ -f "$ctl" ] || return 1
	sed -nE "s/^default_version *= *'([^']+)'.*/\1/p" "$ctl"
}

ensure_postgres() {
	local pgc
	pgc=$(find_pg_config || true)
	if [ -z "$pgc" ]; then
		say "no PostgreSQL >= 15 server found; installing postgresql-$pg_major"
		have_apt || unsupported "no PostgreSQL >= 15 server found and this is not a Debian/Ubuntu system"
		apt_install "postgresql-$pg_major" || unsupported "could not install postgresql-$pg_major (need root or passwordless sudo)"
		pgc=$(find_pg_config || true)
		[ -n "$pgc" ] || unsupported "postgresql-$pg_major installed but no server binaries were found"
	fi
	PG_CONFIG=$pgc
	say "PostgreSQL $("$pgc" --version | awk '{print $2}') at $("$pgc" --bindir)"
}

build_pgvector_from_source() {
	local pgc=$1 major work
	major=$("$pgc" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	say "building pgvector from Debian trixie's source package against PostgreSQL $major"
	apt_install "postgresql-server-dev-$major" build-essential dpkg-dev ca-certificates ||
		unsupported "could not install postgresql-server-dev-$major and a C toolchain"
	work=$(mktemp -d /tmp/zb-pgvector.XXXXXX)
	mkdir -p "$work/lists/partial" "$work/parts" "$work/src"
	echo "deb-src http://deb.debian.org/debian trixie main" >"$work/trixie-src.list"
	local aptopts=(-o "Dir::Etc::SourceList=$work/trixie-src.list" -o "Dir::Etc::SourceParts=$work/parts"
		-o "Dir::State::Lists=$work/lists" -o "APT::Get::List-Cleanup=0")
	apt-get "${aptopts[@]}" update -qq >/dev/null 2>&1 ||
		unsupported "could not read Debian trixie's source index (deb.debian.org unreachable?)"
	(cd "$work/src" && apt-get "${aptopts[@]}" source -qq pgvector >/dev/null 2>&1) ||
		unsupported "could not fetch Debian trixie's pgvector source package"
	local srcdir
	srcdir=$(find "$work/src" -maxdepth 1 -mindepth 1 -type d -name 'pgvector-*' | head -n1)
	[ -n "$srcdir" ] || unsupported "pgvector source package unpacked nothing"
	make -s -C "$srcdir" PG_CONFIG="$pgc" OPTFLAGS="" >/dev/null 2>&1 || die "pgvector build failed in $srcdir"
	as_root make -s -C "$srcdir" PG_CONFIG="$pgc" install >/dev/null 2>&1 || die "pgvector install failed (need root)"
	rm -rf "$work"
}

ensure_pgvector() {
	local pgc=$PG_CONFIG v major
	v=$(pgvector_version "$pgc" || true)
	if [ -n "$v" ] && version_ge "$v" "$pgvector_min"; then
		say "pgvector $v"
		return
	fi
	[ -n "$v" ] && say "pgvector $v is older than $pgvector_min"
	major=$("$pgc" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	have_apt || unsupported "pgvector >= $pgvector_min is missing and this is not a Debian/Ubuntu system"
	if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1 &&
		[ -n "$(apt-cache policy "postgresql-$major-pgvector" | sed -nE 's/^ *Candidate: ([0-9][^ ]*).*/\1/p')" ]; then
		local cand
		cand=$(apt-cache policy "postgresql-$major-pgvector" | sed -nE 's/^ *Candidate: ([0-9.]+).*/\1/p')
		if [ -n "$cand" ] && version_ge "$cand" "$pgvector_min"; then
			say "installing postgresql-$major-pgvector $cand"
			apt_install "postgresql-$major-pgvector" || true
		fi
	fi
	v=$(pgvector_version "$pgc" || true)
	if [ -z "$v" ] || ! version_ge "$v" "$pgvector_min"; then
		build_pgvector_from_source "$pgc"
	fi
	v=$(pgvector_version "$pgc" || true)
	[ -n "$v" ] && version_ge "$v" "$pgvector_min" || die "pgvector still missing after install"
	say "pgvector $v installed"
}

# ensure_zb_lexical builds ext/zb_lexical against the server and installs it, when the installed
# build is not of these sources (a hash of them is installed beside the control file).
ensure_zb_lexical() {
	local pgc=$PG_CONFIG major src hash marker work
	src="$here/ext/zb_lexical"
	major=$("$pgc" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	hash=$(cd "$src" && cat Makefile zb_lexical.control zb_lexical--*.sql zb_lexical.c | sha256sum | cut -c1-16)
	marker="$("$pgc" --sharedir)/extension/zb_lexical.srchash"
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$hash" ] && [ -f "$("$pgc" --pkglibdir)/zb_lexical.so" ]; then
		say "zb_lexical $hash"
		return
	fi
	if [ ! -f "$("$pgc" --pgxs)" ] || ! command -v gcc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
		apt_install "postgresql-server-dev-$major" build-essential || {
			say "zb_lexical not installed (no postgresql-server-dev-$major or C toolchain, and none could be installed): recall scores BM25 in SQL"
			return
		}
	fi
	work=$(mktemp -d /tmp/zb-lexical.XXXXXX)
	cp "$src"/Makefile "$src"/zb_lexical.control "$src"/zb_lexical--*.sql "$src"/zb_lexical.c "$work/"
	make -s -C "$work" PG_CONFIG="$pgc" with_llvm=no >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; die "zb_lexical build failed"; }
	if ! as_root make -s -C "$work" PG_CONFIG="$pgc" with_llvm=no install >/dev/null 2>&1 ||
		! printf '%s\n' "$hash" | as_root tee "$marker" >/dev/null; then
		say "zb_lexical not installed (need root or passwordless sudo): recall scores BM25 in SQL"
		rm -rf "$work"
		return
	fi
	rm -rf "$work"
	say "zb_lexical $hash installed (CREATE EXTENSION happens in migration 0032, or by a superuser later)"
}

# ensure_pgbouncer installs PgBouncer when no pgbouncer binary is found (on PATH or in /usr/sbin,
# where Debian puts it): the tests of clients sharing a pooler need it.
ensure_pgbouncer() {
	local bin
	bin=$(command -v pgbouncer 2>/dev/null || true)
	if [ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ]; then bin=/usr/sbin/pgbouncer; fi
	if [ -z "$bin" ]; then
		say "no pgbouncer found; installing pgbouncer"
		have_apt || die "pgbouncer is missing and this is not a Debian/Ubuntu system: install PgBouncer (https://www.pgbouncer.org/install.html); the pooler tests need it"
		apt_install pgbouncer || die "could not install pgbouncer (need root or passwordless sudo); the pooler tests need it"
		bin=/usr/sbin/pgbouncer
		[ -x "$bin" ] || die "pgbouncer installed but $bin was not found"
	fi
	say "$("$bin" --version 2>/dev/null | head -n1) at $bin"
}

ensure_go_tools() {
	command -v go >/dev/null 2>&1 || die "Go is not on PATH (need Go >= 1.26; https://go.dev/dl/)"
	mkdir -p "$bindir"
	if [ -x "$bindir/sqlc" ] && [ "$("$bindir/sqlc" version 2>/dev/null)" = "$sqlc_version" ]; then
		say "sqlc $sqlc_version"
	else
		say "installing sqlc $sqlc_version into $bindir (a few minutes the first time)"
		# CGO_ENABLED=0 selects sqlc's WebAssembly build of the PostgreSQL parser: the same parser,
		# without compiling libpg_query in C (minutes faster on a fresh machine).
		CGO_ENABLED=0 GOBIN="$bindir" go install "github.com/sqlc-dev/sqlc/cmd/sqlc@$sqlc_version"
	fi
}

if [ "${ZB_SKIP_PG:-0}" != 1 ]; then
	ensure_postgres
	ensure_pgvector
	ensure_zb_lexical
else
	say "ZB_SKIP_PG=1: not checking the local PostgreSQL and pgvector"
fi
ensure_pgbouncer
ensure_go_tools
say "ok"
