#!/usr/bin/env bash
# report.html as a person sees it: the page holds its two mid-slice pictures inline (PNG data
# URIs), and headless Chromium renders it to a screenshot that is more than a blank page.
# Exit 77 (skipped) when no Chromium is installed, after the checks that need none.
# usage: render_report.sh REPORT_HTML SCREENSHOT_PNG
set -euo pipefail
html=$1
shot=$2
fail() { echo "render_report: $*" >&2; exit 1; }
[[ -s $html ]] || fail "$html is missing or empty"
images=$(grep -o 'src="data:image/png;base64,[A-Za-z0-9+/=]\{100,\}"' "$html" | wc -l)
((images == 2)) || fail "expected the 2 mid-slice pictures in $html, found $images"
grep -q 'id="slice-pores"' "$html" || fail "no pore-space figure"
grep -q 'id="slice-velocity"' "$html" || fail "no velocity figure"
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then browser=$b; break; fi
done
if [[ -z $browser ]]; then
  echo "render_report: no Chromium installed; the page checks passed, rendering skipped"
  exit 77
fi
rm -f "$shot"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
  --window-size=1200,2200 --screenshot="$shot" "file://$(realpath "$html")" >/dev/null 2>&1 ||
  fail "$browser failed to render $html"
[[ -s $shot ]] || fail "no screenshot written"
[[ $(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "the screenshot is not a PNG"
# a blank 1200 x 2200 page compresses to about 10 kB; the sample's page (text, chart, two
# pictures) to about 180 kB
size=$(stat -c %s "$shot")
((size > 60000)) || fail "the screenshot is $size bytes: the page rendered (nearly) blank"
echo "render_report: $html rendered by $browser to $shot ($size bytes)"
