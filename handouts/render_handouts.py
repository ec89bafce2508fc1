#!/usr/bin/env python3
"""Checks the handouts' figures and links, renders the handouts to HTML, screenshots the pages.

    python3 handouts/render_handouts.py --check               references resolve, figures decode and are shown,
                                                              no two questions share a paragraph
    python3 handouts/render_handouts.py OUT                   OUT/NAME.html for every handouts/*.md
    python3 handouts/render_handouts.py OUT --screenshot DIR  and DIR/NAME.png, full-page, by a headless Chromium

--check needs the standard library only (a meson test, suite handouts); it prints each problem as
FILE:LINE: what is wrong, and exits with 1. Rendering checks first and stops on a problem. It needs
markdown-it-py (CommonMark and GitHub's tables, as GitHub shows the handouts): where it is missing it
is installed into .venv from requirements-docs.txt (once) and the command runs again there.
--screenshot needs chromium, chromium-browser or google-chrome on PATH (or --browser); without one it
exits with 1 (Debian/Ubuntu: apt-get install chromium). It also says at what size each figure is
shown and which code blocks or tables are wider than the page, and fails on a figure that does not load.
"""
import argparse
import base64
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import venv
import xml.etree.ElementTree as ElementTree
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_PYTHON = ROOT / ".venv" / "bin" / "python3"
REQUIREMENTS = ROOT / "requirements-docs.txt"
# Image files that count as figures (shown, or reported when no handout shows them); only PNG and SVG pass.
MEDIA_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}
# The largest figure is about 65 KB. Past this a figure slows every page and clone that carries it;
# a 672 KB histogram PNG once stored uncompressed would have been stopped here.
MAX_FIGURE_BYTES = 400 * 1024
MAX_PNG_SIDE = 4096  # pixels: the sweep plots are at most 1540 wide; more than this is a mistake
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PAGE_WIDTH = 1000  # px: about GitHub's width for a Markdown file, so figures show at the size readers see
SMALL_SCALE = 0.75  # a figure shown smaller than this has text too small to read without zooming

# Reading Markdown (prose, links, question labels): markdown_prose.py beside this script.
from markdown_prose import local_path, merged_questions, references  # noqa: E402


# ---- Figures: decoded with zlib, struct and an XML parser ------------------------------------------
PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # by colour type: grey, RGB, palette, grey+alpha, RGBA


