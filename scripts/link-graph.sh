#!/bin/sh
# link-graph.sh - the link-level call graph of src/core, read from the
# compiled objects: an object that leaves symbol S undefined (nm -u) and
# another that defines it (nm --defined-only, text or data) make an arrow
# from the first to the second.  Prints:
#   folders   every folder-to-folder arrow, "from -> to  (N symbols)"
#   arrows    the same, one "from to sym..." a line (for check-layering.sh)
#   circles   every pair of folders with arrows both ways
#   scc       every file-level strongly connected component of more than
#             one file, with its size and its files
# Usage: scripts/link-graph.sh [OBJDIR] [SECTION...]   (default build/debug/src/core,
# all sections; SECTION is one of folders, circles, scc, pairs: `pairs` prints only
# the both-ways folder pairs, one "a b" a line, a < b, for check-layering.sh).
set -u
dir=${1:-build/debug/src/core}
[ $# -gt 0 ] && shift
sections=${*:-folders circles scc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
found=0
ls "$dir"/*/*.o >/dev/null 2>&1 && found=1
if [ $found -eq 1 ]; then
    # one nm per kind over every object ("path/FOLDER/FILE.o:... SYM"), each
    # line turned into "SYM FOLDER/FILE" (definitions) or "FOLDER/FILE SYM"
    nm -A --defined-only "$dir"/*/*.o | awk '{n = split($1, p, "/"); f = p[n - 1] "/" p[n]
        sub(/\.o:.*/, "", f); if ($2 ~ /^[TDBR]$/) print $3, f}' >"$tmp/def"
    nm -A -u "$dir"/*/*.o | awk '{n = split($1, p, "/"); f = p[n - 1] "/" p[n]
        sub(/\.o:.*/, "", f); print f, $NF}' >"$tmp/use"
fi
if [ $found -eq 0 ]; then
    echo "link-graph: no objects under $dir (build first)" >&2
    exit 2
fi
# file-level edges "from to sym"
awk 'NR == FNR {def[$1] = $2; next} ($2 in def) && def[$2] != $1 {print $1, def[$2], $2}' \
    "$tmp/def" "$tmp/use" | sort -u >"$tmp/edges"
for s in $sections; do
    case $s in
    folders)
        echo "== folder arrows (from -> to, symbols)"
        awk '{split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1]) n[a[1] " -> " b[1]]++}
             END {for (k in n) printf "%-24s %d\n", k, n[k]}' "$tmp/edges" | sort ;;
    arrows)
        awk '{split($1, a, "/"); split($2, b, "/"); k = a[1] " " b[1]
              if (a[1] != b[1] && !((k SUBSEP $3) in ws)) { ws[k SUBSEP $3] = 1; w[k] = w[k] " " $3 }}
             END {for (k in w) print k w[k]}' "$tmp/edges" | sort ;;
    circles|pairs)
        [ "$s" = circles ] && echo "== folder pairs calling each other both ways"
        awk -v mode="$s" '{split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1]) e[a[1] SUBSEP b[1]] = 1;
                  if (a[1] != b[1] && !((a[1] SUBSEP b[1] SUBSEP $3) in ws)) {
                      ws[a[1] SUBSEP b[1] SUBSEP $3] = 1; w[a[1] SUBSEP b[1]] = w[a[1] SUBSEP b[1]] " " $3 }}
             END {for (k in e) {split(k, p, SUBSEP); if (p[1] < p[2] && ((p[2] SUBSEP p[1]) in e)) {
                      if (mode == "pairs") print p[1], p[2];
                      else printf "%s <-> %s\n   %s ->%s\n   %s ->%s\n", p[1], p[2], p[1], w[k], p[2], w[p[2] SUBSEP p[1]]}}}' \
            "$tmp/edges" | if [ "$s" = pairs ]; then sort; else cat; fi ;;
    scc)
        echo "== file-level strongly connected components (size: files)"
        # Tarjan's algorithm over the file graph.
        awk '{ if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; adj[$1] = adj[$1] " " $2 }
               node[$1] = 1; node[$2] = 1 }
             function strong(v,   i, n, k, w, c, out) {
                 idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
                 n = split(adj[v], k, " ")
                 for (i = 1; i <= n; i++) { w = k[i]
                     if (!(w in idx)) { strong(w); if (low[w] < low[v]) low[v] = low[w] }
                     else if (on[w] && idx[w] < low[v]) low[v] = idx[w] }
                 if (low[v] == idx[v]) { c = 0; out = ""
                     do { w = stack[sp--]; on[w] = 0; c++; out = out " " w } while (w != v)
                     if (c > 1) print c ":" out }
             }
             END { for (v in node) if (!(v in idx)) strong(v) }' "$tmp/edges" | sort -t: -k1,1nr ;;
    *) echo "link-graph: unknown section $s" >&2; exit 2 ;;
    esac
done
