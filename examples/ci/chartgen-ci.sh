#!/bin/sh
# chartgen in CI, for a pull or merge request: the one script the GitHub
# Actions workflow (examples/github/chartgen.yml) and the GitLab CI job
# (examples/gitlab/.gitlab-ci.yml) run, so both do exactly this.
#
#   examples/ci/chartgen-ci.sh BASE
#
# BASE is the git revision the change goes into (the target branch's commit:
# `origin/main`, `$CI_MERGE_REQUEST_DIFF_BASE_SHA`, the pull request's base
# sha). From the top of the repository, with chartgen on PATH, it
#
#   1. renders every environment and fails when out/ is not what values/
#      renders (`chartgen render --all values --output-dir out --check`);
#   2. checks each environment's render (`chartgen check out/ENV/release
#      out/ENV/kata`), and writes SARIF beside it when chartgen has
#      `check --output sarif` and CHARTGEN_SARIF_DIR is set;
#   3. writes what the change does, environment by environment
#      (`chartgen diff BASE:out/ENV out/ENV`, the impact summary first), to
#      a Markdown file for the CI to post as a comment.
#
# Every step runs, and the summary says how each went, even when one fails.
# Exit status: 0 when all pass, 1 when one failed (drift, a finding, the
# CHARTGEN_FAIL_ON gate), 2 on bad input (a bad BASE, invalid values,
# unreadable manifests or out/ that chartgen cannot write).
#
# Settings (environment):
#   CHARTGEN_VALUES     the values folder                  (default: values)
#   CHARTGEN_OUT        the rendered folder                (default: out)
#   CHARTGEN_SUMMARY    the Markdown file written          (default: chartgen-summary.md)
#   CHARTGEN_FAIL_ON    fail on an impact at this level or above:
#                       change, restart, security, destructive, refused (default: none)
#   CHARTGEN_SARIF_DIR  where to write ENV.sarif            (default: none)
#   CHARTGEN_MAX_LINES  lines of output kept per block     (default: 400)
#   CHARTGEN_MAX_BYTES  about the summary's size at most (default: 60000;
#                       a GitHub comment holds 65,536 characters)
set -eu

usage() {
    echo "usage: $0 BASE (the git revision the change goes into, e.g. origin/main)" >&2
    exit 2
}
[ "$#" -eq 1 ] || usage
base=$1
case $base in
    '' | -*) echo "error: BASE \`$base\` must be a git revision, not empty or an option" >&2; exit 2 ;;
esac

values=${CHARTGEN_VALUES:-values}
out=${CHARTGEN_OUT:-out}
summary=${CHARTGEN_SUMMARY:-chartgen-summary.md}
fail_on=${CHARTGEN_FAIL_ON:-}
sarif_dir=${CHARTGEN_SARIF_DIR:-}
max_lines=${CHARTGEN_MAX_LINES:-400}
max_bytes=${CHARTGEN_MAX_BYTES:-60000}

case $fail_on in
    '' | change | restart | security | destructive | refused) ;;
    *) echo "error: CHARTGEN_FAIL_ON \`$fail_on\` is not one of change, restart, security, destructive, refused" >&2; exit 2 ;;
esac
for number in "$max_lines" "$max_bytes"; do
    case $number in
        '' | *[!0-9]*) echo "error: CHARTGEN_MAX_LINES and CHARTGEN_MAX_BYTES must be numbers" >&2; exit 2 ;;
    esac
done
for folder in "$values" "$out"; do
    case $folder in
        /* | ../* | */../* | */.. | ..) echo "error: \`$folder\` must be a folder inside the repository" >&2; exit 2 ;;
    esac
done
command -v chartgen >/dev/null || { echo "error: chartgen is not on PATH" >&2; exit 2; }