def png_problems(data, max_side=MAX_PNG_SIDE):
    """What is wrong with a PNG file's bytes: what a browser shows as a broken image, or a bloated one."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ["is not a PNG (its first 8 bytes are not the PNG signature)"]
    position, kinds, chunks = 8, [], {b"IHDR": b"", b"IDAT": b""}
    while position < len(data) and b"IEND" not in kinds:
        length, kind = struct.unpack(">I4s", data[position:position + 8].ljust(8, b"\0"))
        body, crc = data[position + 8:position + 8 + length], data[position + 8 + length:position + 12 + length]
        if len(body) < length or len(crc) < 4:
            return [f"is truncated: chunk {kind!r} at byte {position} is cut off"]
        if zlib.crc32(kind + body) != struct.unpack(">I", crc)[0]:
            return [f"is damaged: chunk {kind!r} at byte {position} fails its CRC"]
        kinds.append(kind)
        chunks[kind] = chunks.get(kind, b"") + body
        position += 12 + length
    if kinds[:1] != [b"IHDR"] or len(chunks[b"IHDR"]) != 13 or kinds[-1] != b"IEND" or not chunks[b"IDAT"]:
        return ["is damaged or truncated: it needs an IHDR chunk first, image data (IDAT) and IEND last"]
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if colour not in PNG_CHANNELS or not width or not height:
        return [f"is damaged: IHDR says {width}×{height} pixels, colour type {colour}"]
    problems = [f"is {width}×{height} pixels, more than {max_side} on a side"] \
        if max_side and max(width, height) > max_side else []
    # The first deflate block's type is in bits 1-2 of the byte after zlib's 2-byte header; type 0 is
    # a 'stored' block: the pixels copied as they are, what a hand-written PNG writer emits.
    if len(chunks[b"IDAT"]) > 2 and (chunks[b"IDAT"][2] >> 1) & 3 == 0:
        problems.append("is stored uncompressed (deflate 'stored' blocks): write it through zlib.compress at "
                        "level 6-9 (matplotlib's savefig does)")
    try:
        pixels = zlib.decompress(chunks[b"IDAT"])
    except zlib.error as error:
        return problems + [f"is damaged: its image data does not decompress ({error})"]
    expected = height * (1 + (width * PNG_CHANNELS[colour] * depth + 7) // 8)
    if not interlace and len(pixels) != expected:
        problems.append(f"is damaged: {len(pixels)} bytes of pixels where its IHDR needs {expected}")
    return problems


def svg_problems(data):
    """What is wrong with an SVG file shown as an <img>: browsers show nothing for any of these."""
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        return [f"is not well-formed XML ({error})"]
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        return [f"has root element {root.tag}, not <svg xmlns=\"http://www.w3.org/2000/svg\">"]
    if "viewBox" not in root.attrib and not {"width", "height"} <= set(root.attrib):
        return ["has neither a viewBox nor a width and a height"]
    outside = [value for element in root.iter() for name, value in element.attrib.items()
               if name.endswith("href") and not value.startswith(("#", "data:"))]
    return [f"refers to {outside[0]}, which a browser does not load for an SVG shown as an image"] if outside else []


def figure_problems(path):
    """What is wrong with a figure file: too large, a type this does not decode, or what its decoder finds."""
    data, suffix = path.read_bytes(), path.suffix.lower()
    problems = [f"is {len(data) // 1024} KB, more than the {MAX_FIGURE_BYTES // 1024} KB a figure may take"] \
        if len(data) > MAX_FIGURE_BYTES else []
    decode = {".png": png_problems, ".svg": svg_problems}.get(suffix)
    return problems + (decode(data) if decode else [f"is a {suffix} file: figures are PNG or SVG, which this decodes"])


# ---- --check ---------------------------------------------------------------------------------------
def show(path):
    """A path as the reader typed it: relative to the current folder where it is inside it."""
    relative = os.path.relpath(path)
    return Path(path).as_posix() if relative.startswith("..") else relative


def check(handouts_dir):
    """Problems as 'FILE:LINE: text' strings, and a one-line summary of what was checked."""
    handouts = sorted(handouts_dir.glob("*.md"))
    problems, shown, link_count = [], set(), 0
    for handout in handouts:
        text = handout.read_text(encoding="utf-8")
        problems += [f"{show(handout)}:{line}: question Q{second} renders in the paragraph of Q{first}: put a "
                     f"blank line before its **Q{second}" for line, first, second in merged_questions(text)]
        for line, target, is_image in references(text):
            link_count += 1
            where, kind = f"{show(handout)}:{line}", "image" if is_image else "link"
            path_text = local_path(target)
            if not path_text:
                continue  # a web address (not checked offline) or an anchor in this page
            path = (handout.parent / path_text).resolve()
            if not path.exists():
                problems.append(f"{where}: {kind} {target}: no such file {show(path)}")
                continue
            if path.suffix.lower() in MEDIA_TYPES and path.is_file():
                if path not in shown:
                    problems += [f"{where}: {kind} {show(path)} {problem}" for problem in figure_problems(path)]
                shown.add(path)
            elif is_image:
                problems.append(f"{where}: image {target} is not an image file")
    figures = sorted(p.resolve() for p in (handouts_dir / "figures").rglob("*") if p.suffix.lower() in MEDIA_TYPES)
    problems += [f"{show(figure)}: shown by no handout: show it where its topic is taught, or delete it"
                 for figure in figures if figure not in shown]
    summary = (f"{len(handouts)} handouts, {link_count} links and images, {len(figures)} figure files in "
               f"{show(handouts_dir / 'figures')}: every reference resolves, every figure decodes and is shown, "
               "every question is a paragraph of its own")
    return problems, summary


# ---- Rendering ---------------------------------------------------------------------------------------
def markdown_renderer(install):
    """markdown-it-py's renderer; when missing, install requirements-docs.txt into .venv and run again."""
    try:
        from markdown_it import MarkdownIt
        # CommonMark as GitHub reads it: raw HTML allowed, GitHub's pipe tables and ~~strikethrough~~.
        return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    except ImportError:
        pass
    how = f"`{Path(sys.executable).name} -m pip install -r {REQUIREMENTS.relative_to(ROOT)}`"
    if os.environ.get("RENDER_HANDOUTS_SET_UP") == "1":  # already run again in .venv: do not loop
        sys.exit(f"error: markdown-it-py still cannot be imported in {sys.executable}: {how}")
    ready = VENV_PYTHON.exists() and not subprocess.run([VENV_PYTHON, "-c", "import markdown_it"],
                                                        capture_output=True).returncode
    if not ready and not install:
        sys.exit(f"error: markdown-it-py is installed neither for {sys.executable} nor in .venv: {how} "
                 "(or run without --no-install; --check does not need it)")
    if not ready:
        print(f"Installing markdown-it-py into .venv from {REQUIREMENTS.name} (once) ...", flush=True)
        try:
            if not VENV_PYTHON.exists():
                venv.create(VENV_PYTHON.parent.parent, with_pip=True)
            subprocess.run([str(VENV_PYTHON), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)], check=True)
        except Exception as error:  # ensurepip missing (Debian's python3-venv), no network, a read-only folder
            sys.exit(f"error: could not install markdown-it-py into .venv ({error}); install it yourself: {how}")
    os.execve(VENV_PYTHON, [str(VENV_PYTHON), str(Path(__file__).resolve())] + sys.argv[1:],
              dict(os.environ, RENDER_HANDOUTS_SET_UP="1"))


