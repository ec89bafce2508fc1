#!/usr/bin/env python3
"""A class page as a browser shows it: headless Chromium loads a copy of index.html with a small
script that waits for the page to load, then reports every image that did not load, every element
that reaches past the window's width, and the "teach next" table's rows; then a screenshot of the
whole page. Used by test_class_page_browser.py; by hand, on any report:

  python3 grader/batch/tests/browser_check.py REPORT_DIR SCREENSHOT.png [--width 1280]

Exit status: 0 the page passed, 1 it did not (what failed is printed), 77 no Chromium here."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PROBE = "class-page-probe"
SCRIPT = """<script>
window.addEventListener('load', () => {
  const width = window.innerWidth, found = {width, images: [], wide: [], teach_rows: -1};
  for (const img of document.images) {
    found.images.push({src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0});
  }
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > width + 1) {
      found.wide.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' right ' + Math.round(box.right));
    }
  }
  found.scroll_width = document.documentElement.scrollWidth;
  found.height = document.documentElement.scrollHeight;
  const teach = document.querySelector('table.teach-next');
  if (teach) found.teach_rows = teach.querySelectorAll('tr').length - 1;
  const out = document.createElement('pre');
  out.id = '%s'; out.textContent = JSON.stringify(found);
  out.style.display = 'none';
  document.body.appendChild(out);
});
</script>""" % PROBE


def browser():
    """The Chromium found on PATH, or None."""
    return next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)


def _chromium(program, *options, timeout=180):
    command = [program, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--allow-file-access-from-files", "--virtual-time-budget=15000", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def probe(program, index_html, width):
    """What the script found on the page, loaded in a window `width` pixels wide."""
    folder = os.path.dirname(os.path.abspath(index_html))
    copy = os.path.join(folder, f".{PROBE}.html")  # beside it: its images load from plots/
    with open(index_html, encoding="utf-8") as f:
        page = f.read()
    with open(copy, "w", encoding="utf-8") as f:
        f.write(page + SCRIPT)
    try:
        done = _chromium(program, f"--window-size={width},1000", "--dump-dom", "file://" + copy)
    finally:
        os.remove(copy)
    found = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % PROBE, done.stdout, re.S)
    if not found:
        raise RuntimeError(f"the page's script reported nothing (exit {done.returncode}):\n"
                           + done.stderr[-2000:])
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                      .replace("&lt;", "<").replace("&gt;", ">"))


def problems(found):
    """What is wrong with a probed page, one line each ([] when nothing)."""
    said = [f"image not loaded: {i['src']}" for i in found["images"] if not i["loaded"]]
    if found["scroll_width"] > found["width"]:
        said.append(f"the page is {found['scroll_width']} px wide in a {found['width']} px window")
    said += [f"reaches past the window: {w}" for w in found["wide"][:10]]
    if found["teach_rows"] < 1:
        said.append("no \"teach next\" table with a row")
    if not found["images"]:
        said.append("no image on the page")
    return said


def screenshot(program, index_html, path, width, height):
    done = _chromium(program, f"--window-size={width},{max(600, min(height, 16000))}",
                     f"--screenshot={os.path.abspath(path)}", "file://" + os.path.abspath(index_html))
    if done.returncode != 0 or not os.path.isfile(path):
        raise RuntimeError(f"no screenshot (exit {done.returncode}): {done.stderr[-1000:]}")


def check(report_dir, shot, width=1280):
    """(problems, what the probe found); the screenshot written to `shot`."""
    program = browser()
    index = os.path.join(report_dir, "index.html")
    found = probe(program, index, width)
    screenshot(program, index, shot, width, found["height"])
    return problems(found), found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report")
    parser.add_argument("screenshot")
    parser.add_argument("--width", type=int, default=1280)
    options = parser.parse_args(argv)
    if browser() is None:
        print(f"no Chromium here ({', '.join(BROWSERS)}): apt-get install chromium")
        return 77
    said, found = check(options.report, options.screenshot, options.width)
    print(f"{len(found['images'])} image(s), page {found['scroll_width']} x {found['height']} px, "
          f"{found['teach_rows']} teach-next row(s); screenshot {options.screenshot}")
    for line in said:
        print("  " + line)
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main())