top=$(git rev-parse --show-toplevel) || { echo "error: not inside a git repository" >&2; exit 2; }
# The summary path is taken from where the script was started.
case $summary in /*) ;; *) summary=$(pwd)/$summary ;; esac
case $sarif_dir in /* | '') ;; *) sarif_dir=$(pwd)/$sarif_dir ;; esac
cd "$top"
git rev-parse --verify --quiet --end-of-options "$base^{commit}" >/dev/null \
    || { echo "error: BASE \`$base\` is not a commit of this repository (fetch it: git fetch origin $base)" >&2; exit 2; }

status=0
# Keeps the worst exit code seen (2 over 1 over 0).
record() {
    if [ "$1" -gt "$status" ]; then status=$1; fi
}

# A fence longer than any run of backticks in the file, so no text of the
# manifests (an annotation holding ```) can end the code block and write
# Markdown into the comment.
fence() {
    awk 'BEGIN { n = 2 }
         { line = $0
           while (match(line, /`+/)) { if (RLENGTH > n) n = RLENGTH; line = substr(line, RSTART + RLENGTH) } }
         END { s = ""; for (i = 0; i <= n; i++) s = s "`"; print s }' "$1"
}

# Appends FILE to the summary as a code block: at most max_lines lines, and
# only as much as keeps the summary under max_bytes (a comment has a limit:
# 65,536 characters on GitHub), whole lines only.
block() {
    f=$(fence "$1")
    lines=$(wc -l <"$1")
    head -n "$max_lines" "$1" >"$scratch/part"
    room=$((max_bytes - $(wc -c <"$summary") - 2 * ${#f} - 200))
    [ "$room" -gt 0 ] || room=0
    if [ "$(wc -c <"$scratch/part")" -gt "$room" ]; then
        head -c "$room" "$scratch/part" | sed '$d' >"$scratch/cut"
        mv "$scratch/cut" "$scratch/part"
    fi
    kept=$(wc -l <"$scratch/part")
    if [ "$kept" -gt 0 ]; then
        printf '%s\n' "$f" >>"$summary"
        cat "$scratch/part" >>"$summary"
        printf '%s\n' "$f" >>"$summary"
    fi
    if [ "$kept" -lt "$lines" ]; then
        printf '\n(%s of %s lines shown; the job log has all of them)\n' "$kept" "$lines" >>"$summary"
    fi
}

# An environment is a folder of out/ with a plain name; anything else is
# reported, never put into a command line or the comment as it is.
plain_name() {
    case $1 in
        '' | .* | *[!A-Za-z0-9._-]*) return 1 ;;
    esac
}

# A folder of the change, not a symbolic link: a link in out/ (which the
# change controls) could point anywhere on the runner, and what check and
# diff read from there would land in the log and the comment.
real_dir() {
    [ -d "$1" ] && [ ! -L "$1" ]
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM

printf '## chartgen\n\n' >"$summary"

# 1. Drift.
code=0
chartgen render --all "$values" --output-dir "$out" --check >"$scratch/drift" 2>&1 || code=$?
record "$code"
if [ "$code" -eq 0 ]; then
    printf '**Render**: `%s/` is what `%s/` renders.\n\n' "$out" "$values" >>"$summary"
else
    # Exit 1 is drift (a `drift:` line) or a render that breaks an
    # invariant; exit 2 means the values or the tree are bad. Only drift
    # is mended by rendering again.
    if [ "$code" -eq 1 ] && grep -q '^drift: ' "$scratch/drift"; then
        printf '**Render**: `%s/` is **not** what `%s/` renders (exit %s). Run `chartgen render --all %s --output-dir %s` and commit the result.\n\n' \
            "$out" "$values" "$code" "$values" "$out" >>"$summary"
    elif [ "$code" -eq 1 ]; then
        printf '**Render**: what `%s/` renders breaks an invariant of the chart (exit %s): change the values; rendering again writes nothing.\n\n' \
            "$values" "$code" >>"$summary"
    else
        printf '**Render**: `chartgen render --all %s --output-dir %s --check` failed (exit %s): the values in `%s/` or the files of `%s/` are bad (the error below). Fix them; rendering again fails the same way.\n\n' \
            "$values" "$out" "$code" "$values" "$out" >>"$summary"
    fi
    block "$scratch/drift"
    printf '\n' >>"$summary"
fi
cat "$scratch/drift"

# The environments: the folders of out/ in the change and in BASE, one a
# line. git quotes a name with a newline or other unusual character ("a\nb"),
# so such a name is one line, and not a plain name.
current=$(for dir in "$out"/*/; do if real_dir "${dir%/}"; then basename "$dir"; fi; done)
before=$(git ls-tree --name-only --end-of-options "$base:$out" 2>/dev/null || true)
envs=$(printf '%s\n%s\n' "$current" "$before" | sed '/^$/d' | sort -u)
if [ -L "$out" ]; then
    echo "error: \`$out\` is a symbolic link; no environment of it is read" >&2
    printf '**Check** and **diff**: skipped, `%s` is a symbolic link.\n\n' "$out" >>"$summary"
    record 2
    envs=
