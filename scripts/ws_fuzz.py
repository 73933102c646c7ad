"""Sends malformed messages over every stream (see scripts/ws-fuzz) and checks the server survives.

Seeded (--seed) so a failure can be replayed. Message kinds: random bytes, truncated and corrupted
JPEGs, text where frames belong, malformed and hostile JSON (deep nesting, huge numbers, NaN,
wrong types, time going back) on the motion stream, binary on the motion stream, empty messages,
and a client that sends a burst without ever reading. After each batch: /healthz answers 200.
At the end: the server's resident memory is within --max-growth-mb of what it was after warm-up.
"""
import argparse, asyncio, json, os, random, subprocess, sys, tempfile, time, urllib.request

import websockets

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
    return 0.0

def healthy(base):
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=10) as r: return r.status == 200
    except Exception:
        return False

def malformed_frame(rng, jpeg):
    kind = rng.randrange(6)
    if kind == 0: return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 4096)))
    if kind == 1: return jpeg[: rng.randrange(2, len(jpeg))]
    if kind == 2:
        b = bytearray(jpeg)
        for _ in range(rng.randrange(1, 50)): b[rng.randrange(len(b))] = rng.getrandbits(8)
        return bytes(b)
    if kind == 3: return b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(200))
    if kind == 4: return b"RIFF\x00\x00\x00\x00WEBPVP8 " + bytes(rng.getrandbits(8) for _ in range(100))
    return b""

def malformed_motion(rng):
    kind = rng.randrange(8)
    if kind == 0: return "{" * rng.randrange(1, 5000)
    if kind == 1: return json.dumps({"samples": [{"t": 1e308 * 10 if False else 1e300, "accelerationIncludingGravity": {"x": 1e300, "y": 0, "z": 0}, "rotationRate": {"alpha": 0, "beta": 0, "gamma": 0}}]})
    if kind == 2: return '{"samples": [{"t": NaN, "accelerationIncludingGravity": {"x": 0, "y": 0, "z": 9.8}}]}'
    if kind == 3: return json.dumps({"samples": "lots"})
    if kind == 4: return json.dumps({"samples": [{"t": 5}] * 600})
    if kind == 5: return json.dumps({"t": -rng.random() * 1e6, "accelerationIncludingGravity": {"x": "a", "y": None, "z": []}})
    if kind == 6: return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 500)))
    return json.dumps([[[[[]]]]] * 1000)

async def fuzz_stream(base_ws, path, rng, count, jpeg):
    sent = 0
    try:
        async with websockets.connect(base_ws + path, max_size=None, open_timeout=20) as ws:
            for _ in range(count):
                if path.endswith("motion"):
                    message = malformed_motion(rng) if rng.random() < 0.9 else malformed_frame(rng, jpeg)
                else:
                    message = malformed_frame(rng, jpeg) if rng.random() < 0.8 else malformed_motion(rng)
                await ws.send(message)
                sent += 1
                # Read what is there without waiting for it: replies pile up server-side otherwise.
                try:
                    while True: await asyncio.wait_for(ws.recv(), timeout=0.0005)
                except (asyncio.TimeoutError, TimeoutError):
                    pass
    except websockets.exceptions.ConnectionClosed:
        pass  # the server may close a connection that misbehaves; it must stay up
    return sent

async def never_reads(base_ws, jpeg, frames):
    """A client that sends frames and never reads a reply."""
    try:
        async with websockets.connect(base_ws + "/api/v1/stream/faces", max_size=None, open_timeout=20) as ws:
            for _ in range(frames): await ws.send(jpeg)
            await asyncio.sleep(2)
    except websockets.exceptions.ConnectionClosed:
        pass

async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/sentio")
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--photo", default=os.path.expanduser("~/.cache/sentio/samples/grace_hopper.jpg"))
    parser.add_argument("--max-growth-mb", type=float, default=150)
    options = parser.parse_args()
    jpeg = open(options.photo, "rb").read()
    data = tempfile.mkdtemp(prefix="sentio-wsfuzz-")
    # Malformed messages are the point here, not the stream caps: every fuzzing client is this
    # machine, so its per-address cap is the server's whole limit.
    server = subprocess.Popen([options.bin, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error",
                               "--streams-per-client", "96"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = json.loads(server.stdout.readline())["http"]
        base_ws = base.replace("http://", "ws://")
        rng = random.Random(options.seed)
        # Warm up: models loaded, one frame through each image stream.
        for kind in ("faces", "hands", "pose", "gestures"):
            async with websockets.connect(f"{base_ws}/api/v1/stream/{kind}", max_size=None) as ws:
                await ws.send(jpeg)
                await ws.recv()
        baseline = rss_mb(server.pid)
        paths = ["/api/v1/stream/faces", "/api/v1/stream/hands", "/api/v1/stream/pose", "/api/v1/stream/motion", "/api/v1/stream/gestures"]
        sent, batch = 0, 250
        started = time.time()
        while sent < options.messages:
            results = await asyncio.gather(*[fuzz_stream(base_ws, p, random.Random(rng.random()), batch // len(paths), jpeg) for p in paths])
            sent += sum(results)
            if not healthy(base) or server.poll() is not None:
                print(json.dumps({"sent": sent, "alive": False}))
                sys.exit(1)
        await asyncio.gather(*[never_reads(base_ws, jpeg, 200) for _ in range(4)])
        alive = healthy(base) and server.poll() is None
        await asyncio.sleep(1)
        after = rss_mb(server.pid)
        report = {"sent": sent, "seconds": round(time.time() - started, 1), "alive": alive,
                  "rss_after_warmup_mb": round(baseline, 1), "rss_after_mb": round(after, 1), "max_growth_mb": options.max_growth_mb}
        print(json.dumps(report))
        sys.exit(0 if alive and after - baseline <= options.max_growth_mb else 1)
    finally:
        server.terminate()
        server.wait()

asyncio.run(main())
