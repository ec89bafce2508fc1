"""What grade.py prints fits the terminal: lines wrapped at words to its width
(shutil.get_terminal_size: the COLUMNS variable, the terminal, else 80), or cut after a word with
"…"; never cut inside a word (a single word wider than the line is left whole). And one progress
line that rewrites itself on a terminal (elsewhere, a line at most every TICK_S seconds), said
again at least every TICK_S seconds while nothing moves, and ticking() for a step without lines of
its own: a student never waits 10 s without a line.
"""
import shutil
import sys
import threading
import time

ELLIPSIS = "…"
TICK_S = 8
MIN_WIDTH = 40


def width():
    return max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def wrap(text, columns=None, indent="", hanging="  ", most=None):
    """`text` as lines of at most `columns` characters (the terminal's), broken between words:
    the first line starts with `indent`, the others with `indent + hanging`. With `most`, at most
    that many lines, the last one cut after a word with an ellipsis where the text goes on."""
    columns = columns or width()
    words, lines, line = text.split(), [], indent
    for word in words:
        start = line in (indent, indent + hanging)
        if not start and len(line) + 1 + len(word) > columns:
            lines.append(line)
            line = indent + hanging + word
        else:
            line += word if start else " " + word
    if line.strip() or not lines:
        lines.append(line)
    if most and len(lines) > most:
        last = lines[most - 1]
        while len(last) + len(ELLIPSIS) > columns and " " in last.strip():
            last = last[:last.rstrip().rfind(" ")]
        lines = lines[:most - 1] + [last.rstrip(" ,;:—-") + ELLIPSIS]
    return lines


def cut(text, columns=None):
    """`text` in one line of at most `columns` characters: cut after the last whole word that
    fits, with an ellipsis; a first word wider than the line is kept whole."""
    columns = columns or width()
    if len(text) <= columns:
        return text
    lead = len(text) - len(text.lstrip())
    at = text.rfind(" ", lead, columns)
    if at <= lead:
        end = text.find(" ", lead)
        return text if end < 0 else text[:end] + ELLIPSIS
    return text[:at].rstrip(" ,;:—-") + ELLIPSIS


def say(text="", indent="", hanging="  ", most=None, stream=None):
    """Prints `text` wrapped to the terminal's width (each of its own lines on their own)."""
    stream = stream or sys.stdout
    for paragraph in text.split("\n") or [""]:
        lead = paragraph[:len(paragraph) - len(paragraph.lstrip())]
        for line in wrap(paragraph, None, indent + lead, hanging, most) if paragraph.strip() else [""]:
            print(line, file=stream)
    stream.flush()


def ticking(what, work, every_s=TICK_S, write=None):
    """Runs work() and prints "  WHAT: N s ..." every `every_s` seconds until it returns; returns
    its value (an exception it raises is raised here)."""
    write = write or (lambda line: print(line, flush=True))
    done, value = threading.Event(), {}

    def target():
        try:
            value["result"] = work()
        except BaseException as error:  # noqa: BLE001 - raised again below, in the caller's thread
            value["error"] = error
        finally:
            done.set()
    started = time.monotonic()
    threading.Thread(target=target, daemon=True).start()
    while not done.wait(every_s):
        write(f"  {what}: {time.monotonic() - started:.0f} s ...")
    if "error" in value:
        raise value["error"]
    return value.get("result")


class Progress:
    """One progress line. update(text) gives its state; on a terminal the line is rewritten at
    once, elsewhere printed when TICK_S seconds passed since the last one (and the first time);
    a ticker says it again, with the seconds so far, once TICK_S seconds pass without a line;
    done(text) ends it with a last line."""

    def __init__(self, stream=None, every_s=TICK_S, clock=time.monotonic, terminal=None):
        self.stream = stream or sys.stdout
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.every_s, self.clock = every_s, clock
        self.started = self.last = clock()
        self.text, self.shown, self.lines = "", False, 0
        self.lock, self.stopped = threading.Lock(), threading.Event()
        self.ticker = None

    def line(self):
        return f"{self.text} ({self.clock() - self.started:.0f} s)"

    def _show(self, text, final=False):
        if self.terminal:
            self.stream.write("\r" + cut(text, width() - 1) + "\x1b[K" + ("\n" if final else ""))
        else:
            self.stream.write(cut(text, width()) + "\n")
        self.stream.flush()
        self.last, self.shown = self.clock(), True
        self.lines += 1

    def update(self, text):
        with self.lock:
            self.text = text
            if self.terminal or not self.shown or self.clock() - self.last >= self.every_s:
                self._show(self.line())

    def start(self, text):
        """Shows `text` and starts the ticker."""
        self.update(text)
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()
        return self

    def _tick(self):
        while not self.stopped.wait(1):
            self.tick()

    def tick(self):
        """Says the line again when every_s seconds passed without one."""
        with self.lock:
            if not self.stopped.is_set() and self.clock() - self.last >= self.every_s:
                self._show(self.line())

    def done(self, text):
        self.stopped.set()
        with self.lock:
            self._show(text, final=True)