fi
newline='
'
IFS=$newline

# 2. Check, per environment.
printf '**Check**:\n\n' >>"$summary"
for env in $envs; do
    plain_name "$env" || continue
    real_dir "$out/$env" || continue
    set --
    for bundle in release kata; do
        real_dir "$out/$env/$bundle" && set -- "$@" "$out/$env/$bundle"
    done
    [ "$#" -gt 0 ] || continue
    code=0
    chartgen check "$@" >"$scratch/check" 2>&1 || code=$?
    record "$code"
    cat "$scratch/check"
    if [ "$code" -eq 0 ]; then
        printf '* `%s`: every invariant holds.\n' "$env" >>"$summary"
    else
        # "$*" joins with the first character of IFS, a newline here: the
        # command is joined with spaces, so it stays on one line.
        IFS=' '
        shown="$*"
        IFS=$newline
        printf '* `%s`: `chartgen check %s` failed (exit %s):\n\n' "$env" "$shown" "$code" >>"$summary"
        block "$scratch/check"
        printf '\n' >>"$summary"
    fi
    if [ -n "$sarif_dir" ] && chartgen check --help 2>/dev/null | grep -q sarif; then
        mkdir -p "$sarif_dir"
        chartgen check --output sarif "$@" >"$sarif_dir/$env.sarif" || true
    fi
done
printf '\n' >>"$summary"

# 3. What the change does.
printf '### What this change does (against `%s`)\n\n' "$(git rev-parse --short --end-of-options "$base^{commit}")" >>"$summary"
gate=
[ -z "$fail_on" ] || gate="--fail-on $fail_on"
for env in $envs; do
    if ! plain_name "$env"; then
        printf '* a folder of `%s/` whose name is not a plain environment name was skipped\n\n' "$out" >>"$summary"
        continue
    fi
    in_base=yes
    git cat-file -e "$base:$out/$env" 2>/dev/null || in_base=no
    if [ -L "$out/$env" ]; then
        echo "error: \`$out/$env\` is a symbolic link; it is not compared" >&2
        printf '#### `%s`: not compared: `%s/%s` is a symbolic link\n\n' "$env" "$out" "$env" >>"$summary"
        record 2
        continue
    fi
    if [ ! -d "$out/$env" ]; then
        printf '#### `%s`: removed (every object of it goes)\n\n' "$env" >>"$summary"
        continue
    fi
    if [ "$in_base" = no ]; then
        printf '#### `%s`: new environment\n\n' "$env" >>"$summary"
        continue
    fi
    # A path of the change named like BASE:out/ENV would be read instead of
    # the revision (a local path wins): the change would choose its own base.
    if [ -e "$base:$out/$env" ] || [ -L "$base:$out/$env" ]; then
        echo "error: \`$base:$out/$env\` exists as a path in the working tree; it would stand in for the base revision" >&2
        printf '#### `%s`: not compared: a path of the change is named like the base revision\n\n' "$env" >>"$summary"
        record 2
        continue
    fi
    code=0
    IFS=' '
    # shellcheck disable=SC2086 # $gate is two words or none
    chartgen diff $gate "$base:$out/$env" "$out/$env" >"$scratch/diff" 2>&1 || code=$?
    IFS=$newline
    record "$code"
    cat "$scratch/diff"
    printf '#### `%s`\n\n' "$env" >>"$summary"
    if [ "$code" -eq 1 ]; then
        printf '**Fails the gate** (`--fail-on %s`).\n\n' "$fail_on" >>"$summary"
    elif [ "$code" -ne 0 ]; then
        printf '`chartgen diff` failed (exit %s):\n\n' "$code" >>"$summary"
    fi
    block "$scratch/diff"
    printf '\n' >>"$summary"
done

echo "chartgen-ci: summary written to $summary (exit $status)" >&2
exit "$status"
