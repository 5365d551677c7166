#!/bin/sh
# gen-man.sh GPUSCHED OUTDIR - man pages from the binary's own help, so they
# cannot drift from it: OUTDIR/gpusched.1 (the commands) and one
# OUTDIR/gpusched-CMD.1 per command (its --help verbatim, plus each import
# format's help).  Written by hand rather than with help2man: help2man wants
# one program per page and a GNU-style --help layout; a dozen lines of sh
# give the same pages without a build dependency.
set -eu
G=$1
OUT=$2
mkdir -p "$OUT"
VER=$("$G" --version | awk '{print $2}')
DATE=$(date -u +%Y-%m-%d)
# roff-safe text: backslashes, and lines starting with . or '
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
cmds=$("$G" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')

{
    printf '.TH GPUSCHED 1 "%s" "gpusched %s" "User Commands"\n' "$DATE" "$VER"
    printf '.SH NAME\ngpusched \\- GPU cluster scheduler: simulate, compare, diagnose\n'
    printf '.SH SYNOPSIS\n.B gpusched\n.I command\n[\\fIoptions\\fR]\n'
    printf '.SH DESCRIPTION\n.nf\n'
    "$G" --help | esc
    printf '.fi\n.SH "SEE ALSO"\n'
    for c in $cmds; do printf '.BR gpusched-%s (1)\n' "$c"; done
} >"$OUT/gpusched.1"

for c in $cmds; do
    summary=$("$G" --help | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
    {
        printf '.TH GPUSCHED-%s 1 "%s" "gpusched %s" "User Commands"\n' \
            "$(echo "$c" | tr a-z A-Z)" "$DATE" "$VER"
        printf '.SH NAME\ngpusched-%s \\- %s\n' "$c" "$summary"
        printf '.SH DESCRIPTION\n.nf\n'
        "$G" "$c" --help | esc
        printf '.fi\n'
        if [ "$c" = import ]; then
            for f in $("$G" import --help | awk '/Formats:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
                printf '.SH "FORMAT %s"\n.nf\n' "$f"
                "$G" import --format "$f" --help | esc
                printf '.fi\n'
            done
        fi
        printf '.SH "SEE ALSO"\n.BR gpusched (1)\n'
    } >"$OUT/gpusched-$c.1"
done
