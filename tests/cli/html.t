#!/bin/sh
# --html on sim, compare and whatif: the report loads in real headless
# Chromium with no console errors, every chart is present and non-empty,
# and a screenshot of each page is kept under build/test-artifacts/.
. "$(dirname "$0")/tap.sh"
plan 33
C=$ROOT/examples/seed-cluster.yaml
P=$ROOT/examples/seed-policy.yaml
ART=$ROOT/build/test-artifacts
mkdir -p "$ART"
V=${GS_VARIANT:-manual}
CHROME=$(command -v chromium || command -v chromium-browser || true)

"$GPUSCHED" gen --jobs 300 --seed 5 --cluster "$C" --load 0.8 --out "$TMP/t.csv" >/dev/null 2>&1
printf 'queue:\n  policy: fifo\n' >"$TMP/fifo.yaml"

run "$GPUSCHED" sim --cluster "$C" --trace "$TMP/t.csv" --policy "$P" --html "$TMP/sim.html"
ok $rc "sim --html exits 0"
run "$GPUSCHED" compare --cluster "$C" --trace "$TMP/t.csv" --policy "$TMP/fifo.yaml" \
    --policy "$P" --html "$TMP/compare.html"
ok $rc "compare --html exits 0"
run "$GPUSCHED" whatif --cluster "$C" --trace "$TMP/t.csv" --policy "$TMP/fifo.yaml" \
    --policy "$P" --add-nodes 1 --html "$TMP/whatif.html"
ok $rc "whatif --html exits 0"
# self-contained: no external resources (no http(s) URLs apart from the SVG
# namespace, no <link>, no script src)
ext=$(grep -oE '(src|href)="[^"#]+' "$TMP"/*.html | wc -l)
is "$ext" 0 "no external src/href in the three pages"

chrome() { # chrome OUT-PREFIX PAGE ARGS...: stdout to OUT.dom, stderr to OUT.err
    out=$1 page=$2
    shift 2
    prof=$(mktemp -d "$TMP/chrome.XXXXXX")
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --enable-logging=stderr --v=0 "$@" "file://$page" \
        >"$out.dom" 2>"$out.err"
}

# chart_ok DOM ID: the element exists and holds drawn marks (paths or rects
# beyond the frame)
chart_marks() {
    awk -v id="$2" 'index($0, "id=\"" id "\"") { on = 1 } on { print } on && /<\/svg>|<\/table>|<\/p>/ { exit }' \
        "$1" | grep -oE '<path class="series"|<rect class="(bar|window|cell)"|<tr>|Verdict:' | wc -l
}

check_page() { # check_page NAME CHART-IDS...
    name=$1
    shift
    chrome "$TMP/$name" "$TMP/$name.html" --dump-dom
    ok $? "$name: chromium loads the page"
    like "$(cat "$TMP/$name.dom")" 'data-ready="1"' "$name: the page script ran to the end"
    errs=$(grep -c 'CONSOLE' "$TMP/$name.err")
    is "$errs" 0 "$name: no console messages or errors"
    for id in "$@"; do
        n=$(chart_marks "$TMP/$name.dom" "$id")
        if [ "$n" -gt 0 ]; then ok 0 "$name: $id present with $n marks"
        else ok 1 "$name: $id present and non-empty"; fi
    done
    chrome "$TMP/$name-shot" "$TMP/$name.html" --screenshot="$ART/$V-$name.png" \
        --window-size=1000,4200 --hide-scrollbars
    size=$(wc -c <"$ART/$V-$name.png" 2>/dev/null || echo 0)
    if [ "$size" -gt 20000 ]; then ok 0 "$name: screenshot kept ($size bytes)"
    else ok 1 "$name: screenshot kept"; fi
}

if [ -z "$CHROME" ]; then
    i=4
    while [ $i -lt 33 ]; do i=$((i + 1)); echo "ok $i # skip chromium not installed"; done
    exit 0
fi
RUNCHARTS="chart-util chart-sk chart-cdf chart-heatmap chart-reasons"
check_page sim $RUNCHARTS
check_page compare table-compare chart-compare-cdf chart-compare-reasons $RUNCHARTS
check_page whatif table-whatif verdict chart-whatif-cdf chart-util
