#!/usr/bin/env bash
# The browser test (docs/charts.md): makes tpnet's report and every --svg
# chart from the example data, checks each SVG (and the report) is
# well-formed XML with xmllint's parser, fetches nothing, renders each in
# headless Chromium to a PNG with no console messages, and checks the PNGs
# are not blank. The PNGs stay in OUT_DIR as artifacts to look at.
#
# Usage: render-check.sh TPNET PNG_CHECK SOURCE_DIR OUT_DIR
set -euo pipefail

tpnet=$1
png_check=$2
src=$3
out=$4

for tool in chromium xmllint; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "render-check: $tool is not installed; scripts/install-deps.sh installs it" >&2
    exit 1
  fi
done

rm -rf "$out"
mkdir -p "$out"
cd "$src"

run() {
  echo "+ tpnet $*"
  "$tpnet" "$@" >"$out/last-stdout.txt" 2>"$out/last-stderr.txt" || {
    echo "render-check: tpnet $* failed:" >&2
    cat "$out/last-stderr.txt" >&2
    exit 1
  }
}

baseline=examples/data/glm53_tp8_200g.csv
run report --model glm-5.3 --nodes 16 --speeds 100G,200G --baseline "$baseline" \
  --out "$out/report.html"
run report --model glm-5.3 --nodes 16 --speeds 100G,200G --baseline "$baseline" \
  --sweep examples/data/qwen36_27b_sweep.csv --out "$out/report.md" --format markdown
run penalty --model glm-5.3 --tp 8 --from 200G --to 100G --baseline "$baseline" \
  --svg "$out/penalty.svg"
run compare --model glm-5.3 --tp 8,16 --baseline-tp 8 --baseline-ttft 6.36s \
  --baseline-prompt 8k --svg "$out/compare.svg"
run capacity --sweep examples/data/qwen36_27b_sweep.csv --fleet 4 --svg "$out/capacity.svg"
run memory --model glm-5.3 --tp 8 --svg "$out/memory.svg"
run predict --model glm-5.3 --tp 8 --links 200G,emulated-100G --spec-tokens 4 \
  --accepted-tokens 2.5 --long-prefill-token-threshold 2048 --max-num-seqs 8 \
  --baseline "$baseline" --svg "$out/predict.svg"
run traffic --samples examples/traffic/counters_synthetic.csv \
  --requests examples/traffic/requests_synthetic.csv --svg "$out/traffic.svg"

failed=0
pages=("$out"/*.svg "$out/report.html")
for page in "${pages[@]}"; do
  # Well-formed: the XML parser, not a pattern. The report is XHTML-clean.
  if ! xmllint --noout --nonet "$page"; then
    echo "FAIL $page: not well-formed XML" >&2
    failed=1
    continue
  fi
  # Self-contained: nothing to fetch (the only URLs are namespace names).
  if grep -Eo '(href|src)="[^"#][^"]*"|url\((https?:|//)[^)]*\)|@import' "$page" | head -1 | grep -q .; then
    echo "FAIL $page: refers to an outside file or URL" >&2
    failed=1
  fi
  name=$(basename "$page")
  png="$out/${name%.*}-${name##*.}.png"
  height=6000
  if [[ $page == *.svg ]]; then
    height=$(xmllint --xpath 'string(/*[local-name()="svg"]/@height)' "$page")
  fi
  profile=$(mktemp -d)
  log="$out/${name}.chromium.log"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$profile" --enable-logging=stderr --v=0 \
    --window-size="800,${height%.*}" --screenshot="$png" "file://$page" >"$log" 2>&1 || {
    echo "FAIL $page: chromium exited with an error; its log: $log" >&2
    failed=1
  }
  rm -rf "$profile"
  if grep -q ':CONSOLE' "$log"; then
    echo "FAIL $page: console messages:" >&2
    grep ':CONSOLE' "$log" >&2
    failed=1
  fi
  if [[ ! -s $png ]]; then
    echo "FAIL $page: no screenshot" >&2
    failed=1
    continue
  fi
  "$png_check" "$png" || failed=1
done
# The design review's sections as Chromium lays the page out (issue 29):
# what the DOM holds after rendering, not the file's bytes.
profile=$(mktemp -d)
dom=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$profile" --dump-dom "file://$out/report.html" 2>/dev/null) || true
rm -rf "$profile"
for text in "Decode speed of one request: at most" "KV cache at TP" "NCCL_MAX_NCHANNELS=" \
  "<th>weights/node</th>"; do
  if ! grep -qF "$text" <<<"$dom"; then
    echo "FAIL report.html: the rendered page has no '$text'" >&2
    failed=1
  fi
done
exit "$failed"
