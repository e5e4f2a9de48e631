#!/bin/sh
# Installs a released chartgen (examples/github/release.yml builds them):
# downloads the archive for this machine and the release's SHA256SUMS,
# refuses the archive unless its SHA-256 is the one listed (and, when
# pinned, the one pinned), and puts the binary into DIR. What the CI
# examples run instead of `cargo build` in every job.
#
#   examples/ci/install-chartgen.sh VERSION DIR
#
# VERSION is a release tag (v0.1.0): the version out/ was rendered with.
# DIR gets DIR/chartgen (created when missing; add it to PATH).
#
# Settings (environment):
#   CHARTGEN_RELEASE_URL  where the releases are: VERSION/ARCHIVE and
#                         VERSION/SHA256SUMS beneath it (default:
#                         https://github.com/OWNER/chartgen/releases/download;
#                         https:// or file:// only)
#   CHARTGEN_SHA256       the archive's SHA-256, pinned in your repository:
#                         then a release whose archive and SHA256SUMS were
#                         both replaced is refused too (default: none)
#   CHARTGEN_ATTESTATION_REPO  OWNER/REPO: also verify the archive's build
#                         provenance with `gh attestation verify` (GitHub's
#                         CLI, with a token) (default: none)
#   CHARTGEN_TARGET       the archive's target, when not this machine's:
#                         x86_64-unknown-linux-musl, aarch64-unknown-linux-musl,
#                         x86_64-apple-darwin, aarch64-apple-darwin
#
# Exit 0 when installed, 1 when a check failed (checksum, provenance),
# 2 on bad input or a failed download. Nothing is installed unless every
# check passed.
set -eu

fail() { code=$1; shift; echo "install-chartgen: $*" >&2; exit "$code"; }

[ "$#" -eq 2 ] || fail 2 "usage: $0 VERSION DIR (e.g. v0.1.0 \"\$HOME/.local/bin\")"
version=$1
dir=$2
case $version in
    v[0-9]*) ;;
    *) fail 2 "VERSION must be a release tag such as v0.1.0" ;;
esac
case $version in
    *[!A-Za-z0-9._+-]*) fail 2 "VERSION must be a release tag such as v0.1.0" ;;
esac
case $dir in
    '' | -*) fail 2 "DIR must be a folder, not empty or an option" ;;
esac

base=${CHARTGEN_RELEASE_URL:-https://github.com/OWNER/chartgen/releases/download}
case $base in
    https://*) proto='=https' ;;
    file://*) proto='=file' ;;
    *) fail 2 "CHARTGEN_RELEASE_URL must be an https:// (or file://) URL" ;;
esac
pinned=${CHARTGEN_SHA256:-}
case $pinned in
    '') ;;
    *[!0-9a-f]*) fail 2 "CHARTGEN_SHA256 must be 64 lowercase hexadecimal digits" ;;
    *) [ "${#pinned}" -eq 64 ] || fail 2 "CHARTGEN_SHA256 must be 64 lowercase hexadecimal digits" ;;
esac

target=${CHARTGEN_TARGET:-}
if [ -z "$target" ]; then
    case "$(uname -s) $(uname -m)" in
        'Linux x86_64' | 'Linux amd64') target=x86_64-unknown-linux-musl ;;
        'Linux aarch64' | 'Linux arm64') target=aarch64-unknown-linux-musl ;;
        'Darwin x86_64') target=x86_64-apple-darwin ;;
        'Darwin arm64' | 'Darwin aarch64') target=aarch64-apple-darwin ;;
        *) fail 2 "no release for $(uname -s) $(uname -m): build it (cargo install --locked)" ;;
    esac
fi
case $target in
    x86_64-unknown-linux-musl | aarch64-unknown-linux-musl | x86_64-apple-darwin | aarch64-apple-darwin) ;;
    *) fail 2 "CHARTGEN_TARGET \`$target\` is not a target of the releases" ;;
esac

name=chartgen-$version-$target
archive=$name.tar.gz

sha256() {
    if command -v sha256sum >/dev/null; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif command -v shasum >/dev/null; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    else
        openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
    fi
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM

fetch() {
    curl --fail --silent --show-error --location --proto "$proto" --proto-redir "$proto" --retry 3 \
        --output "$scratch/$2" "$base/$version/$1" \
        || fail 2 "could not download $base/$version/$1"
}
fetch "$archive" archive.tar.gz
fetch SHA256SUMS SHA256SUMS

# The one line of SHA256SUMS naming the archive (`HASH  NAME`, or
# `HASH *NAME` in binary mode).
listed=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$scratch/SHA256SUMS")
[ -n "$listed" ] || fail 1 "SHA256SUMS of $version lists no $archive"
[ "$(printf '%s\n' "$listed" | wc -l)" -eq 1 ] || fail 1 "SHA256SUMS of $version lists $archive more than once"
actual=$(sha256 "$scratch/archive.tar.gz")
[ "$actual" = "$listed" ] \
    || fail 1 "checksum mismatch: $archive is $actual, SHA256SUMS says $listed; nothing installed"
if [ -n "$pinned" ] && [ "$actual" != "$pinned" ]; then
    fail 1 "checksum mismatch: $archive is $actual, CHARTGEN_SHA256 pins $pinned; nothing installed"
fi

if [ -n "${CHARTGEN_ATTESTATION_REPO:-}" ]; then
    cp "$scratch/archive.tar.gz" "$scratch/$archive"
    gh attestation verify "$scratch/$archive" --repo "$CHARTGEN_ATTESTATION_REPO" >&2 \
        || fail 1 "$archive has no valid build provenance from $CHARTGEN_ATTESTATION_REPO; nothing installed"
fi

mkdir "$scratch/unpacked"
tar -xzf "$scratch/archive.tar.gz" -C "$scratch/unpacked" \
    || fail 1 "$archive is not a gzip tar archive"
binary=$scratch/unpacked/$name/chartgen
if [ ! -f "$binary" ] || [ -L "$binary" ]; then
    fail 1 "$archive holds no file $name/chartgen"
fi

mkdir -p -- "$dir"
# Copied beside the old one, then renamed over it: a failed copy leaves
# the old binary whole.
cp -- "$binary" "$dir/.chartgen.new"
chmod 755 "$dir/.chartgen.new"
mv -f -- "$dir/.chartgen.new" "$dir/chartgen"
echo "install-chartgen: $("$dir/chartgen" --version) ($target, sha256 $actual) in $dir" >&2