STYLE = """
body { margin: 0; background: #fff; color: #1f2328; font: 16px/1.5 -apple-system, "Segoe UI", "Noto Sans",
       Helvetica, Arial, "DejaVu Sans", sans-serif; }
article { box-sizing: border-box; max-width: 980px; margin: 0 auto; padding: 32px 45px; }
h1, h2, h3, h4 { margin: 24px 0 16px; line-height: 1.25; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
p, ul, ol, table, pre, blockquote { margin: 0 0 16px; }
img { max-width: 100%; box-sizing: content-box; background: #fff; }
code, pre { font: 85%/1.45 ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
code { background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
pre code { background: none; padding: 0; font-size: 100%; }
pre { background: #f6f8fa; padding: 16px; overflow: auto; border-radius: 6px; }
table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }  tr:nth-child(2n) { background: #f6f8fa; }
blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
"""
# For --screenshot, read back from the DOM once loaded: the page's full height, each figure's natural and
# shown size, the code blocks and tables wider than the page (they scroll: a reader and a screenshot see them cut).
MEASURE = """<script>addEventListener("load", () => {
  const wide = [...document.querySelectorAll("pre, table")].filter(e => e.scrollWidth > e.clientWidth + 1);
  document.body.dataset.layout = JSON.stringify({height: document.documentElement.scrollHeight,
    figures: [...document.images].map(i => [i.dataset.figure || i.alt, i.naturalWidth, i.naturalHeight,
                                             i.width, i.height]),
    wide: wide.map(e => e.tagName.toLowerCase() + ": " + e.innerText.split("\\n").reduce(
      (a, b) => b.length > a.length ? b : a, "").slice(0, 70))});
});</script>"""


def render_page(renderer, handout, handouts_dir):
    """A handout as one standalone HTML page: its figures inlined as data: URLs, so it can be moved."""
    body = renderer.render(handout.read_text(encoding="utf-8"))

    def inline_image(match):
        path_text = local_path(html.unescape(match.group(3)))
        path = (handout.parent / path_text).resolve() if path_text else None
        if not path or path.suffix.lower() not in MEDIA_TYPES or not path.is_file():
            return match.group(0)
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return (f'{match.group(1)}data-figure="{html.escape(show(path))}" src={match.group(2)}'
                f'data:{MEDIA_TYPES[path.suffix.lower()]};base64,{data}{match.group(2)}')

    def local_link(match):
        target = html.unescape(match.group(3))
        path_text, fragment = local_path(target), target.partition("#")[2]
        if not path_text:
            return match.group(0)  # a web address, or an anchor in this page
        path = (handout.parent / path_text).resolve()
        # Another handout: its page beside this one; any other file of the repository: where it is.
        new = path.with_suffix(".html").name if path.suffix == ".md" and path.parent == handouts_dir.resolve() \
            else path.as_uri()
        new += f"#{fragment}" if fragment else ""
        return f"{match.group(1)}{match.group(2)}{html.escape(new)}{match.group(2)}"

    body = re.sub(r"(<img\b[^>]*?)\bsrc=([\"'])(.*?)\2", inline_image, body, flags=re.S)
    body = re.sub(r"(<a\b[^>]*?\bhref=)([\"'])(.*?)\2", local_link, body, flags=re.S)
    heading = re.search(r"<h1>(.*?)</h1>", body, re.S)
    title = re.sub(r"<[^>]+>", "", heading.group(1)) if heading else handout.stem
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>{title}</title>\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{STYLE}</style></head>\n'
            f'<body><article class="markdown-body">\n{body}</article>\n{MEASURE}\n</body></html>\n')


# ---- --screenshot --------------------------------------------------------------------------------
def find_browser(named):
    found = [shutil.which(name) for name in ([named] if named else BROWSERS)]
    return next((path for path in found if path), None)


