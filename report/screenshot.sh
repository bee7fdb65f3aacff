#!/bin/sh
# screenshot.sh renders a report.html in headless Chromium and saves a PNG.
#
# Usage: report/screenshot.sh path/to/report.html [out.png] [width,height]
#
# Needs Chromium (Debian: apt-get install -y chromium). The browser runs with
# networking features off and a throw-away profile; the report is
# self-contained, so nothing is fetched. Default output: report.png beside
# the HTML file; default window 1200x2000 (make it taller for long reports).
# report.Screenshot does the same from Go (the tests use it).
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 report.html [out.png] [width,height]" >&2
	exit 2
fi
html=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-$(dirname "$html")/report.png}
size=${3:-1200,2000}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
	echo "$0: no chromium found (apt-get install -y chromium)" >&2
	exit 1
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
	--user-data-dir="$profile" --screenshot="$out" --window-size="$size" \
	"file://$html" >/dev/null 2>&1
echo "$out"
