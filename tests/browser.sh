#!/bin/sh
# tests/browser.sh - the study report as a person sees it: headless
# Chromium opens report.html of a study (the fixture run in every part) at
# 1400x900 and checks that every figure loads, every contents link lands
# on a heading, the findings table is whole on the first screen, and the
# page stays self-contained and under 1.5 MB; it keeps a screenshot
# (tests/browser.png).  Skips, saying why, without Chromium or the
# analysis's Python packages.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
py=${PYTHON:-python3}
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }
"$py" -c 'import numpy, matplotlib' 2>/dev/null ||
    { echo "SKIP: python packages missing (pip install -r requirements.txt)"; exit 77; }

study=$tmpdir/study
for part in ceilings article sweep blocks; do
	mkdir -p "$study/$part"
	cp "$top_srcdir"/tests/fixtures/h100-fixture/* "$study/$part/"
done
PYTHONPATH=$top_srcdir MPLBACKEND=Agg "$py" -m analysis report "$study" \
    >"$tmpdir/render.log" 2>&1 || fail "rendering failed: $(tail -5 "$tmpdir/render.log")"
page=$study/report/report.html
size=$(wc -c <"$page")
[ "$size" -le 1572864 ] || fail "report.html is $size bytes, over 1.5 MB"
grep -q -E '(src|href)="https?:' "$page" && fail "report.html fetches from the network"

# The checks run in the page; --dump-dom returns what they wrote.
sed 's|</body>|<script>\
window.addEventListener("load", function () {\
  var imgs = Array.from(document.images);\
  var bad = imgs.filter(function (i) { return !(i.complete \&\& i.naturalWidth > 0); });\
  var links = Array.from(document.querySelectorAll("a[href^=\\"#\\"]"));\
  var lost = links.filter(function (a) { return !document.getElementById(a.getAttribute("href").slice(1)); });\
  var t = document.querySelector("h2 + table").getBoundingClientRect();\
  var out = document.createElement("pre");\
  out.id = "browser-check";\
  out.textContent = "images=" + imgs.length + " broken=" + bad.length +\
    " anchors=" + links.length + " lost=" + lost.length +\
    " first=" + document.querySelector("h2").id + " table_bottom=" + Math.round(t.bottom);\
  document.body.appendChild(out);\
});\
</script></body>|' "$page" >"$study/report/check.html"
flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 --virtual-time-budget=5000"
# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --dump-dom "file://$study/report/check.html" \
    >"$tmpdir/dom.html" 2>"$tmpdir/chromium.log" ||
    fail "chromium failed: $(tail -5 "$tmpdir/chromium.log")"
# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --screenshot="$tmpdir/screen.png" \
    "file://$page" >/dev/null 2>&1 && cp "$tmpdir/screen.png" tests/browser.png
result=$(sed -n 's|.*<pre id="browser-check">\([^<]*\)</pre>.*|\1|p' "$tmpdir/dom.html")
[ -n "$result" ] || fail "the page's checks did not run: $(head -c 300 "$tmpdir/dom.html")"
echo "browser: $result, $size bytes"
for want in "broken=0" "lost=0" "first=findings"; do
	case " $result " in *" $want "*) ;; *) fail "expected $want: $result" ;; esac
done
case " $result " in *" images=0 "*) fail "no figure on the page: $result" ;; esac
bottom=${result##*table_bottom=}
[ "$bottom" -le 900 ] || fail "the findings table ends at $bottom px, below the first screen (900 px)"
echo "browser: ok (screenshot tests/browser.png)"
