"""Latency of the motion arcade under load (see scripts/arcade-latency): N phone–desktop pairs on
one server, each phone streaming one devicemotion sample per message at 60 Hz (open loop, as a
phone does) into its arcade room, each desktop watching the room.

For every sample the phone stamps `sentAt` (this machine's wall clock, ms) and the desktop side
notes when the room's message carrying it arrives: sample → desktop is the difference, on one
clock. This measures to the desktop's socket; a page draws it at its next animation frame
(up to 16.7 ms later at 60 Hz; the page shows that figure, `frameLatency`). The samples are a
phone turning slowly about all three axes, as Chromium rounds them (0.1 m/s², 0.1 °/s).
One JSON line per run: p50, p95, p99, max (ms), samples sent and delivered, server CPU share.

With --page, the first pair's desktop is the real arcade page in Debian's Chromium (headless,
Playwright), and the line also gives that page's own sample → drawn-frame figures (`page_*`):
the page notes Date.now() − sentAt at the animation frame after each sample arrives.
"""
import argparse, asyncio, json, math, os, statistics, subprocess, sys, tempfile, time, urllib.request

import websockets


def open_room(http):
    for attempt in range(60):
        request = urllib.request.Request(http + "/api/v1/rooms", data=b'{"purpose": "arcade"}', method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())["room"]["code"]
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(float(error.headers.get("Retry-After", "1")))
    raise RuntimeError("could not open a room")


def sample(t):
    """A phone turning slowly, as Chromium delivers it (m/s², °/s, rounded to 0.1)."""
    r = lambda v: round(v, 1)
    return {"t": t * 1000, "accelerationIncludingGravity": {"x": r(1.5 * math.sin(t)), "y": r(1.5 * math.cos(0.7 * t)), "z": r(9.6)},
            "rotationRate": {"alpha": r(20 * math.sin(1.3 * t)), "beta": r(15 * math.cos(t)), "gamma": r(10 * math.sin(0.5 * t))}}


class NoDesktop:
    """Stands in for the desktop socket when a browser page watches the room instead."""
    async def __aenter__(self): return self
    async def __aexit__(self, *exc): return False
    def __aiter__(self): return self
    async def __anext__(self): await asyncio.sleep(3600); raise StopAsyncIteration


async def pair(ws_base, code, seconds, warmup, hz, latencies, counts, page=False, source="127.0.0.1"):
    # Each pair's phone and desktop connect from their own loopback address (`source`): the
    # server admits at most 16 guest streams per address (docs/hardening.md), as a lecture hall's
    # phones would each have their own.
    local = {"local_addr": (source, 0)} if ws_base.startswith("ws://127.") else {}
    watcher = NoDesktop() if page else websockets.connect(f"{ws_base}/api/v1/rooms/{code}/events", ping_interval=None, compression=None, **local)
    async with watcher as desktop:
        async with websockets.connect(f"{ws_base}/api/v1/stream/motion?room={code}", ping_interval=None, compression=None, **local) as phone:
            start = time.perf_counter()
            measuring_from = time.time() * 1000 + warmup * 1000

            async def watch():
                async for message in desktop:
                    now = time.time() * 1000
                    i = message.find('"sentAt":')
                    if i < 0:
                        continue
                    sent = float(message[i + 9:].split(",", 1)[0].split("}", 1)[0])
                    if sent >= measuring_from:
                        latencies.append(now - sent)
                        counts["delivered"] += 1

            async def drain():
                async for _ in phone:
                    pass

            tasks = [asyncio.create_task(watch()), asyncio.create_task(drain())]
            n = 0
            while True:
                target = start + n / hz
                if target > start + warmup + seconds:
                    break
                delay = target - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                sent_at = time.time() * 1000
                await phone.send(json.dumps({"samples": [sample(n / hz)], "sentAt": sent_at}))
                if sent_at >= measuring_from and not page:
                    counts["sent"] += 1
                n += 1
            await asyncio.sleep(0.5)
            for task in tasks:
                task.cancel()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/sentio")
    parser.add_argument("--url", help="an already running server (else one is started)")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--hz", type=float, default=60)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--page", action="store_true", help="the first pair's desktop is the arcade page in Chromium")
    args = parser.parse_args()
    server = None
    if args.url:
        http = args.url
    else:
        data = tempfile.mkdtemp(prefix="sentio-arcade-latency-")
        server = subprocess.Popen([args.bin, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error"], stdout=subprocess.PIPE, text=True)
        http = json.loads(server.stdout.readline())["http"]
    ws_base = http.replace("http", "ws", 1)
    latencies, counts = [], {"sent": 0, "delivered": 0}
    browser = page = None
    if args.page:
        from playwright.async_api import async_playwright
        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
        context = await browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        await page.goto(http + "/arcade/?mode=desktop&game=plane")
        await page.wait_for_function("document.getElementById('code').textContent.length === 6")
        codes = [await page.locator("#code").inner_text()] + [open_room(http) for _ in range(args.pairs - 1)]
    else:
        codes = [open_room(http) for _ in range(args.pairs)]
    cpu0, wall0 = (cpu_seconds(server.pid) if server else None), time.perf_counter()
    await asyncio.gather(*(pair(ws_base, code, args.seconds, args.warmup, args.hz, latencies, counts, page=(args.page and i == 0),
                                source=f"127.0.1.{10 + i}") for i, code in enumerate(codes)))
    page_figures = {}
    if page:
        frames = sorted(await page.evaluate("window.sentioArcade.frameLatency"))
        sockets = sorted(await page.evaluate("window.sentioArcade.latency"))
        pick = lambda xs, p: round(xs[min(len(xs) - 1, int(p * len(xs)))], 2) if xs else None
        page_figures = {"page_frame_p50_ms": pick(frames, 0.5), "page_frame_p95_ms": pick(frames, 0.95),
                        "page_socket_p50_ms": pick(sockets, 0.5), "page_socket_p95_ms": pick(sockets, 0.95), "page_frames": len(frames)}
        await browser.close()
    cpu = (cpu_seconds(server.pid) - cpu0) / (time.perf_counter() - wall0) if server else None
    if server:
        server.terminate(); server.wait()
    latencies.sort()
    q = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] if latencies else None
    print(json.dumps({"pairs": args.pairs, "hz": args.hz, "seconds": args.seconds, "sent": counts["sent"], "delivered": counts["delivered"],
                      "p50_ms": round(q(0.5), 2), "p95_ms": round(q(0.95), 2), "p99_ms": round(q(0.99), 2), "max_ms": round(latencies[-1], 2),
                      "server_cpu_cores": None if cpu is None else round(cpu, 2), "p95_within_30ms": q(0.95) <= 30, **page_figures}))


asyncio.run(main())
