#!/usr/bin/env python3
"""A stand-in for a lab's test program, speaking the grader's results channel, for the runner's
tests: each test's name says what the "submission" does in it.

  Fake.PassN        passes                 Fake.Fail      fails with a message
  Fake.Crash        dies of SIGSEGV        Fake.Hang      sleeps forever
  Fake.Exit0        exit(0) mid-test       Fake.Sticky    fails with a sticky CUDA error, then
  Fake.Flood        prints 5 MB               (like a real process) fails every later test
  Fake.Forge        writes a forged "passed" verdict to every descriptor, then fails
  Fake.Skip         skipped                Fake.Stretch   passes and meets its stretch tier
  Fake.Throttled    a speed test that fails, timed on a throttled GPU, the first time it runs in
                    its folder (a marker file); then passes on a fair one
  Fake.NoStart      fails as the checker says when the runner never reached main()
Usage: fake_lab_program.py [--gtest_filter=A:B] [--gtest_list_tests]
"""
import json
import os
import signal
import sys
import time

ALL = ["Fake.NoStart", "Fake.Pass1", "Fake.Fail", "Fake.Crash", "Fake.Pass2", "Fake.Hang",
       "Fake.Exit0", "Fake.Sticky", "Fake.Pass3", "Fake.Flood", "Fake.Forge", "Fake.Skip",
       "Fake.Stretch", "Fake.Throttled"]


def channel():
    spec = os.environ.pop("GRADER_RESULTS_CHANNEL", None)
    if not spec:
        return None, None
    key_fd, out_fd = (int(x) for x in spec.split(","))
    key = b""
    while True:
        chunk = os.read(key_fd, 256)
        if not chunk:
            break
        key += chunk
    os.close(key_fd)
    return key.decode().strip(), out_fd


def main():
    args = sys.argv[1:]
    if "--gtest_list_tests" in args:
        print("[ grader   ] backend fake\nFake.")
        for name in ALL:
            print("  " + name.split(".")[1])
        return 0
    selected = ALL
    for arg in args:
        if arg.startswith("--gtest_filter="):
            selected = [n for n in ALL if n in arg.split("=", 1)[1].split(":")]
    key, out = channel()

    def send(event):
        if out is not None:
            os.write(out, (key + " " + json.dumps(event) + "\n").encode())

    send({"event": "hello", "backend": "fake", "device": "a fake device", "seed": 7})
    sticky = False
    failed = 0
    for name in selected:
        send({"event": "start", "test": name})
        status, message, tiers, metrics = "passed", "", [], {"time_ms": 1.5}
        behaviour = name.split(".")[1]
        if sticky:
            status, message = "failed", "CUDA error: an illegal memory access was encountered"
        elif behaviour == "Fail":
            status, message = "failed", "bin 3: expected 4, got 5"
        elif behaviour == "Crash":
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        elif behaviour == "Hang":
            time.sleep(3600)
        elif behaviour == "Exit0":
            print("[  PASSED  ] every test", flush=True)
            os._exit(0)
        elif behaviour == "Sticky":
            sticky = True
            status = "failed"
            message = ("an illegal memory access was encountered (cudaErrorIllegalAddress): "
                       "This error is sticky")
        elif behaviour == "Flood":
            chunk = "x" * 1023 + "\n"
            for _ in range(5 * 1024):
                sys.stdout.write(chunk)
            sys.stdout.flush()
        elif behaviour == "Forge":
            forged = json.dumps({"event": "end", "test": "Fake.Fail", "status": "passed"}) + "\n"
            for fd in range(3, 64):
                try:
                    os.write(fd, forged.encode())
                except OSError:
                    pass
            status, message = "failed", "forger"
        elif behaviour == "NoStart":
            status, message = "failed", ("lab01::f: the process running your code never started: "
                                         "it did not reach main() within 1 s")
        elif behaviour == "Skip":
            status, message = "skipped", "needs a GPU"
        elif behaviour == "Stretch":
            tiers = [{"name": "stretch", "met": True, "detail": "fast"}]
        elif behaviour == "Throttled":
            if not os.path.exists("throttled-once"):
                open("throttled-once", "w").close()
                status, message = "failed", "timed on a GPU throttled (hardware thermal slowdown) before the test"
                metrics = {"time_ms": 9.0, "unfair_timing_before": 1}
            else:
                metrics = {"time_ms": 1.5, "unfair_timing_before": 0}
        failed += status == "failed"
        send({"event": "end", "test": name, "status": status, "points": 2, "stretch_points": 1,
              "message": message, "metrics": metrics, "tiers": tiers})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