def run_browser(browser, profile, width, height, *arguments):
    # --no-sandbox: Chromium will not start as root (containers, CI) with its sandbox, and it opens only
    # the pages written here. A profile of its own: no first-run pages, no clash with an open browser.
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               "--disable-extensions", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
               f"--window-size={width},{height}", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def screenshot(browser, page, png, width):
    """A full-page PNG of an HTML page (its height read from the DOM first, then a window that tall),
    and the page's layout as MEASURE recorded it."""
    with tempfile.TemporaryDirectory(prefix="render-handouts-") as profile:
        dom = run_browser(browser, profile, width, 800, "--dump-dom", page.resolve().as_uri())
        found = re.search(r'data-layout="([^"]*)"', dom.stdout)
        if dom.returncode or not found:
            sys.exit(f"error: {browser} could not lay out {show(page)} (exit {dom.returncode}):\n{dom.stderr[-2000:]}")
        layout = json.loads(html.unescape(found.group(1)))
        shot = run_browser(browser, profile, width, layout["height"], f"--screenshot={png.resolve()}",
                           page.resolve().as_uri())
    if shot.returncode or not png.is_file() or png_problems(png.read_bytes(), max_side=None):
        sys.exit(f"error: {browser} made no readable screenshot of {show(page)} (exit {shot.returncode}):\n"
                 f"{shot.stderr[-2000:]}")
    return layout


def report_layout(layout):
    """Prints each figure's shown size and each too-wide block; returns the figures that did not load."""
    broken = []
    for name, natural_width, natural_height, shown_width, shown_height in layout["figures"]:
        if not natural_width:
            broken.append(name)
            print(f"    figure {name}: DID NOT LOAD in the browser")
            continue
        scale = shown_width / natural_width
        small = ": its text is shown smaller than drawn, hard to read" if scale < SMALL_SCALE else ""
        print(f"    figure {name}: {natural_width}×{natural_height} px, shown at {shown_width}×{shown_height} "
              f"({scale:.0%}){small}")
    for block in layout["wide"]:
        print(f"    wider than the page (it scrolls; the screenshot cuts it): {block}")
    return broken


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="\n".join(__doc__.splitlines()[1:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=Path, help="folder for the HTML pages")
    parser.add_argument("--check", action="store_true", help="check references and figures only")
    parser.add_argument("--screenshot", type=Path, metavar="DIR", help="a full-page PNG of each page into DIR")
    parser.add_argument("--width", type=int, default=PAGE_WIDTH, help=f"browser window width (default {PAGE_WIDTH})")
    parser.add_argument("--browser", help=f"the Chromium binary (default: the first of {', '.join(BROWSERS)} on PATH)")
    parser.add_argument("--handouts", type=Path, default=Path(__file__).resolve().parent,
                        help="the folder of the handouts (default: this script's)")
    parser.add_argument("--no-install", action="store_true", help="never install markdown-it-py into .venv")
    args = parser.parse_args()
    if not args.check and not args.out:
        parser.error("give an output folder for the HTML pages, or --check")
    browser = find_browser(args.browser) if args.screenshot and not args.check else None
    if args.screenshot and not args.check and not browser:  # said before any work: a skipped look is no look
        sys.exit(f"error: no headless browser: {args.browser or ', '.join(BROWSERS)} not found on PATH; install one "
                 "(Debian/Ubuntu: apt-get install chromium) or name it with --browser. No screenshots were taken.")
    # Rendering may run this script again in .venv (markdown_renderer): import it before checking once.
    renderer = None if args.check else markdown_renderer(install=not args.no_install)
    problems, summary = check(args.handouts)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(f"{len(problems)} problem{'s' * (len(problems) > 1)} in the handouts' references, figures and paragraphs"
                 + ("" if args.check else "; nothing rendered"))
    print(summary)
    if args.check:
        return
    args.out.mkdir(parents=True, exist_ok=True)
    pages = [args.out / handout.with_suffix(".html").name for handout in sorted(args.handouts.glob("*.md"))]
    for page in pages:
        page.write_text(render_page(renderer, args.handouts / f"{page.stem}.md", args.handouts), encoding="utf-8")
    print(f"{len(pages)} pages in {show(args.out)}")
    if not browser:
        return
    args.screenshot.mkdir(parents=True, exist_ok=True)
    broken = []
    for page in pages:
        png = args.screenshot / page.with_suffix(".png").name
        layout = screenshot(browser, page, png, args.width)
        print(f"  {show(png)}: {args.width}×{layout['height']} px")
        broken += [f"{page.stem}: {name}" for name in report_layout(layout)]
    if broken:
        sys.exit(f"error: figures that did not load in the browser: {'; '.join(broken)}")


if __name__ == "__main__":
    main()
